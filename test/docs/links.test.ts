/**
 * The documentation points at things that exist: every relative link of the README and of docs/
 * reaches a file (and, with `#anchor`, a heading of it), and every repository path a page names in
 * code font is there. Pages that point at nothing are how guides rot when code moves.
 */
import { expect, test } from '../base.ts';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ROOT, anchorsOf, linksOf, markdownFiles, read, rel, splitMarkdown } from './markdown.ts';

/** Top-level folders of the repository: a code-font path starting with one of them names a file of it. */
const REPOSITORY_FOLDERS = ['spec', 'src', 'suites', 'load', 'reference', 'bin', 'test', 'bench', 'docs'];

test('the documentation files this test reads are there', () => {
  const files = markdownFiles().map(rel);
  for (const page of ['README.md', 'docs/options.md', 'docs/architecture.md', 'docs/conventions.md'])
    expect(files).toContain(page);
});

test('the README is a page for users: at most 300 lines, the guides in docs/', () => {
  expect(read(join(ROOT, 'README.md')).replace(/\n$/, '').split('\n').length).toBeLessThanOrEqual(300);
});

test('every relative link of the README and docs/ resolves, anchors included', () => {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    for (const { target, line } of linksOf(read(file))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...
      const [path = '', anchor] = target.split('#');
      const where = `${rel(file)}:${line} → ${target}`;
      const linked = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      if (!existsSync(linked)) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!linked.endsWith('.md') || statSync(linked).isDirectory()) {
        broken.push(`${where}: an anchor into something that is not a Markdown page`);
        continue;
      }
      if (!anchorsOf(read(linked)).has(anchor)) broken.push(`${where}: no heading with that anchor`);
    }
  }
  expect(broken).toEqual([]);
});

test('every repository path a page names in code font exists', () => {
  const missing: string[] = [];
  const folders = REPOSITORY_FOLDERS.join('|');
  const pathLike = new RegExp(`^(?:${folders})/[\\w./-]*$`);
  for (const file of markdownFiles()) {
    const { prose } = splitMarkdown(read(file));
    prose.forEach((line, i) => {
      for (const m of line.matchAll(/`([^`\s]+)`/g)) {
        const path = m[1]!;
        // Placeholders (`reference/areas/<area>/`) and globs name no one file.
        if (!pathLike.test(path)) continue;
        if (!existsSync(join(ROOT, path))) missing.push(`${rel(file)}:${i + 1}: ${path}`);
      }
    });
  }
  expect(missing).toEqual([]);
});
