#!/usr/bin/env node
// A/B of warm searches (issue 9): this checkout against another built checkout of sivtr (say, a
// commit before a change), both as fresh processes over the same corpus, interleaved run by run
// so that drift on a shared machine hits both alike, with bare `node -e ''` timed in the same
// rounds as the baseline. Each side keeps its own index (index formats differ between commits)
// and must give the same answer (`--format json`) to every query, else the figures compare
// different work and the bench says so.
// Usage: node bench/search-ab.mjs --against DIR [--records N] [--sessions N --mb M] [--runs R] [--env minimal|default|both]
//   DIR: another checkout, built (`git worktree add DIR <commit>` or `git archive <commit> | tar -x -C DIR`,
//   node_modules linked or installed, `node scripts/build.mjs`). Defaults: 10,000 terminal records,
//   no agent sessions, 15 runs, both environments.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { generateCorpus } from './agents-corpus.mjs';
import { median, writeTerminalRecords } from './lib.mjs';

const HERE = resolve(import.meta.dirname, '..');

function options() {
  const { values } = parseArgs({
    options: { against: { type: 'string' }, records: { type: 'string' }, sessions: { type: 'string' }, mb: { type: 'string' }, runs: { type: 'string' }, env: { type: 'string' } },
    strict: true,
  });
  if (!values.against) {
    process.stderr.write('usage: node bench/search-ab.mjs --against DIR [--records N] [--sessions N --mb M] [--runs R] [--env minimal|default|both]\n');
    process.exit(2);
  }
  const against = resolve(values.against);
  if (!existsSync(join(against, 'bin', 'sivtr.js')) || !existsSync(join(against, 'dist'))) {
    process.stderr.write(`${against} is not a built sivtr checkout (bin/sivtr.js and dist/): run node scripts/build.mjs there\n`);
    process.exit(2);
  }
  const env = values.env ?? 'both';
  if (!['minimal', 'default', 'both'].includes(env)) {
    process.stderr.write(`--env is minimal, default or both, not ${env}\n`);
    process.exit(2);
  }
  return { against, records: Number(values.records ?? 10_000), sessions: Number(values.sessions ?? 0), mb: Number(values.mb ?? 0), runs: Number(values.runs ?? 15), env };
}

function run(argv, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, argv, { env, cwd: env.HOME, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

const fmt = (ms) => `${ms.toFixed(1)} ms`;

function main() {
  const opts = options();
  const scratch = mkdtempSync(join(tmpdir(), 'sivtr-search-ab-'));
  try {
    const home = join(scratch, 'home');
    mkdirSync(home);
    if (opts.sessions > 0) generateCorpus(home, { sessions: opts.sessions, mb: opts.mb || opts.sessions });
    const sides = [
      { name: 'this checkout', bin: join(HERE, 'bin', 'sivtr.js') },
      { name: `against ${opts.against}`, bin: join(opts.against, 'bin', 'sivtr.js') },
    ].map((side, k) => {
      const data = join(scratch, `data-${k}`);
      // The same mtimes on both sides: a log's mtime is its session's time, which orders `sessions`.
      writeTerminalRecords(data, opts.records).forEach((path, l) => utimesSync(path, 1764000000 + l, 1764000000 + l));
      return { ...side, minimal: { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(scratch, `config-${k}`), SIVTR_CLIPBOARD: 'none' } };
    });
    const queries = [['search', 'connection refused'], ...(opts.sessions > 0 ? [['search', 'tok-claude-12-3']] : []), ['search', '会话'], ['sessions', '--global'], ['search', 'parser config']];
    // Build each side's index, then hold the answers equal.
    const answers = [];
    for (const q of queries) {
      const outs = sides.map((s) => run([s.bin, ...q, ...(q[0] === 'search' ? ['--format', 'json', '--limit', '50'] : ['--json'])], s.minimal).stdout);
      answers.push(`${q.join(' ')}: ${outs[0] === outs[1] ? 'same answer' : 'ANSWERS DIFFER'}`);
    }
    const load = loadavg()[0];
    const report = [`corpus: ${opts.records} terminal records${opts.sessions > 0 ? ` + ${opts.sessions} agent sessions (${opts.mb || opts.sessions} MB)` : ''}; ${opts.runs} interleaved rounds of fresh processes, medians; load average ${load.toFixed(2)} at the start`, ...answers];
    const envs = opts.env === 'both' ? ['minimal', 'default'] : [opts.env];
    for (const envName of envs) {
      const envOf = (side) => (envName === 'minimal' ? side.minimal : { ...process.env, ...side.minimal });
      const bare = [];
      const times = queries.map(() => sides.map(() => []));
      for (let round = 0; round < opts.runs + 2; round++) {
        const keep = round >= 2; // two rounds fill the page cache and the code caches
        const t = run(['-e', ''], envOf(sides[0])).ms;
        if (keep) bare.push(t);
        queries.forEach((q, i) => {
          // Alternate which side goes first, so neither always follows the other's page-cache work.
          const order = round % 2 === 0 ? [0, 1] : [1, 0];
          for (const k of order) {
            const ms = run([sides[k].bin, ...q], envOf(sides[k])).ms;
            if (keep) times[i][k].push(ms);
          }
        });
      }
      const b = median(bare);
      report.push(`${envName} env: bare node -e '': ${fmt(b)}`);
      queries.forEach((q, i) => {
        const [mine, theirs] = times[i].map(median);
        report.push(`  ${q.join(' ')}: this ${fmt(mine)} (${(mine / b).toFixed(2)}× bare)   against ${fmt(theirs)} (${(theirs / b).toFixed(2)}× bare)   difference ${fmt(mine - theirs)}`);
      });
    }
    report.push(`load average ${loadavg()[0].toFixed(2)} at the end (a loaded machine makes every figure slower, the differences less so)`);
    process.stdout.write(report.join('\n') + '\n');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main();
