// Keystroke echo latency added by `sivtr shell`: type a key at a bash prompt and time until its echo
// comes back, bash on a PTY directly vs bash under `sivtr shell` (recording) on the same kind of PTY.
// 200 keystrokes per run (a key, then a backspace), median per run, median of 10 runs.
// Run: node bench/capture-latency.mjs
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pty from 'node-pty';
import { median } from './lib.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'sivtr.js');
const RUNS = Number(process.env.RUNS ?? 10);
const KEYS = 200;

async function run(viaSivtr) {
  const home = mkdtempSync(join(tmpdir(), 'sivtr-lat-'));
  writeFileSync(join(home, '.bashrc'), "PS1='READY$ '\nHISTFILE=/dev/null\n");
  const env = { PATH: process.env.PATH, HOME: home, TERM: 'xterm-256color', LANG: 'C.UTF-8', INPUTRC: '/dev/null', SIVTR_DATA_DIR: join(home, 'data'), ...(process.env.SIVTR_RECORDER_INLINE ? { SIVTR_RECORDER_INLINE: '1' } : {}) };
  const [file, args] = viaSivtr ? [process.execPath, [BIN, 'shell', 'bash']] : ['bash', ['-i']];
  const p = pty.spawn(file, args, { cols: 100, rows: 30, cwd: home, env, encoding: null });
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

const bare = [];
const proxied = [];
for (let i = 0; i < RUNS; i++) {
  bare.push(await run(false));
  proxied.push(await run(true));
}
const b = median(bare);
const s = median(proxied);
console.log(`keystroke echo latency (median of ${RUNS} runs × ${KEYS} keys): bare bash ${b.toFixed(3)} ms, under sivtr shell ${s.toFixed(3)} ms, added ${(s - b).toFixed(3)} ms (${(s / b).toFixed(2)}×)`);
