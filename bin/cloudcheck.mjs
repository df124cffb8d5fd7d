#!/usr/bin/env node
// Entry point of the `cloudcheck` command. The sources are TypeScript: they run from a bundle kept
// current with them (bundle.mjs), or directly under tsx's loader, so a fresh `npm ci` needs no
// build step and nothing can be stale.
import { loadMain } from './bundle.mjs';

const main = await loadMain();
process.exitCode = await main(process.argv.slice(2));
