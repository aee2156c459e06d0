// Issue 2 benchmark: `sivtr copy out --print` on a 10,000-entry log vs bare `node -e ''`.
// Goal: ratio <= 1.5 (median of >= 10 runs each, same machine, same run).
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fmt, timeRuns } from './lib.mjs';

const root = resolve(import.meta.dirname, '..');
const data = mkdtempSync(join(tmpdir(), 'sivtr-bench-'));
mkdirSync(join(data, 'terminals'), { recursive: true });
const lines = [];
for (let i = 0; i < 10_000; i++) {
  const output = Array.from({ length: 1 + (i % 12) }, (_, k) => `line ${k} of output ${i}: ${'x'.repeat(20 + (k * 7) % 40)}`).join('\n');
  const entry = { prompt: `\x1b[32muser@host\x1b[0m:~/p$ `, command: `make target-${i}`, output, cwd: '/home/user/p', ended_at: new Date(1764400000000 + i * 1000).toISOString(), duration_ms: i % 900, exit_code: i % 7 === 0 ? 1 : 0 };
  if (i % 5 === 0) entry.output_ansi = `\x1b[31m${output.split('\n')[0]}\x1b[0m${output.slice(output.indexOf('\n') === -1 ? output.length : output.indexOf('\n'))}`;
  entry.prompt_ansi = entry.prompt;
  entry.prompt = 'user@host:~/p$ ';
  lines.push(JSON.stringify(entry));
}
const log = join(data, 'terminals', 'bench.jsonl');
writeFileSync(log, lines.join('\n') + '\n');
// A minimal environment: variables such as NODE_EXTRA_CA_CERTS add ~50 ms to every node start
// here and would flatter the ratio.
const env = { PATH: process.env.PATH, HOME: data, LANG: 'C.UTF-8', SIVTR_DATA_DIR: data, SIVTR_CLIPBOARD: 'none' };

const runs = Number(process.env.RUNS ?? 15);
const bare = timeRuns(process.execPath, ['-e', ''], { runs, env });
const copy = timeRuns(process.execPath, [join(root, 'bin', 'sivtr.js'), 'copy', 'out', '--print'], { runs, env });
const help = timeRuns(process.execPath, [join(root, 'bin', 'sivtr.js'), '--help'], { runs: 5, env });
console.log(`log: 10,000 entries, ${(statSync(log).size / 1e6).toFixed(1)} MB`);
console.log(`bare node -e '':            ${fmt(bare)}`);
console.log(`sivtr copy out --print:     ${fmt(copy)}  ratio ${(copy / bare).toFixed(2)}x (goal <= 1.5x)`);
console.log(`sivtr --help (yargs path):  ${fmt(help)}  ratio ${(help / bare).toFixed(2)}x`);
rmSync(data, { recursive: true, force: true });
