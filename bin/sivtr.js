#!/usr/bin/env node
// The launcher. bin/package.json makes this file CommonJS: an ES module entry alone costs ~8 ms of
// loader time here, and the CLI itself is one CommonJS bundle (see scripts/build.mjs).
// `sivtr --version` is answered from package.json without compiling the bundle, which is most of
// a one-shot command's start; a reader that went away ends it as SIGPIPE would (status 141).
if (process.argv.length === 3 && process.argv[2] === '--version') {
  try {
    require('node:fs').writeSync(1, `${require('../package.json').version}\n`);
  } catch {
    process.exitCode = 141;
  }
} else require('../dist/sivtr.cjs');
