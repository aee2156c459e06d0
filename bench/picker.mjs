// The picker through a real PTY, read back through a headless xterm as a person would see it:
// first paint (spawn → the list and preview on screen) on a 10,000-record log, with the launcher's
// code cache (written after the first pick that ended well) and without it, when a key typed at
// that moment is answered (the main bundle reads keys itself until Ink has loaded), when a key only
// Ink answers (Tab) is, how soon Esc typed at the first paint gives the screen back and ends the
// process, and how long each keystroke takes to show afterwards (typing a query letter by letter,
// Backspace, Down, Tab).
// Goals: first paint <= 150 ms, every keystroke <= 30 ms. Baselines from the same run, through
// the same PTY: bare `node -e ''` (spawn → exit) and `script -q -c true`. Two environments: the
// caller's (NODE_EXTRA_CA_CERTS here slows every node start) and a minimal one.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as pty from 'node-pty';
import xterm from '@xterm/headless';
import { fmt, median } from './lib.mjs';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'bin', 'sivtr.js');
const RUNS = Number(process.env.RUNS ?? 7);
const RECORDS = 10_000;

function makeLog(dir) {
  mkdirSync(join(dir, 'terminals'), { recursive: true });
  const lines = [];
  for (let i = 0; i < RECORDS; i++) {
    const output = Array.from({ length: 1 + (i % 12) }, (_, k) => `line ${k} of output ${i}: ${'x'.repeat(20 + ((k * 7) % 40))}`).join('\n');
    const entry = { prompt: 'user@host:~/p$ ', prompt_ansi: '\x1b[32muser@host\x1b[0m:~/p$ ', command: `make target-${i}`, output, cwd: '/home/user/p', ended_at: new Date(1764400000000 + i * 1000).toISOString(), duration_ms: i % 900, exit_code: i % 7 === 0 ? 1 : 0 };
    if (i % 5 === 0) entry.output_ansi = `\x1b[31m${output}\x1b[0m`;
    lines.push(JSON.stringify(entry));
  }
  writeFileSync(join(dir, 'terminals', 'bench.jsonl'), lines.join('\n') + '\n');
}

/** A program in a PTY with a headless xterm reading its output; `when(test)` resolves at the first write after which the screen passes. */
function screen(file, args, env) {
  const term = new xterm.Terminal({ cols: 80, rows: 24, allowProposedApi: true });
  const child = pty.spawn(file, args, { cols: 80, rows: 24, env, cwd: env.HOME, name: 'xterm-256color' });
  let waiter;
  const text = () => {
    const b = term.buffer.active;
    const rows = [];
    for (let y = 0; y < term.rows; y++) rows.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
    return rows;
  };
  child.onData((d) =>
    term.write(d, () => {
      if (waiter && waiter.test(text())) {
        const w = waiter;
        waiter = undefined;
        w.resolve(performance.now());
      }
    }),
  );
  const exited = new Promise((r) => child.onExit(() => r(performance.now())));
  return {
    child,
    exited,
    text,
    when(test) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out; screen:\n${text().join('\n')}`)), 20_000);
        waiter = { test, resolve: (t) => (clearTimeout(timer), resolve(t)) };
      });
    },
  };
}

async function spawnToExit(file, args, env) {
  const start = performance.now();
  const s = screen(file, args, env);
  return (await s.exited) - start;
}

const header = (rows) => rows[0] ?? '';
const loaded = (rows) => /^> .*\d+\/10000\s*$/.test(header(rows).trimEnd()) && rows.some((r) => r.startsWith('Enter copy'));

/** `leave`: Esc, or Enter (a choice, exit 0). Either way the launcher writes its V8 code cache when it has none. */
async function firstPaint(env, leave = '\x1b') {
  const start = performance.now();
  const s = screen(process.execPath, [bin, 'pick'], env);
  // the list, with the newest record selected, and the preview of it
  const painted = await s.when((rows) => rows.some((r) => r.startsWith(`›  $ make target-${RECORDS - 1}`)) && rows.some((r) => r.startsWith(`── terminal/`)));
  // A key typed the moment the list shows: answered by the main bundle while Ink loads.
  const answered = s.when((rows) => header(rows).startsWith('> m '));
  s.child.write('m');
  const ready = await answered;
  // Then one that only Ink answers: when Ink has loaded and reads.
  const tabbed = s.when((rows) => rows.some((r) => r.includes('[input]')));
  s.child.write('\t');
  const ink = await tabbed;
  // One more key (Backspace), if the whole log is still being read (the count ends in …).
  let during;
  if (header(s.text()).includes('…')) {
    const sent = performance.now();
    const shown = s.when((rows) => !header(rows).startsWith('> m'));
    s.child.write('\x7f');
    during = (await shown) - sent;
  }
  await s.when(loaded).catch(() => undefined);
  s.child.write(leave);
  await s.exited;
  return { paint: painted - start, ready: ready - start, ink: ink - start, during };
}

/** Esc the moment the list shows: when the screen is given back (the main screen again), and when the process has ended (the prompt comes back). */
async function escAtPaint(env) {
  const s = screen(process.execPath, [bin, 'pick'], env);
  await s.when((rows) => rows.some((r) => r.startsWith('Enter copy')));
  const sent = performance.now();
  let back;
  s.child.onData((d) => {
    if (back === undefined && d.includes('\x1b[?1049l')) back = performance.now();
  });
  s.child.write('\x1b');
  const ended = await s.exited;
  return { back: (back ?? ended) - sent, ended: ended - sent };
}

async function keystrokes(env) {
  const s = screen(process.execPath, [bin, 'pick'], env);
  await s.when(loaded);
  /** @type {[string, number][]} */
  const times = [];
  const key = async (kind, data, test) => {
    const start = performance.now();
    const shown = s.when(test);
    s.child.write(data);
    times.push([kind, (await shown) - start]);
  };
  let query = '';
  for (const ch of 'target-99') {
    query += ch;
    const q = query;
    await key(q.length === 1 ? 'first letter' : 'letter', ch, (rows) => header(rows).startsWith(`> ${q} `) || header(rows).trimEnd() === `> ${q}`);
  }
  await key('Backspace', '\x7f', (rows) => header(rows).startsWith('> target-9 '));
  await key('Down', '\x1b[B', (rows) => (rows[2] ?? '').startsWith('›'));
  await key('Tab', '\t', (rows) => rows.some((r) => r.includes('[input]')));
  await key('Ctrl-U', '\x15', (rows) => /^> +\d+\/10000/.test(header(rows)));
  s.child.write('\x1b');
  await s.exited;
  return times;
}

const data = mkdtempSync(join(tmpdir(), 'sivtr-bench-picker-'));
try {
  makeLog(data);
  console.log(`picker on a ${RECORDS.toLocaleString('en')}-record log, 80×24 PTY, ${RUNS} runs (medians)`);
  const sivtrEnv = { SIVTR_DATA_DIR: data, SIVTR_TERMINAL_ID: 'bench', SIVTR_CLIPBOARD: 'none', TERM: 'xterm-256color' };
  /** @type {[string, Record<string, string | undefined>][]} */
  const envs = [
    ['default env', { ...process.env, ...sivtrEnv, HOME: data }],
    ['minimal env', { PATH: process.env.PATH, HOME: data, LANG: 'C.UTF-8', ...sivtrEnv }],
  ];
  const hasScript = spawnSync('script', ['-q', '-c', 'true', '/dev/null']).status === 0;
  for (const [label, env] of envs) {
    console.log(`\n${label}${env.NODE_EXTRA_CA_CERTS ? ' (NODE_EXTRA_CA_CERTS set)' : ''}`);
    const bare = [];
    const script = [];
    const paint = [];
    const ready = [];
    const ink = [];
    const uncached = [];
    const during = [];
    for (let i = 0; i < RUNS + 1; i++) {
      const b = await spawnToExit(process.execPath, ['-e', ''], env);
      const sc = hasScript ? await spawnToExit('script', ['-q', '-c', 'true', '/dev/null'], env) : NaN;
      // The warm-up fills the page cache and the launcher's code cache (ending with a choice, as
      // it always has; leaving with Esc writes it as well now).
      const p = await firstPaint(env, i === 0 ? '\r' : '\x1b');
      // As the first run after an install or an upgrade starts: no code cache yet.
      const u = await firstPaint({ ...env, SIVTR_NO_CODE_CACHE: '1' });
      if (i === 0) continue;
      bare.push(b);
      script.push(sc);
      paint.push(p.paint);
      ready.push(p.ready);
      ink.push(p.ink);
      uncached.push(u.paint);
      for (const d of [p.during, u.during]) if (d !== undefined) during.push(d);
    }
    console.log(`  ${"bare node -e '' (pty)".padEnd(30)} ${fmt(median(bare))}`);
    if (hasScript) console.log(`  ${'script -q -c true (pty)'.padEnd(30)} ${fmt(median(script))}`);
    console.log(`  ${'first paint'.padEnd(30)} ${fmt(median(paint))}  (goal <= 150 ms; ${fmt(median(paint) - median(bare))} over bare node)`);
    console.log(`  ${'  without a code cache'.padEnd(30)} ${fmt(median(uncached))}  (the first run after an install or upgrade)`);
    console.log(`  ${'first key answered'.padEnd(30)} ${fmt(median(ready))}  (a key typed at the first paint, from spawn; ${fmt(median(ready) - median(paint))} after the paint)`);
    console.log(`  ${'  a key only Ink answers'.padEnd(30)} ${fmt(median(ink))}  (Tab, typed once that key showed: Ink loaded and reading, from spawn)`);
    if (during.length > 0) console.log(`  ${'key while the list loads'.padEnd(30)} median ${fmt(median(during))}, max ${fmt(Math.max(...during))} over ${during.length} keys (typed after that one, before the whole log is read)`);
    const escs = [];
    for (let i = 0; i < RUNS; i++) escs.push(await escAtPaint(env));
    console.log(`  ${'Esc at the first paint'.padEnd(30)} screen back ${fmt(median(escs.map((e) => e.back)))}, process ended ${fmt(median(escs.map((e) => e.ended)))}`);
    const timed = [];
    for (let i = 0; i < Math.max(2, Math.ceil(RUNS / 2)); i++) timed.push(...(await keystrokes(env)));
    const keys = timed.map(([, t]) => t).sort((a, b) => a - b);
    const p95 = keys[Math.min(keys.length - 1, Math.floor(keys.length * 0.95))];
    console.log(`  ${'keystroke → screen'.padEnd(30)} median ${fmt(median(keys))}, p95 ${fmt(p95)}, max ${fmt(keys.at(-1))} over ${keys.length} keys (goal <= 30 ms)`);
    const kinds = [...new Set(timed.map(([k]) => k))];
    const byKind = kinds.map((k) => {
      const ts = timed.filter(([kk]) => kk === k).map(([, t]) => t);
      return `${k} ${fmt(median(ts))} (max ${fmt(Math.max(...ts))})`;
    });
    console.log(`  ${'  by key (median)'.padEnd(30)} ${byKind.join(', ')}`);
  }
} finally {
  rmSync(data, { recursive: true, force: true });
}
