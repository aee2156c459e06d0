// JSON.parse of every line of the files named, each line decoded from the file's bytes on its own:
// the baseline the benchmarks set their builds against (plainParse in lib.mjs says why line by
// line). Run as a process of its own (node bench/parse-lines.cjs FILE…) it is also the baseline
// the figure for terminal records names (its 50 ms for 2.6 MB is start-up and parse):
// CommonJS, as bin/sivtr.js is, so neither start pays for the ES module loader.
'use strict';
const { readFileSync } = require('node:fs');

/** @param {string[]} paths @returns {number} the lines parsed */
function parseLines(paths) {
  let lines = 0;
  for (const path of paths) {
    const bytes = readFileSync(path);
    for (let start = 0; start < bytes.length;) {
      let end = bytes.indexOf(10, start);
      if (end === -1) end = bytes.length;
      if (end > start) {
        JSON.parse(bytes.toString('utf8', start, end));
        lines++;
      }
      start = end + 1;
    }
  }
  return lines;
}

module.exports = { parseLines };
if (require.main === module) parseLines(process.argv.slice(2));
