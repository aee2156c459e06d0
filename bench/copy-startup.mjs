// Startup of one-shot commands against bare `node -e ''`, measured in the same run: `copy out
// --print` on a 10,000-entry log, and `--help`, `--version`, `copy --help` (rendered from the
// command specs, without yargs). Goal: each <= 1.5x bare node (median of RUNS runs, default 15).
// Two environments: the caller's (here NODE_EXTRA_CA_CERTS alone adds ~50 ms to every node start,
// which flatters the ratio) and a minimal one.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fmt, timeRuns } from './lib.mjs';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'bin', 'sivtr.js');
const data = mkdtempSync(join(tmpdir(), 'sivtr-bench-'));
try {
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
  console.log(`log: 10,000 entries, ${(statSync(log).size / 1e6).toFixed(1)} MB`);

  const sivtrEnv = { SIVTR_DATA_DIR: data, SIVTR_CLIPBOARD: 'none' };
  /** @type {[string, NodeJS.ProcessEnv][]} */
  const envs = [
    ['default env', { ...process.env, ...sivtrEnv }],
    ['minimal env', { PATH: process.env.PATH, HOME: data, LANG: 'C.UTF-8', ...sivtrEnv }],
  ];
  /** @type {[string, string[]][]} */
  const commands = [
    ['sivtr copy out --print', ['copy', 'out', '--print']],
    ['sivtr --help', ['--help']],
    ['sivtr --version', ['--version']],
    ['sivtr copy --help', ['copy', '--help']],
  ];
  const runs = Number(process.env.RUNS ?? 15);
  for (const [label, env] of envs) {
    const bare = timeRuns(process.execPath, ['-e', ''], { runs, env });
    console.log(`\n${label}${env.NODE_EXTRA_CA_CERTS ? ' (NODE_EXTRA_CA_CERTS set)' : ''}`);
    console.log(`  ${"bare node -e ''".padEnd(24)} ${fmt(bare)}`);
    for (const [name, args] of commands) {
      const ms = timeRuns(process.execPath, [bin, ...args], { runs, env });
      console.log(`  ${name.padEnd(24)} ${fmt(ms)}  ${(ms / bare).toFixed(2)}x bare node (goal <= 1.5x)`);
    }
  }
} finally {
  rmSync(data, { recursive: true, force: true });
}
