// Bundles src/ into one CommonJS file, dist/sivtr.cjs, so `npx sivtr` starts near bare node:
// measured here, Node 20's ESM loader spent ~25 ms resolving and linking the split ESM chunks of
// the same code, while require() of one file costs ~2 ms. Our own lazy `import()`s become cheap
// in-bundle initialisers; packages (yargs, clipboardy, node-pty, better-sqlite3, …) stay external
// and keep loading through real dynamic `import()` only when a command needs them.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';
import { lazyInkPackages } from './picker-lazy.mjs';
import { seedCodeCaches } from './seed-code-cache.mjs';

// string-width (and the Unicode tables it imports) is ESM-only and needed synchronously by the
// text model: bundled in, since a CommonJS bundle cannot require() ESM on Node 20.
// better-sqlite3's JavaScript too: resolving, reading and compiling its dozen small files one by
// one cost ~7 ms of every search. Its native addon is loaded by path (src/session/sqlite.ts),
// so `bindings` (external) is not reached.
const BUNDLED = new Set(['string-width', 'get-east-asian-width', 'strip-ansi', 'ansi-regex', 'better-sqlite3']);

/** Every bare package import stays external except `names` (esbuild's `packages: 'external'`, with exceptions). */
function externalPackagesExcept(names) {
  return {
    name: 'external-packages-except',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
        if (names.has(name) || args.path.startsWith('node:')) return undefined;
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * Node modules that a warm start need not load, bundled as a stand-in whose functions load the
 * real module on their first call: node:module (imported for createRequire, which the bundle
 * calls only on rare paths) also loads Node's ES module loader and source-map parser; node:os
 * (home(), the index helper's core count) is needed only when HOME is unset or a build is large.
 * ~2 M instructions of every warm `search` together. Only functions can be imported from them.
 */
const LAZY_BUILTINS = ['node:module', 'node:os'];
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    // The stand-in's own require() of the module is Node's (external), not the stand-in again.
    b.onResolve({ filter: new RegExp(`^(${LAZY_BUILTINS.join('|')})$`) }, (args) => (args.namespace === 'lazy-builtin' ? { path: args.path, external: true } : { path: args.path, namespace: 'lazy-builtin' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, async (args) => {
      const real = await import(args.path);
      const names = Object.keys(real).filter((k) => k !== 'default' && typeof real[k] === 'function');
      const load = `require(${JSON.stringify(args.path)})`;
      return { contents: names.map((k) => `export function ${k}(...a) { return ${load}.${k}(...a); }`).join('\n'), loader: 'js' };
    });
  },
};

rmSync('dist', { recursive: true, force: true });
const IMPORT_BANNER = 'const __imp_ = globalThis.__sivtrImport || ((s) => import(s));';
// esbuild writes one require("node:fs") per module that imports it (~80 of node:fs and node:path
// run by a warm search), each a walk through Node's module loader: every require of a Node module
// calls __sreq_ instead, which asks Node once per module (same length, so the source map stays exact).
const BUILTIN_REQUIRE_BANNER = 'const __sreq_ = ((m) => (s) => m.get(s) ?? m.set(s, require(s)).get(s))(new Map());';
/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  plugins: [lazyBuiltins, externalPackagesExcept(BUNDLED)],
  logLevel: 'warning',
  // import.meta.url locates shell-hooks/, fixtures/ and the recorder worker: give CJS the bundle's URL,
  // made when first asked (pathToFileURL and the URL class cost ~2 M instructions of a start that never asks).
  define: { 'import.meta.url': '__sivtrBundle.url' },
  banner: { js: 'const __sivtrBundle = { get url() { return (this.u ??= require("node:url").pathToFileURL(__filename).href); } };' + IMPORT_BANNER + BUILTIN_REQUIRE_BANNER },
  // Identifiers too: every start reads the bundle, copies it into a V8 string and deserialises
  // its code cache, and long names were a quarter of the search bundle (510 -> 371 KB; warm search
  // at 300 MB: ~2.5 M instructions and ~130 page faults fewer). Stack traces stay readable: with
  // SIVTR_DEBUG=1 the launcher loads the bundle with source maps on (bin/sivtr.js), so a trace
  // names the src/ files, lines and functions.
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
};
// bin/sivtr.js runs the bundle from a V8 code cache (vm.Script), and on Node 20 an import() in
// code restored from a cache finds no loader ("A dynamic import callback was not specified").
// So every import() of a package calls __imp_ instead: the launcher's own import() when it set
// one, else a plain import() (IMPORT_BANNER). Same length, so the source map stays exact.

async function bundle(entry, outfile, plugins = []) {
  const result = await build({ ...common, plugins: [...common.plugins, ...plugins], entryPoints: [entry], outfile, write: false });
  mkdirSync(dirname(outfile), { recursive: true });
  for (const file of result.outputFiles) {
    const text = file.path.endsWith('.cjs') ? file.text.replace(/\bimport\("/g, '__imp_("').replace(/\brequire\("node:/g, '__sreq_("node:') : file.text;
    writeFileSync(file.path, text);
  }
}

await bundle('src/cli/main.ts', 'dist/sivtr.cjs');

// Slim bundles for the commands that are run most and must start fastest: the same entry with
// only one command's code (every other command in the table hands over to dist/sivtr.cjs, see
// src/cli/hand-over.ts). bin/sivtr.js runs dist/sivtr-<command>.cjs when it exists. Reading and
// deserialising half the code was ~2.5 ms of a warm `search` or `sessions`.
const SLIM = ['search', 'sessions'];
for (const keep of SLIM) {
  const plugin = {
    name: 'slim-command-table',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]cli[\\/]commands[\\/]index\.ts$/ }, (args) => {
        const table = readFileSync(args.path, 'utf8');
        let kept = 0;
        const contents = table.replace(/load: \(\) => import\('\.\/([a-z-]+)\.js'\)/g, (whole, name) => {
          if (name !== keep) return 'load: handOver';
          kept++;
          return whole;
        });
        if (kept !== 1) throw new Error(`slim bundle: no loader for ${keep} in ${args.path}`);
        return { contents: `import { handOver } from '../hand-over.js';\n${contents}`, loader: 'ts' };
      });
    },
  };
  await bundle('src/cli/main.ts', `dist/sivtr-${keep}.cjs`, [plugin]);
}
// The recorder's worker thread gets a bundle of its own (see src/capture/sink.ts).
await bundle('src/capture/recorder-worker.ts', 'dist/recorder-worker.cjs');
// The index's helper thread (src/store/sync-helper.ts) likewise.
await bundle('src/store/index-worker.ts', 'dist/index-worker.cjs');
// The index helper's bundle too: its thread starts from a seed (bin/seeded-worker.js), under
// either of the flags a launcher may run with.
seedCodeCaches(['dist/sivtr.cjs', ...SLIM.map((command) => `dist/sivtr-${command}.cjs`), 'dist/index-worker.cjs'], ['dist/index-worker.cjs']);
// The MCP SDK and zod, bundled whole (src/mcp/sdk-entry.ts), loaded only by `sivtr mcp`: one
// require() of one file instead of ~250 ES modules (measured here: ~0.45 s against ~0.65 s).
await build({ ...common, plugins: [], entryPoints: ['src/mcp/sdk-entry.ts'], outfile: 'dist/mcp-sdk.cjs', sourcemap: false, banner: {}, define: {} });

// The picker's screen (src/cli/picker/app.ts) with Ink and React, one ES module that only `pick`
// and `--pick` import: bundled whole, because Node 20 spent ~1 s resolving and linking Ink's and
// React's ~150 files one by one, while one minified file loads in a fraction of that. It is ESM
// because Ink's layout engine (yoga-layout) starts with a top-level await.
// - React's production build (the development one checks every render);
// - react-devtools-core stubbed: Ink reaches for it only under DEV=true;
// - is-in-ci stubbed: under CI=true Ink would draw nothing until it exits, and the picker runs
//   on a terminal by definition;
// - `fetch` undefined: yoga-layout then decodes its inlined WebAssembly directly instead of
//   loading Node's fetch (undici) to read a data: URL, which cost ~60 ms of the first paint.
// - ws stubbed: only Ink's devtools (DEV=true) use it, and it was a seventh of the chunk to compile;
// - string-width, slice-ansi and ansi-tokenize, as Ink's packages import them, loaded on first use
//   (scripts/picker-lazy.mjs says why).
const stubs = { 'react-devtools-core': 'export default {};', 'is-in-ci': 'export default false;', ws: 'export default {};' };
await build({
  entryPoints: ['src/cli/picker/app.ts'],
  outfile: 'dist/picker.mjs',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"', fetch: 'undefined' },
  // React and signal-exit are CommonJS and require() Node's own modules.
  banner: { js: 'import { createRequire as __sivtrCreateRequire } from "node:module"; const require = __sivtrCreateRequire(import.meta.url);' },
  plugins: [
    {
      name: 'picker-stubs',
      setup(b) {
        b.onResolve({ filter: /^(react-devtools-core|is-in-ci|ws)$/ }, (args) => ({ path: args.path, namespace: 'stub' }));
        b.onLoad({ filter: /.*/, namespace: 'stub' }, (args) => ({ contents: stubs[args.path], loader: 'js' }));
      },
    },
    lazyInkPackages,
  ],
});
