// The layers of docs/architecture.md as an ESLint rule over one allow-list table (eslint.config.js,
// LAYERS), in the manner of Playwright's DEPS.list files: each folder names what it may import;
// an import of the project that is not on its folder's list fails. Imports are resolved to paths
// of the project, so `../../src/harness/client.ts` from any depth is the same file.
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

const posix = (path) => path.split(sep).join('/');

/** Whether `path` is `prefix` or inside it (a file or a folder of the project). */
const within = (path, prefix) => path === prefix || path.startsWith(`${prefix}/`);

/**
 * The layer of a file: the table entry whose folder holds it, the most specific first. A `*`
 * segment matches one folder (`reference/areas/*`): that folder is the file's own.
 */
function layerOf(file, layers) {
  let best;
  for (const [pattern, layer] of Object.entries(layers)) {
    const parts = pattern.split('/');
    const segments = file.split('/');
    if (segments.length <= parts.length) continue;
    if (!parts.every((p, i) => p === '*' || p === segments[i])) continue;
    if (!best || parts.length > best.depth)
      best = { ...layer, depth: parts.length, own: segments.slice(0, parts.length).join('/') };
  }
  return best;
}

function allowed(file, target, layer) {
  if (within(target, layer.own)) return true;
  if ((layer.never ?? []).some((p) => within(target, p))) return false;
  if ((layer.may ?? []).some((p) => within(target, p))) return true;
  return (layer.files?.[file] ?? []).some((p) => within(target, p));
}

export const allowedImports = {
  meta: {
    type: 'problem',
    docs: { description: "an import must be on its folder's allow-list (eslint.config.js, LAYERS)" },
    // The options are the table itself, checked by test/architecture/layers.test.ts.
    schema: false,
  },
  create(context) {
    const [{ root, layers }] = context.options;
    const file = posix(relative(root, context.filename));
    const layer = file.startsWith('..') ? undefined : layerOf(file, layers);
    if (!layer) return {};
    const check = (node, specifier) => {
      if (typeof specifier !== 'string') return;
      if (!specifier.startsWith('.') && !isAbsolute(specifier)) {
        const denied = (layer.packages ?? []).find((p) => specifier === p || specifier.startsWith(`${p}/`));
        if (denied) context.report({ node, message: `${layer.own}/ does not import ${denied}: ${layer.why}` });
        return;
      }
      const target = posix(relative(root, resolve(dirname(context.filename), specifier)));
      if (allowed(file, target, layer)) return;
      const list = [...(layer.may ?? [])].join(', ') || 'nothing outside itself';
      context.report({
        node,
        message: `${layer.own}/ may import only ${list} (eslint.config.js, LAYERS), not ${target}: ${layer.why}`,
      });
    };
    const fromSource = (node) => check(node, node.source?.value);
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: (node) => check(node, node.source.type === 'Literal' ? node.source.value : undefined),
    };
  },
};

export default { rules: { 'allowed-imports': allowedImports } };
