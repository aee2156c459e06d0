// Prompt cost of the hooks in hooks-only mode (no recorder): bash, zsh and pwsh.
//  1. in-shell: 1,000 prompt-hook invocations that each write a JSONL line, timed by the shell's own
//     clock, minus an empty loop of the same length (median of 10 runs);
//  2. end to end: 1,000 real prompts through a PTY (`:` + Enter, wait for the prompt), with the hook vs
//     without, median of 10 runs (pwsh: 200 prompts, it is slow to drive);
//  3. forks: strace -f counts clone/fork calls of the shell during 200 prompts with the hook.
// Run: node bench/capture-prompt.mjs [bash|zsh|pwsh…]   (needs bash, zsh, strace; pwsh from ~/.dotnet/tools if present)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pty from 'node-pty';
import { median } from './lib.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const HOOKS = join(ROOT, 'shell-hooks');
const RUNS = 10;
const tools = join(homedir(), '.dotnet', 'tools');
if (existsSync(join(tools, 'pwsh'))) process.env.PATH = `${tools}:${process.env.PATH}`;
const have = (p) => spawnSync('sh', ['-c', `command -v ${p}`]).status === 0;

function tmp() {
  return mkdtempSync(join(tmpdir(), 'sivtr-bench-'));
}

function env(home) {
  return { PATH: process.env.PATH, HOME: home, TERM: 'xterm-256color', LANG: 'C.UTF-8', INPUTRC: '/dev/null', SIVTR_DATA_DIR: join(home, 'data') };
}

// --- 1. in-shell loop ------------------------------------------------------------------------------
const loops = {
  bash: (hook) => [
    'bash',
    ['--noprofile', '--norc', '-i', '-c', `PS1='$ '; HISTFILE=/dev/null; set -o history; history -s 'echo bench'; ${hook ? `. ${HOOKS}/sivtr.bash;` : ''}
      t0=$EPOCHREALTIME; for ((i=0;i<1000;i++)); do ${hook ? '__sivtr_ran=1; __sivtr_hn=-1; __sivtr_precmd; __sivtr_wrap' : ':'}; done; t1=$EPOCHREALTIME
      echo "us=$(( \${t1/./} - \${t0/./} ))"`],
  ],
  zsh: (hook) => [
    'zsh',
    ['-f', '-i', '-c', `zmodload zsh/datetime; PS1='%# '; ${hook ? `. ${HOOKS}/sivtr.zsh;` : ''}
      t0=$EPOCHREALTIME; for ((i=0;i<1000;i++)); do ${hook ? "__sivtr_ran=1; __sivtr_cmd='echo bench'; __sivtr_precmd; __sivtr_wrap" : ':'}; done; t1=$EPOCHREALTIME
      integer us; (( us = (t1 - t0) * 1e6 )); echo "us=$us"`],
  ],
  pwsh: (hook) => [
    'pwsh',
    ['-NoLogo', '-NoProfile', '-Command', `function prompt { 'PS> ' }; ${hook ? `. '${HOOKS}/sivtr.ps1';` : ''}
      Add-History -InputObject ([pscustomobject]@{ CommandLine = 'echo bench'; ExecutionStatus = 'Completed'; StartExecutionTime = (Get-Date); EndExecutionTime = (Get-Date) })
      $global:__SivtrPrimed = $true
      $sw = [Diagnostics.Stopwatch]::StartNew()
      for ($i = 0; $i -lt 1000; $i++) { ${hook ? '$global:__SivtrLastHistoryId = -1; $null = prompt' : '$null = $i'} }
      "us=$([int64]($sw.Elapsed.TotalMilliseconds * 1000))"`],
  ],
};

function inShell(kind, hook) {
  const home = tmp();
  try {
    const [file, args] = loops[kind](hook);
    const r = spawnSync(file, args, { env: env(home), encoding: 'utf8' });
    const m = /us=(\d+)/.exec(r.stdout);
    if (!m) throw new Error(`${kind}: ${r.stdout}\n${r.stderr}`);
    if (hook) {
      const dir = join(home, 'data', 'terminals');
      const lines = spawnSync('sh', ['-c', `cat "${dir}"/*.jsonl | wc -l`], { encoding: 'utf8' }).stdout.trim();
      if (Number(lines) < 1000) throw new Error(`${kind}: expected 1000 JSONL lines, got ${lines}`);
    }
    return Number(m[1]) / 1000; // ms for the 1000 iterations
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

// --- 2. real prompts through a PTY -----------------------------------------------------------------
/** @returns {[string, string[], Record<string, string>]} */
function shellArgs(kind, home, hook) {
  if (kind === 'bash') {
    const rc = join(home, 'rc');
    writeFileSync(rc, `PS1='@P@ '\nHISTFILE=/dev/null\n${hook ? `. ${HOOKS}/sivtr.bash\n` : ''}`);
    return ['bash', ['--noprofile', '--rcfile', rc, '-i'], {}];
  }
  if (kind === 'zsh') {
    mkdirSync(join(home, 'z'), { recursive: true });
    writeFileSync(join(home, 'z', '.zshrc'), `PS1='@P@ '\nHISTFILE=/dev/null\n${hook ? `. ${HOOKS}/sivtr.zsh\n` : ''}`);
    return ['zsh', ['-d', '-i'], { ZDOTDIR: join(home, 'z') }];
  }
  const profile = join(home, 'p.ps1');
  writeFileSync(profile, `function prompt { '@P@ ' }\n${hook ? `. '${HOOKS}/sivtr.ps1'\n` : ''}`);
  return ['pwsh', ['-NoLogo', '-NoProfile', '-NoExit', '-Command', `. '${profile}'`], {}];
}

async function drive(kind, hook, prompts, onReady) {
  const home = tmp();
  const [file, args, extra] = shellArgs(kind, home, hook);
  const p = pty.spawn(file, args, { cols: 100, rows: 30, cwd: home, env: { ...env(home), ...extra }, encoding: null });
  let seen = 0;
  let waiting;
  p.onData((d) => {
    const s = d.toString();
    if (s.includes('\x1b[6n')) p.write('\x1b[1;1R');
    for (let i = s.indexOf('@P@ '); i >= 0; i = s.indexOf('@P@ ', i + 1)) seen++;
    if (waiting && seen >= waiting.n) { const w = waiting; waiting = undefined; w.resolve(); }
  });
  const until = (n) => new Promise((r) => { if (seen >= n) r(); else waiting = { n, resolve: r }; });
  const exited = new Promise((r) => p.onExit(r));
  await until(1);
  const extraInfo = onReady ? await onReady(p.pid) : undefined;
  const start = process.hrtime.bigint();
  for (let i = 0; i < prompts; i++) {
    const before = seen;
    p.write(':\r');
    await until(before + 1);
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const result = extraInfo ? await extraInfo() : undefined;
  p.write('exit\r');
  await exited;
  rmSync(home, { recursive: true, force: true });
  return { ms, result };
}

async function forks(kind) {
  const out = join(tmp(), 'trace');
  const { result } = await drive(kind, true, 200, async (pid) => {
    const st = spawn('strace', ['-f', '-e', 'trace=fork,vfork,clone,clone3', '-o', out, '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
    await new Promise((r) => st.stderr.on('data', (d) => d.toString().includes('attached') && r()));
    return async () => {
      const done = new Promise((r) => st.on('exit', r));
      st.kill('SIGINT');
      await done;
      return readFileSync(out, 'utf8').split('\n').filter((l) => /\b(clone3?|v?fork)\(/.test(l)).length;
    };
  });
  return result;
}

const report = [];
const only = process.argv.slice(2);
for (const kind of ['bash', 'zsh', 'pwsh'].filter((k) => only.length === 0 || only.includes(k))) {
  if (!have(kind)) {
    report.push(`${kind}: not installed, skipped`);
    continue;
  }
  const withHook = [];
  const without = [];
  for (let i = 0; i < RUNS; i++) {
    without.push(inShell(kind, false));
    withHook.push(inShell(kind, true));
  }
  const loopCost = (median(withHook) - median(without)) / 1000; // ms per prompt
  const n = kind === 'pwsh' ? 200 : 1000;
  const e2eWith = [];
  const e2eWithout = [];
  for (let i = 0; i < RUNS; i++) {
    e2eWithout.push((await drive(kind, false, n)).ms);
    e2eWith.push((await drive(kind, true, n)).ms);
  }
  const e2e = (median(e2eWith) - median(e2eWithout)) / n;
  const forkCount = kind !== 'pwsh' && have('strace') ? await forks(kind) : 'n/a';
  report.push(
    `${kind}: hook ${loopCost.toFixed(3)} ms/prompt in-shell (1000 hook runs, each one JSONL line; median of ${RUNS}); ` +
      `end to end ${(median(e2eWith) / n).toFixed(3)} vs ${(median(e2eWithout) / n).toFixed(3)} ms/prompt with/without (+${e2e.toFixed(3)} ms, ${n} prompts, ratio ${(median(e2eWith) / median(e2eWithout)).toFixed(2)}×); ` +
      `forks during 200 prompts: ${forkCount}`,
  );
  process.stdout.write(report.at(-1) + '\n');
}
