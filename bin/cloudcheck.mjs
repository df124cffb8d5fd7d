#!/usr/bin/env node
// Entry point of the `cloudcheck` command. The sources are TypeScript; tsx's loader runs them
// directly so that a fresh `npm ci` needs no build step and nothing can be stale.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
