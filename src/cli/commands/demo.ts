// sivtr demo — a self-contained tour in a temporary data dir: a real bash under the recorder runs a
// few commands, then copy, diff and show run on what it recorded, each as the real CLI in its own
// process, exactly as a user would type them. Without bash or node-pty it tours a bundled recording.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { styles, useColor } from '../output.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { tryLoadPty } from '../../capture/pty.js';

export const spec: CommandSpec = {
  name: 'demo',
  usage: '',
  describe: 'a tour of sivtr on a recorded session, in a temporary data dir',
  flags: { keep: { type: 'boolean', describe: 'keep the temporary data dir and print its path' } },
};

/** The package root, whether this runs from dist/ or from src/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function step(root: string, env: NodeJS.ProcessEnv, args: string[], why: string): number {
  const line = `$ sivtr ${args.join(' ')}`;
  const shown = styles(useColor(undefined)).bold(line);
  process.stdout.write(`\n${shown}   # ${why}\n`);
  const result = spawnSync(process.execPath, [join(root, 'bin', 'sivtr.js'), ...args], { env, stdio: 'inherit' });
  return result.status ?? 1;
}

const LIVE_COMMANDS = ['cat greeting.txt', './check.sh', 'NAME=Ada ./check.sh'];

/**
 * Runs a real bash under `sivtr shell` on a PTY, types LIVE_COMMANDS, and leaves its log in
 * `<data>/terminals`. The user sees the session as it happens. Says why when it cannot run here.
 */
async function recordLiveSession(root: string, data: string, env: NodeJS.ProcessEnv): Promise<{ ok: true } | { ok: false; why: string }> {
  const unavailable = { ok: false, why: 'bash or node-pty is not available here' } as const;
  const pty = await tryLoadPty();
  if (!pty) return unavailable;
  const home = join(data, 'home');
  const work = join(data, 'app');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(join(home, '.bashrc'), "PS1='\\[\\e[32m\\]demo\\[\\e[0m\\]:\\W$ '\nHISTFILE=/dev/null\n");
  writeFileSync(join(work, 'greeting.txt'), 'Hello from sivtr!\nEvery command you run becomes memory you can reuse.\n');
  writeFileSync(
    join(work, 'check.sh'),
    [
      '#!/bin/sh',
      "printf 'running 1/3\\rrunning 2/3\\rrunning 3/3\\n'",
      "printf '\\033[32m✔\\033[0m parses config\\n'",
      'if [ "$NAME" = Ada ]; then',
      "  printf '\\033[32m✔\\033[0m greets the user\\n'; echo 'pass 2, fail 0'",
      'else',
      "  printf '\\033[31m✖\\033[0m greets the user\\n  expected: Hello, Ada\\n  actual:   Hello, \\n'; echo 'pass 1, fail 1'; exit 1",
      'fi',
      '',
    ].join('\n'),
  );
  chmodSync(join(work, 'check.sh'), 0o755);
  const shellEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...env, HOME: home, SHELL: 'bash' })) if (v !== undefined) shellEnv[k] = v;
  let child: import('node-pty').IPty;
  try {
    child = pty.spawn(process.execPath, [join(root, 'bin', 'sivtr.js'), 'shell', 'bash'], {
      name: 'xterm-256color',
      cols: process.stdout.columns || 100,
      rows: process.stdout.rows || 30,
      cwd: work,
      env: shellEnv,
      encoding: null,
    } as import('node-pty').IPtyForkOptions);
  } catch {
    return unavailable;
  }
  const live = process.stdout.isTTY === true;
  // Each prompt carries the recorder's B marker; count them, also when one is split across reads.
  const needle = '133;B;sivtr=';
  let carry = '';
  let prompts = 0;
  let wake: (() => void) | undefined;
  child.onData((buf: Buffer | string) => {
    if (live) process.stdout.write(buf);
    const scan = carry + buf.toString();
    for (let i = scan.indexOf(needle); i >= 0; i = scan.indexOf(needle, i + needle.length)) prompts++;
    carry = scan.slice(-(needle.length - 1));
    wake?.();
  });
  const exited = new Promise<number>((resolve) => child.onExit(({ exitCode }) => resolve(exitCode)));
  const prompt = (n: number): Promise<boolean> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), 15_000);
      const check = (): void => {
        if (prompts >= n) {
          clearTimeout(timer);
          wake = undefined;
          resolve(true);
        } else wake = check;
      };
      check();
    });
  let ok = await prompt(1);
  for (let i = 0; ok && i < LIVE_COMMANDS.length; i++) {
    if (!live) process.stdout.write(`demo:app$ ${LIVE_COMMANDS[i]}\n`);
    child.write(LIVE_COMMANDS[i] + '\r');
    ok = await prompt(i + 2);
  }
  child.write('exit\r');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
  if (live) process.stdout.write('\n');
  return ok ? { ok: true } : { ok: false, why: 'the live bash session did not answer in time' };
}

export async function run(args: ParsedArgs): Promise<number> {
  const root = packageRoot();
  const data = mkdtempSync(join(tmpdir(), 'sivtr-demo-'));
  try {
    mkdirSync(join(data, 'terminals'), { recursive: true, mode: 0o700 });
    const env: NodeJS.ProcessEnv = { ...process.env, SIVTR_DATA_DIR: data, SIVTR_CLIPBOARD: 'none' };
    delete env.SIVTR_SESSION_LOG;
    delete env.SIVTR_TERMINAL_ID;
    delete env.SIVTR_PTY_PROXY;
    delete env.SIVTR_NONCE;
    // The kill switch turns `sivtr shell` into a plain passthrough with no markers: a live session
    // would wait for prompts that never come. Say so at once and tour the bundled recording.
    let live: Awaited<ReturnType<typeof recordLiveSession>>;
    if (process.env.SIVTR_DISABLE) {
      live = { ok: false, why: 'recording is disabled (SIVTR_DISABLE is set; unset it for a live session)' };
    } else {
      process.stdout.write(`sivtr demo — recording a live bash session in ${data}\n`);
      live = await recordLiveSession(root, data, env);
    }
    if (!live.ok) {
      process.stdout.write(`sivtr demo — ${live.why}: touring a bundled recording instead\n`);
      copyFileSync(join(root, 'fixtures', 'demo', 'terminal.jsonl'), join(data, 'terminals', 'demo.jsonl'));
    }
    // Agent transcripts are read in place from the bundled fixtures, never modified.
    env.CLAUDE_CONFIG_DIR = join(root, 'fixtures', 'agents', 'claude');
    const steps: [string[], string][] = [
      [['copy', 'out', '2', '--print'], 'the output before the last one'],
      [['diff', '1', '2'], 'what changed between the last two outputs'],
      [['show', 'terminal/current/2'], 'one record by its exact ref'],
      [['show', 'claude/7f3e0c2a/1'], 'a Claude Code turn, block by block, by the same kind of ref'],
    ];
    for (const [argv, why] of steps) {
      const code = step(root, env, argv, why);
      if (code !== 0) return code;
    }
    process.stdout.write('\nRecord your own terminal: `sivtr init bash` (or zsh, pwsh), then open a new terminal.\n');
    return 0;
  } finally {
    if (args.keep) process.stdout.write(`(kept ${data})\n`);
    else rmSync(data, { recursive: true, force: true });
  }
}
