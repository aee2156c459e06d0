#!/usr/bin/env node
// The launcher. bin/package.json makes this file CommonJS: an ES module entry alone costs ~8 ms of
// loader time here, and the CLI itself is one CommonJS bundle (see scripts/build.mjs).
// `sivtr --version` is answered from package.json without compiling the bundle, which is most of
// a one-shot command's start; a reader that went away ends it as SIGPIPE would (status 141).
//
// The bundle is compiled with a V8 code cache kept beside it (dist/.cache, one file per Node
// version and command), written once after a run that ended well (and did not build the index from
// nothing): parsing the bundle and compiling the functions a command runs cost ~10 ms of every
// start, about a third of bare `node`. Any
// problem with the cache (missing, stale, unwritable dir, SIVTR_NO_CODE_CACHE=1), and a debugging
// run (SIVTR_DEBUG=1, whose stack traces go through the source map), means compiling
// as a plain require() would.
//
// A command with a slim bundle of its own (dist/sivtr-<command>.cjs: `search`, `sessions`) runs
// from that one, which holds half the code; dist/sivtr.cjs runs every other command.
'use strict';
const path = require('node:path');

const dist = path.join(__dirname, '..', 'dist');
const word = process.argv[2];
const command = word && /^[a-z][a-z-]{0,15}$/.test(word) ? word : '_';
const slim = command === '_' ? undefined : path.join(dist, `sivtr-${command}.cjs`);
const bundle = slim && require('node:fs').existsSync(slim) ? slim : path.join(dist, 'sivtr.cjs');

/** Whether the cache directory (or, before the first write, dist/) is writable: a read-only install compiles every run. */
function writable(dir, fs) {
  try {
    fs.accessSync(fs.existsSync(dir) ? dir : path.dirname(dir), fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function runWithCodeCache() {
  if (process.env.SIVTR_NO_CODE_CACHE) return false;
  // The bundles' identifiers are minified (scripts/build.mjs): a debugging run maps its stack
  // traces back to src/ through the source map beside the bundle, which Node reads only for a
  // file loaded by require() once source maps are on.
  if (process.env.SIVTR_DEBUG) {
    process.setSourceMapsEnabled(true);
    return false;
  }
  const vm = require('node:vm');
  const fs = require('node:fs');
  // The CommonJS loader's Module class, as node:module exports it: node:module itself also loads
  // the ES module loader and the source-map parser, ~1 M instructions of every start.
  const Module = module.constructor;
  const dir = path.join(dist, '.cache');
  const file = path.join(dir, `${process.version}-${process.arch}-${command}.v8`);
  let source;
  let cached;
  try {
    // The bundles are ASCII (esbuild escapes the rest): read as Latin-1 they are the same string,
    // copied rather than decoded as UTF-8 (~2 M instructions for the search bundle).
    const bytes = fs.readFileSync(bundle);
    source = require('node:buffer').isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  } catch {
    return false;
  }
  // Until a command has a cache of its own, the bundle's seed (its outer code alone, made when it
  // was built: scripts/seed-code-cache.mjs) spares parsing the whole bundle, and the run writes
  // the command's cache as it would without one.
  let seeded = false;
  try {
    cached = fs.readFileSync(file);
  } catch {
    try {
      cached = fs.readFileSync(path.join(dir, `${process.version}-${process.arch}-${path.basename(bundle, '.cjs')}.seed.v8`));
      seeded = true;
    } catch {
      cached = undefined;
    }
  }
  const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData: cached });
  const writeCache = (!cached || seeded || script.cachedDataRejected) && writable(dir, fs);
  // The cache is written at exit, and by then V8 may have dropped the compiled code of functions
  // that ran only at the start (bytecode flushing, in major GCs): after a first run that built the
  // index, the bundle's outer function was missing from the cache and every later start spent
  // ~25 ms compiling it again. So the writing run keeps all its code, and restores the default
  // before serialising (a cache records the V8 flags it was made under and is rejected by a
  // process with others).
  const v8 = writeCache ? require('node:v8') : undefined;
  if (v8) v8.setFlagsFromString('--no-flush-bytecode');
  // A worker thread started meanwhile runs under the same flags, so from the seed made under them
  // (src/store/sync-helper.ts, bin/seeded-worker.js).
  globalThis.__sivtrKeepsBytecode = Boolean(v8);
  // The bundle imports packages (yargs, clipboardy, …) through this: import() in code restored
  // from a cache has no loader on Node 20 (see scripts/build.mjs). They resolve from here, the
  // same package root as from dist/.
  globalThis.__sivtrImport = (specifier) => import(specifier);
  // A run ends well with status 0, or with a status its command names as an ordinary end rather
  // than a failure: the picker left with Esc or Ctrl-C exits 130 (src/cli/commands/pick.ts), and
  // people who always leave it so would otherwise never get a cache. A crash, a signal or an
  // error exits with another status and writes nothing.
  let ordinary = 0;
  globalThis.__sivtrOrdinaryExit = (code) => {
    ordinary = code;
  };
  // A run whose command says it ran code later starts will not (a search that built the index
  // from nothing) writes no cache: one written then held the build's code too, half as large
  // again to deserialise at every start after (a test-sized first build takes well under the
  // second of CPU below). The next run writes it.
  let atypical = false;
  globalThis.__sivtrAtypicalRun = () => {
    atypical = true;
  };
  const mod = new Module(bundle, module);
  mod.filename = bundle;
  mod.paths = Module._nodeModulePaths(path.dirname(bundle));
  Module._cache[bundle] = mod;
  if (v8) {
    process.once('exit', (code) => {
      if ((code !== 0 && code !== ordinary) || atypical) return;
      // A run that worked for over a second of CPU (a first search building the index) compiled
      // code that start-ups never run, and a cache holding it is a third larger to deserialise:
      // the next, lighter run writes the cache instead. Compiling is nothing to such a run.
      const cpu = process.cpuUsage();
      if (cpu.user + cpu.system > 1e6) return;
      try {
        v8.setFlagsFromString('--flush-bytecode');
        fs.mkdirSync(dir, { recursive: true });
        const temp = `${file}.${process.pid}`;
        fs.writeFileSync(temp, script.createCachedData());
        fs.renameSync(temp, file);
      } catch {
        // a full disk or a directory made read-only meanwhile: the next run compiles again
      }
    });
  }
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(bundle), mod, bundle, path.dirname(bundle));
  mod.loaded = true;
  return true;
}

if (process.argv.length === 3 && process.argv[2] === '--version') {
  try {
    require('node:fs').writeSync(1, `${require('../package.json').version}\n`);
  } catch {
    process.exitCode = 141;
  }
} else if (!runWithCodeCache()) require(bundle);
