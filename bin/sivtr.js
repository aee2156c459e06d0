#!/usr/bin/env node
// The launcher. bin/package.json makes this file CommonJS: an ES module entry alone costs ~8 ms of
// loader time here, and the CLI itself is one CommonJS bundle (see scripts/build.mjs).
require('../dist/sivtr.cjs');
