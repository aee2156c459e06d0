// Keystroke echo latency added by `sivtr shell`: type a key at a bash prompt and time until its echo
// comes back: bash on a PTY directly, then under `sivtr shell` (recording), `script -q` and
// `asciinema rec`, each on the same kind of PTY, in the default environment and a minimal one
// (env -i PATH HOME LANG, plus TERM). 200 keystrokes per run (a key, then a backspace), median per
// run, median of RUNS runs (10 by default).
// Run: node bench/capture-latency.mjs
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pty from 'node-pty';
import { median } from './lib.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'sivtr.js');
const RUNS = Number(process.env.RUNS ?? 10);
const KEYS = 200;
const have = (p) => spawnSync('sh', ['-c', `command -v ${p}`]).status === 0;

const ENVS = {
  default: (home) => ({ ...process.env, HOME: home, TERM: 'xterm-256color', INPUTRC: '/dev/null', SIVTR_DATA_DIR: join(home, 'data'), ASCIINEMA_CONFIG_HOME: join(home, 'asciinema') }),
  minimal: (home) => ({ PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', TERM: 'xterm-256color', ...(process.env.SIVTR_RECORDER_INLINE ? { SIVTR_RECORDER_INLINE: '1' } : {}) }),
};

const CONTENDERS = {
  'bare bash': () => ['bash', ['-i']],
  'sivtr shell': () => [process.execPath, [BIN, 'shell', 'bash']],
  'script -q': () => ['script', ['-q', '-c', 'bash -i', '/dev/null']],
  ...(have('asciinema') ? { 'asciinema rec': (home) => ['asciinema', ['rec', '-q', '--overwrite', '-c', 'bash -i', join(home, 'out.cast')]] } : {}),
};

async function run(contender, makeEnv) {
  const home = mkdtempSync(join(tmpdir(), 'sivtr-lat-'));
  writeFileSync(join(home, '.bashrc'), "PS1='READY$ '\nHISTFILE=/dev/null\n");
  const [file, args] = CONTENDERS[contender](home);
  const p = pty.spawn(file, args, { cols: 100, rows: 30, cwd: home, env: makeEnv(home), encoding: null });
  let text = '';
  let waiter;
  p.onData((b) => {
    text += b.toString();
    if (waiter && text.includes(waiter.s, waiter.from)) {
      const w = waiter;
      waiter = undefined;
      w.res();
    }
  });
  const until = (s, from) => new Promise((res) => (text.includes(s, from) ? res() : (waiter = { s, from, res })));
  await until('READY$ ', 0);
  await new Promise((r) => setTimeout(r, 200)); // let startup output settle
  const times = [];
  for (let i = 0; i < KEYS; i++) {
    const key = i % 2 === 0 ? 'x' : '\x7f';
    const expect = i % 2 === 0 ? 'x' : '\b';
    const from = text.length;
    const start = process.hrtime.bigint();
    p.write(key);
    await until(expect, from);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  p.write('\x15exit\r');
  await new Promise((r) => p.onExit(r));
  rmSync(home, { recursive: true, force: true });
  return median(times);
}

console.log(`keystroke echo latency (median of ${RUNS} runs × ${KEYS} keys; added = minus bare bash in the same environment):`);
for (const [name, makeEnv] of Object.entries(ENVS)) {
  const samples = Object.fromEntries(Object.keys(CONTENDERS).map((c) => [c, []]));
  for (let i = 0; i < RUNS; i++) for (const c of Object.keys(CONTENDERS)) samples[c].push(await run(c, makeEnv));
  const bare = median(samples['bare bash']);
  console.log(` ${name} environment:`);
  for (const c of Object.keys(CONTENDERS)) {
    const m = median(samples[c]);
    console.log(`  ${c.padEnd(14)} ${m.toFixed(3)} ms${c === 'bare bash' ? '' : `, added ${(m - bare).toFixed(3)} ms`}`);
  }
}
