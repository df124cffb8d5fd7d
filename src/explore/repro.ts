/**
 * The shell script of a finding (`explore-repro.sh`): its exchanges as curl lines that run again
 * against a fresh account. Recorded ids would not exist there, so every id a create answered with
 * is captured into a variable (`ID1=$(curl ...)`) and used in the lines after it; the base URL is
 * `$CLOUDCHECK_TARGET` (the recorded one by default), the key `$CLOUDCHECK_API_KEY`.
 */
import type { Exchange } from '../model/finding.ts';

/**
 * The first `"id"` or `"<thing>_id"` of a body (`message_id`, `campaign_id` where a resource is
 * named so), which is how the script's `grep -o | head -n 1` finds it too.
 */
const FIRST_ID = /"(?:[a-z]+_)?id"\s*:\s*"([^"\\]+)"/;
const CAPTURE = `grep -o '"\\([a-z]*_\\)\\{0,1\\}id" *: *"[^"]*"' | head -n 1 | sed 's/.*"\\([^"]*\\)"$/\\1/'`;

function createdId(exchange: Exchange): string | undefined {
  const res = exchange.response;
  if (exchange.request.method !== 'POST' || !res || res.status < 200 || res.status >= 300 || !res.body)
    return undefined;
  return FIRST_ID.exec(res.body)?.[1];
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replaces an id inside a single-quoted curl argument by its variable (closing and reopening the
 * quotes around it), only where it stands whole: a path segment or a JSON string, never inside
 * another word (a short numeric id must not rewrite a port).
 */
function substituteId(line: string, id: string, variable: string): string {
  return line.replace(new RegExp(`(?<=[/"])${escape(id)}(?=[/"'?])`, 'g'), `'"\${${variable}}"'`);
}

function substituteBase(line: string, base: string): string {
  return line.split(`'${base}`).join(`"\${CLOUDCHECK_TARGET}"'`);
}

export interface ReproductionInput {
  requirement: string;
  /** One line: what was asked, expected, got. */
  summary: string;
  /** Base URL the exchanges were sent to (replaced by $CLOUDCHECK_TARGET). */
  baseUrl: string;
  /** What the families set up first (the exploration's bucket), then the sequence's exchanges. */
  setUp: readonly Exchange[];
  exchanges: readonly Exchange[];
}

export function reproductionScript(input: ReproductionInput): string {
  const base = input.baseUrl.replace(/\/+$/, '');
  const lines = [
    '#!/bin/sh',
    `# cloudcheck explore: minimal sequence breaking ${input.requirement}`,
    `# ${input.summary.replace(/\n/g, ' ')}`,
    '# Runs against $CLOUDCHECK_TARGET (default: the recorded target) with $CLOUDCHECK_API_KEY. What it',
    '# creates keeps its cc- name: `cloudcheck sweep` removes it.',
    `CLOUDCHECK_TARGET="\${CLOUDCHECK_TARGET:-${base}}"`,
    '',
  ];
  const ids: Array<[literal: string, variable: string]> = [];
  for (const exchange of [...input.setUp, ...input.exchanges]) {
    let line = exchange.curl;
    for (const [literal, variable] of ids) line = substituteId(line, literal, variable);
    line = substituteBase(line, base);
    const id = createdId(exchange);
    if (id !== undefined && !ids.some(([literal]) => literal === id)) {
      const variable = `ID${ids.length + 1}`;
      ids.push([id, variable]);
      // Captured without -i (headers would precede the body) and echoed, so the run still shows it.
      lines.push(
        `${variable}=$(${line.replace(/^curl -sS -i /, 'curl -sS ')} | ${CAPTURE})`,
        `echo "${variable}=\${${variable}}"`,
      );
    } else lines.push(line, 'echo');
  }
  return `${lines.join('\n')}\n`;
}
