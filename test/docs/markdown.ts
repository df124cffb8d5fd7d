/**
 * What the documentation tests read of the project's Markdown: its files, fenced code blocks, prose
 * (the text outside code), links and heading anchors. Written for the Markdown this project
 * writes, not for every Markdown there is.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

/** The documentation a user reads: the README, the guides in docs/, and the READMEs beside the code. */
export function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(ROOT, 'docs', f));
  const besideCode = ['load/README.md', 'spec/README.md'].map((f) => join(ROOT, f)).filter((f) => existsSync(f));
  return [join(ROOT, 'README.md'), ...docs, ...besideCode];
}

export function rel(file: string): string {
  return relative(ROOT, file);
}

export interface CodeBlock {
  lang: string;
  lines: string[];
  /** 1-based line of the opening fence. */
  line: number;
}

/** Splits a Markdown text into its fenced code blocks and its prose (code lines blanked, so line numbers hold). */
export function splitMarkdown(text: string): { blocks: CodeBlock[]; prose: string[] } {
  const blocks: CodeBlock[] = [];
  const prose: string[] = [];
  let open: CodeBlock | null = null;
  text.split('\n').forEach((line, i) => {
    const fence = /^\s*```(\S*)/.exec(line);
    if (fence) {
      if (open) {
        blocks.push(open);
        open = null;
      } else open = { lang: fence[1] ?? '', lines: [], line: i + 1 };
      prose.push('');
    } else if (open) {
      open.lines.push(line);
      prose.push('');
    } else prose.push(line);
  });
  return { blocks, prose };
}

export interface Link {
  target: string;
  line: number;
}

/** Inline links `[text](target)` of the prose, outside code spans. */
export function linksOf(text: string): Link[] {
  const links: Link[] = [];
  splitMarkdown(text).prose.forEach((line, i) => {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const m of withoutCode.matchAll(/\]\(([^)\s]+)\)/g)) links.push({ target: m[1]!, line: i + 1 });
  });
  return links;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of splitMarkdown(text).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

export function read(file: string): string {
  return readFileSync(file, 'utf8');
}
