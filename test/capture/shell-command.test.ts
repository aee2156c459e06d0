// `sivtr shell` end to end: the real CLI on a PTY, the user's rc files in a temp HOME, the log it
// writes read back by `sivtr copy`, exit codes, nesting, hang-up and fail-open.
import { readdirSync, writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLog } from '../../src/session/log.js';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { have, HOOKS, ShellSession, type Kind } from './harness.js';

function sivtrShell(kind: Kind, home: string, env: Record<string, string> = {}): ShellSession {
  return new ShellSession({ kind, home, mode: 'proxy', command: { file: process.execPath, args: [BIN, 'shell', kind] }, env });
}

// Sessions a failed assertion left running (the old recorder ignored SIGTERM and kept its shell).
const cleanups: (() => unknown)[] = [];
async function runCleanups(): Promise<void> {
  for (const fn of cleanups.splice(0)) await fn();
}
function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function logs(home: string): string[] {
  const dir = join(home, 'data', 'terminals');
  return readdirSync(dir).filter((n) => n.endsWith('.jsonl')).map((n) => join(dir, n));
}

describe.skipIf(!have('bash'))('sivtr shell bash', () => {
  it('records real output that `sivtr copy out 2` returns exactly; exit code is the shell\'s', async () => {
    const tmp = tempDir('sivtr-shell-');
    try {
      // The user's rc already loads the hooks (sivtr init): loading them twice must not double entries.
      writeFileSync(join(tmp.path, '.bashrc'), `PS1='\\u$ '\nHISTFILE=/dev/null\n. ${HOOKS}/sivtr.bash\n`);
      const s = sivtrShell('bash', tmp.path);
      await s.ready();
      await s.run(`printf 'first\\n\\033[1mbold\\033[0m\\tTAB\\n'`);
      await s.run(`printf 'progress 10%%\\rprogress 100%%\\n'`);
      await s.run('echo last');
      expect(await s.exit('exit 5')).toBe(5);
      const [log] = logs(tmp.path);
      expect(log).toMatch(/\/[0-9a-f]{8}-\d+-\d{10}\.jsonl$/);
      const entries = loadLog(log!).entries;
      expect(entries.map((e) => e.output)).toEqual(['first\nbold\tTAB', 'progress 100%', 'last']);
      const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
      const copied = runCli(['copy', 'out', '2', '--print'], { env });
      expect(copied.code).toBe(0);
      expect(copied.stdout.replace(/\n$/, '')).toBe('progress 100%');
      const first = runCli(['copy', 'out', '3', '--print'], { env });
      expect(first.stdout.replace(/\n$/, '')).toBe('first\nbold\tTAB');
    } finally {
      tmp.cleanup();
    }
  });

  it('records the same with the recorder inline instead of in a worker thread (SIVTR_RECORDER_INLINE=1)', async () => {
    const tmp = tempDir('sivtr-shell-inline-');
    try {
      writeFileSync(join(tmp.path, '.bashrc'), `PS1='\\u$ '\nHISTFILE=/dev/null\n`);
      const s = sivtrShell('bash', tmp.path, { SIVTR_RECORDER_INLINE: '1' });
      await s.ready();
      await s.run(`printf 'progress 10%%\\rprogress 100%%\\n'`);
      await s.run('seq 1 100000');
      await s.run('echo last');
      expect(await s.exit('exit 6')).toBe(6);
      const entries = loadLog(logs(tmp.path)[0]!).entries;
      expect(entries.map((e) => e.command)).toEqual([`printf 'progress 10%%\\rprogress 100%%\\n'`, 'seq 1 100000', 'echo last']);
      expect(entries[0]!.output).toBe('progress 100%');
      expect(entries[1]!.output.startsWith('1\n2\n')).toBe(true);
      expect(entries[1]!.output.endsWith('99999\n100000')).toBe(true);
      expect(entries[2]!.output).toBe('last');
    } finally {
      tmp.cleanup();
    }
  });

  it('#41 refuses to nest inside itself; no duplicate entries', async () => {
    const tmp = tempDir('sivtr-shell-nest-');
    try {
      writeFileSync(join(tmp.path, '.bashrc'), `PS1='\\u$ '\nHISTFILE=/dev/null\n`);
      const s = sivtrShell('bash', tmp.path);
      await s.ready();
      await s.run(`${process.execPath} ${BIN} shell bash`);
      await s.run('echo after');
      await s.exit();
      const entries = loadLog(logs(tmp.path)[0]!).entries;
      expect(entries).toHaveLength(2);
      expect(entries[0]!.output).toMatch(/already recorded by `sivtr shell`/);
      expect(entries[0]!.exit_code).toBe(1);
      expect(entries[1]!.output).toBe('after');
    } finally {
      tmp.cleanup();
    }
  });

  it('#21 a hang-up mid-command keeps the partial output', async () => {
    const tmp = tempDir('sivtr-shell-hup-');
    try {
      writeFileSync(join(tmp.path, '.bashrc'), `PS1='\\u$ '\nHISTFILE=/dev/null\n`);
      const s = sivtrShell('bash', tmp.path);
      await s.ready();
      await s.run('echo before');
      const at = s.text.length;
      s.write(`sh -c 'echo partial-output; exec sleep 30'\r`);
      await s.waitFor((t) => t.slice(at).includes('partial-output\r'), 'the partial output');
      const code = await s.kill('SIGHUP');
      expect(code).toBeGreaterThanOrEqual(128);
      const entries = loadLog(logs(tmp.path)[0]!).entries;
      expect(entries.map((e) => e.command)).toEqual(['echo before', `sh -c 'echo partial-output; exec sleep 30'`]);
      expect(entries[1]!.output).toBe('partial-output');
      expect(entries[1]!.exit_code).toBeUndefined();
    } finally {
      tmp.cleanup();
    }
  });

  it('SIGTERM ends it as a hang-up does: what was recorded is kept, the terminal restored, exit 143', async () => {
    const tmp = tempDir('sivtr-shell-term-');
    try {
      writeFileSync(join(tmp.path, '.bashrc'), `PS1='\\u$ '\nHISTFILE=/dev/null\n`);
      // A plain sh owns the terminal and starts the recorder, as a login shell would; once the
      // recorder ends it prints the exit code and the terminal's modes.
      const script = `'${process.execPath}' '${BIN}' shell bash; echo "recorder-exit=$?"; stty -a; exec sleep 30`;
      const s = new ShellSession({ kind: 'bash', home: tmp.path, mode: 'proxy', command: { file: 'sh', args: ['-c', script] } });
      cleanups.push(() => s.kill());
      await s.ready();
      // The shell's parent is the wrapper that holds the terminal (docs/capture.md); the recorder is its parent.
      await s.run('echo "recorder=$(ps -o ppid= -p $PPID)"');
      const recorder = Number(/recorder= *(\d+)/.exec(s.text)![1]);
      cleanups.push(() => killQuietly(recorder));
      const at = s.text.length;
      s.write(`sh -c 'echo partial-output; exec sleep 30'\r`);
      await s.waitFor((t) => t.slice(at).includes('partial-output\r'), 'the partial output');
      process.kill(recorder, 'SIGTERM');
      await s.waitFor((t) => /recorder-exit=\d+[\s\S]*\brows\b[\s\S]*\bicanon\b/.test(t.slice(at)), 'the recorder to end');
      const after = s.text.slice(s.text.indexOf('recorder-exit='));
      expect(after).toMatch(/^recorder-exit=143\r?\n/);
      expect(after).toMatch(/(^|\s)icanon(\s|$)/m); // raw mode undone
      expect(after).toMatch(/(^|\s)echo(\s|$)/m);
      const entries = loadLog(logs(tmp.path)[0]!).entries;
      expect(entries.map((e) => e.command)).toEqual(['echo "recorder=$(ps -o ppid= -p $PPID)"', `sh -c 'echo partial-output; exec sleep 30'`]);
      expect(entries[1]!.output).toBe('partial-output');
    } finally {
      await runCleanups();
      tmp.cleanup();
    }
  });

  it('without a terminal says so in one line and exits 2 at once: no hang, no markers on stdout', () => {
    const tmp = tempDir('sivtr-shell-pipe-');
    try {
      const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
      // spawnSync's timeout is only a deadlock guard: the old recorder waited here forever.
      const piped = spawnSync(process.execPath, [BIN, 'shell', 'bash'], { env, cwd: tmp.path, input: 'echo hi\n', encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
      expect(piped.status).toBe(2);
      expect(piped.stdout).toBe('');
      expect(piped.stderr).toBe('sivtr: sivtr shell needs a terminal, and its stdin is not one — run it in a terminal; to keep the output of one command, use `sivtr run CMD`\n');
    } finally {
      tmp.cleanup();
    }
  });

  it('with stdout redirected to a file says so on the terminal and writes no marker into the file', async () => {
    const tmp = tempDir('sivtr-shell-redirect-');
    try {
      const out = join(tmp.path, 'out.txt');
      const script = `'${process.execPath}' '${BIN}' shell bash > '${out}'; echo "recorder-exit=$?"`;
      const s = new ShellSession({ kind: 'bash', home: tmp.path, mode: 'hooks', promptNeedle: 'recorder-exit=', command: { file: 'sh', args: ['-c', script] } });
      cleanups.push(() => s.kill());
      await s.ready();
      expect(s.text).toContain('its stdout is not one');
      expect(s.text).toContain('recorder-exit=2');
      expect(readFileSync(out, 'utf8')).toBe('');
    } finally {
      await runCleanups();
      tmp.cleanup();
    }
  });

  it('#40 on TERM=linux the terminal never sees our markers; the log still gets the entries', async () => {
    const tmp = tempDir('sivtr-shell-linux-');
    try {
      writeFileSync(join(tmp.path, '.bashrc'), `PS1='LX$ '\nHISTFILE=/dev/null\n`);
      const s = new ShellSession({ kind: 'bash', home: tmp.path, mode: 'hooks', promptNeedle: 'LX$ ', command: { file: process.execPath, args: [BIN, 'shell', 'bash'] }, env: { TERM: 'linux' } });
      await s.ready();
      await s.run('echo on-the-console');
      await s.exit();
      expect(s.text).not.toMatch(/\x1b\](?:133|633);/);
      expect(loadLog(logs(tmp.path)[0]!).entries.map((e) => e.output)).toEqual(['on-the-console']);
    } finally {
      tmp.cleanup();
    }
  });

  it('#38 #39 fail-open: an unusable data dir still gives a working shell', async () => {
    const tmp = tempDir('sivtr-shell-failopen-');
    try {
      writeFileSync(join(tmp.path, '.bashrc'), `PS1='\\u$ '\nHISTFILE=/dev/null\n`);
      writeFileSync(join(tmp.path, 'not-a-dir'), 'x');
      const s = new ShellSession({
        kind: 'bash',
        home: tmp.path,
        mode: 'hooks',
        command: { file: process.execPath, args: [BIN, 'shell', 'bash'] },
        env: { SIVTR_DATA_DIR: join(tmp.path, 'not-a-dir', 'data') },
      });
      await s.waitFor((t) => t.includes('running without it'), 'the warning');
      s.write('echo still-$((6*7))\r');
      await s.waitFor((t) => t.includes('still-42'), 'the command output');
      expect(await s.exit('exit 3')).toBe(3);
    } finally {
      tmp.cleanup();
    }
  });
});

describe.skipIf(!have('zsh'))('sivtr shell zsh', () => {
  it('loads the user\'s ZDOTDIR .zshrc first, then the hooks, and records', async () => {
    const tmp = tempDir('sivtr-shell-zsh-');
    try {
      const zdot = join(tmp.path, 'zconf');
      mkdirSync(zdot);
      writeFileSync(join(zdot, '.zshenv'), 'export FROM_ZSHENV=yes\n');
      writeFileSync(join(zdot, '.zshrc'), `PS1='%n%# '\nHISTFILE=/dev/null\nalias hello='echo hello-from-zshrc'\n`);
      const s = sivtrShell('zsh', tmp.path, { ZDOTDIR: zdot });
      await s.ready();
      await s.run('hello');
      await s.run('echo "$FROM_ZSHENV $ZDOTDIR"');
      await s.run('printf nonl');
      expect(await s.exit()).toBe(0);
      const entries = loadLog(logs(tmp.path)[0]!).entries;
      expect(entries.map((e) => [e.command, e.output])).toEqual([
        ['hello', 'hello-from-zshrc'],
        ['echo "$FROM_ZSHENV $ZDOTDIR"', `yes ${zdot}`],
        ['printf nonl', 'nonl'],
      ]);
      expect(readFileSync(logs(tmp.path)[0]!, 'utf8')).not.toContain('133;');
    } finally {
      tmp.cleanup();
    }
  });
});
