// The floor under a warm `sivtr search` (bench/search.mjs prints it beside bare node): a fresh node
// that loads the SQLite addon by path, opens index.db with the raw addon (no better-sqlite3
// JavaScript, no sivtr code) and reads one meta row. Whatever a search spends above this is ours.
// Usage: node bench/search-floor.cjs ADDON INDEX_DB (the row goes to stdout, so it cannot be optimised away).
'use strict';
const [addonPath, dbPath] = process.argv.slice(2);
const binding = { exports: {} };
process.dlopen(binding, addonPath);
const addon = binding.exports;
addon.setErrorConstructor(Error);
// The addon's own constructor, as better-sqlite3's lib/database.js calls it for a file that must exist:
// (filename, filenameGiven, anonymous, readonly, fileMustExist, timeout, verbose, buffer).
const db = new addon.Database(dbPath, dbPath, false, false, true, 5000, null, null);
const row = db.prepare("SELECT value FROM meta WHERE key = 'version'", {}, false).get();
// Written to the descriptor, as sivtr writes (src/cli/stdio.ts): process.stdout on a pipe would load
// node:stream and the net modules, which no warm search loads, and raise the floor.
require('node:fs').writeSync(1, `${JSON.stringify(row)}\n`);
