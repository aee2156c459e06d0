// `npm run bench [name…]`: runs the benchmarks one after another (they share the two cores, so
// never side by side), each printing its own baseline from the same run. Names are file stems
// under bench/ (`copy-startup`, `search`, …); without names every benchmark runs, which takes a
// while because some generate a corpus of about 1 GB.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const helpers = new Set(['run', 'lib', 'agents-corpus']);
const all = readdirSync(here)
  .filter((f) => f.endsWith('.mjs'))
  .map((f) => f.slice(0, -4))
  .filter((n) => !helpers.has(n))
  .sort();

const asked = process.argv.slice(2);
const unknown = asked.filter((n) => !all.includes(n));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown benchmark ${unknown.join(', ')} — choose from: ${all.join(', ')}\n`);
  process.exit(2);
}
if (!existsSync(join(here, '..', 'dist', 'sivtr.cjs'))) {
  process.stderr.write('bench: dist/sivtr.cjs is missing — run `npm run build` first\n');
  process.exit(1);
}

let failed = 0;
for (const name of asked.length > 0 ? asked : all) {
  process.stdout.write(`\n== ${name}\n`);
  const r = spawnSync(process.execPath, [join(here, `${name}.mjs`)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
