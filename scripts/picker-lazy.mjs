// An esbuild plugin for the picker's chunk (dist/picker.mjs): the packages below, as Ink's own
// packages import them, are loaded on their first call instead of with the chunk. Loading them
// builds Unicode-property regexes (RGI emoji) and Intl.Segmenters (ICU's break-iterator data),
// measured here at about 40 ms of the main thread on a loaded machine: the largest part of
// evaluating the chunk, during which keys typed before Ink had loaded waited. They measure and
// cut styled text for Ink's renderer, which the picker does not use (it draws its own frames,
// src/cli/picker/app.ts), so in practice they are never loaded. A name Ink imports that is not
// listed fails the build, so an Ink upgrade that needs more says so.

import { dirname } from 'node:path';

/** Package → the exports Ink's packages import from it. */
const LAZY = {
  'string-width': ['default'],
  'slice-ansi': ['default'],
  '@alcalzone/ansi-tokenize': ['tokenize', 'styledCharsFromTokens', 'styledCharsToString'],
};

/** A module standing for `name` (the file `file`): each export calls the real one, required (synchronously, from the bundle) on first use. */
function lazyModule(name, file) {
  const get = `let real; const get = () => (real ??= require(${JSON.stringify(file)}));`;
  const exports = LAZY[name].map((e) => (e === 'default' ? 'export default (...a) => get().default(...a);' : `export const ${e} = (...a) => get().${e}(...a);`));
  return [get, ...exports].join('\n');
}

const REAL = Symbol('the package itself');

/** @type {import('esbuild').Plugin} */
export const lazyInkPackages = {
  name: 'picker-lazy-packages',
  setup(b) {
    const names = Object.keys(LAZY).map((n) => n.replace(/[/.@-]/g, (c) => `\\${c}`));
    // Imports from node_modules only (Ink's packages); sivtr's own get the package as it is. Each
    // importer's own copy (wrap-ansi has a string-width of its own) gets a stand-in of its own.
    b.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, async (args) => {
      if (!args.importer.includes('node_modules') || args.pluginData === REAL) return undefined;
      const real = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: REAL });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: 'picker-lazy', pluginData: args.path };
    });
    b.onLoad({ filter: /.*/, namespace: 'picker-lazy' }, (args) => ({ contents: lazyModule(args.pluginData, args.path), loader: 'js', resolveDir: dirname(args.path) }));
  },
};
