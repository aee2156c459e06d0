// A worker thread's entry that runs its bundle (process.argv[2], a dist/*.cjs) from the V8 code
// cache the build seeded for it (scripts/seed-code-cache.mjs), as bin/sivtr.js runs the CLI's.
// Started on the bundle itself, the thread parsed the whole of it before running a line: the
// index helper's (dist/index-worker.cjs) cost ~44 M instructions of every cold build that way
// (callgrind, --separate-threads=yes). A seed that is missing, made by another Node or corrupt,
// or SIVTR_NO_CODE_CACHE=1, means compiling as a plain require() would: V8 checks the seed
// against its own version, flags and the source, and compiles afresh when it does not fit.
// Nothing is written: the thread runs only in builds, and the seed is made when the bundle is.
'use strict';
const path = require('node:path');
const fs = require('node:fs');

const bundle = process.argv[2];
// `keep`: the process runs with --no-flush-bytecode (bin/sivtr.js sets it in a run that writes its
// cache), and V8 accepts only a cache made under the flags it runs with.
const kind = process.argv[3] === 'keep' ? 'keep.seed' : 'seed';
const seed = path.join(path.dirname(bundle), '.cache', `${process.version}-${process.arch}-${path.basename(bundle, '.cjs')}.${kind}.v8`);

function runSeeded() {
  if (process.env.SIVTR_NO_CODE_CACHE) return false;
  let source;
  let cachedData;
  try {
    cachedData = fs.readFileSync(seed);
    // ASCII, as esbuild writes it: read as Latin-1, the same string copied rather than decoded.
    const bytes = fs.readFileSync(bundle);
    source = require('node:buffer').isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  } catch {
    return false;
  }
  const vm = require('node:vm');
  // The CommonJS loader's Module class, as bin/sivtr.js takes it (node:module loads more).
  const Module = module.constructor;
  const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData });
  // import() in code restored from a cache has no loader on Node 20: the bundle's import() of a
  // package calls this one (scripts/build.mjs), which resolves from the same package root.
  globalThis.__sivtrImport = (specifier) => import(specifier);
  const mod = new Module(bundle, module);
  mod.filename = bundle;
  mod.paths = Module._nodeModulePaths(path.dirname(bundle));
  Module._cache[bundle] = mod;
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(bundle), mod, bundle, path.dirname(bundle));
  mod.loaded = true;
  return true;
}

if (!runSeeded()) require(bundle);
