// `sivtr init --auto-start` in real bash, zsh and pwsh started the way a terminal starts them. The rc
// exits only when the recorder ran the shell to its end; whatever else goes wrong (the launcher gone,
// no node, a crashed or killed recorder) the user gets a working shell and one line saying why.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLog } from '../../src/session/log.js';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { have, SENTINEL, ShellSession, type Kind } from './harness.js';

const SHELLS: Kind[] = ['bash', 'zsh', 'pwsh'];
/** Deadlock guards: pwsh started twice (outside and under the recorder) is slow on a busy machine. */
const SLOW = 60_000;

type Home = { path: string; bin: string; rc: string; env: Record<string, string>; cleanup: () => void };

/** A user whose `sivtr` is on PATH (a symlink, as `npm install -g` makes) and who ran `sivtr init KIND --auto-start`. */
function autoStartHome(kind: Kind, launcherTarget = BIN): Home {
  const tmp = tempDir(`sivtr-auto-${kind}-`);
  const bin = join(tmp.path, 'bin');
  mkdirSync(bin);
  symlinkSync(launcherTarget, join(bin, 'sivtr'));
  const path = `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`;
  const env: Record<string, string> = { PATH: path, XDG_CONFIG_HOME: join(tmp.path, '.config') };
  let rc: string;
  if (kind === 'bash') {
    rc = join(tmp.path, '.bashrc');
    writeFileSync(rc, `PS1='${SENTINEL}$ '\nHISTFILE=/dev/null\n`);
  } else if (kind === 'zsh') {
    env.ZDOTDIR = join(tmp.path, 'zconf');
    mkdirSync(env.ZDOTDIR);
    rc = join(env.ZDOTDIR, '.zshrc');
    writeFileSync(rc, `PS1='${SENTINEL}%# '\nHISTFILE=/dev/null\nunsetopt BEEP\n`);
  } else {
    rc = join(tmp.path, '.config', 'powershell', 'Microsoft.PowerShell_profile.ps1');
    mkdirSync(join(tmp.path, '.config', 'powershell'), { recursive: true });
    writeFileSync(rc, `function prompt { '${SENTINEL}> ' }\n`);
  }
  const init = runCli(['init', kind, '--auto-start'], { env: cleanEnv(tmp.path, { ...env, SIVTR_DATA_DIR: join(tmp.path, 'data') }) });
  expect(init.code).toBe(0);
  return { path: tmp.path, bin: join(bin, 'sivtr'), rc, env, cleanup: tmp.cleanup };
}

/** A new terminal: the shell as a terminal emulator starts it, interactive, reading the user's rc. */
function newTerminal(kind: Kind, home: Home, env: Record<string, string> = {}): ShellSession {
  const command = kind === 'bash' ? { file: 'bash', args: ['-i'] } : kind === 'zsh' ? { file: 'zsh', args: ['-i'] } : { file: 'pwsh', args: ['-NoLogo'] };
  return new ShellSession({ kind, home: home.path, mode: 'hooks', command, env: { ...home.env, ...env } });
}

const arithmetic: Record<Kind, string> = { bash: 'echo "alive-$((6*7))"', zsh: 'echo "alive-$((6*7))"', pwsh: '"alive-$(6*7)"' };
// The recorder names the terminal `<random hex>-<its own pid>-<second>` (the pwsh global tool's
// shim sits between them).
const pids: Record<Kind, string> = {
  bash: 't=${SIVTR_TERMINAL_ID#*-}; echo "recorder=${t%%-*} shell=$$"',
  zsh: 't=${SIVTR_TERMINAL_ID#*-}; echo "recorder=${t%%-*} shell=$$"',
  pwsh: '"recorder=$(($env:SIVTR_TERMINAL_ID -split \'-\')[1]) shell=$PID"',
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until `done` holds; fails after `ms` (a deadlock guard, not a timing assertion). */
async function until(done: () => boolean, what: string, ms = SLOW): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The lines of terminal output that mention sivtr, from the word on. */
function sivtrLines(text: string): string[] {
  return text
    .split(/\r*\n/)
    .filter((l) => l.includes('sivtr'))
    .map((l) => l.slice(l.indexOf('sivtr')));
}

/**
 * Before typing at the first pwsh prompt after the recorder: .NET and PSReadLine ask the terminal
 * where the cursor is (DSR) while they take the terminal back, and keys typed meanwhile get mixed
 * into the answers. An empty line first, then a prompt whose question was answered.
 */
async function promptSettled(s: ShellSession): Promise<void> {
  if (s.options.kind !== 'pwsh') return;
  await s.run('');
  await s.waitFor((t) => t.slice(t.lastIndexOf(SENTINEL)).includes('\x1b[6n'), 'PSReadLine at the prompt', SLOW);
}

/** The fallback: one line says why, and the plain shell answers a command. */
async function expectPlainShell(s: ShellSession, why: RegExp): Promise<void> {
  await s.waitFor((t) => s.prompts(t) >= 1, 'the first prompt', SLOW);
  const lines = sivtrLines(s.text);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/sivtr: recording is off in this shell \(/);
  expect(lines[0]).toMatch(why);
  expect(lines[0]).toMatch(/reinstall sivtr and run 'sivtr init \w+ --auto-start', or delete the sivtr auto-start block from \//);
  expect(s.text).not.toContain('133;B;sivtr=');
  await promptSettled(s);
  const at = s.text.length;
  await s.run(arithmetic[s.options.kind]);
  expect(s.text.slice(at)).toMatch(/alive-42\r*\n/);
}

function leftovers(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.startsWith('sivtr-rc-'));
}

for (const kind of SHELLS) {
  describe.skipIf(!have(kind))(`auto-start in a new ${kind}`, { timeout: 3 * SLOW }, () => {
    it('records with output and exits with the shell\'s code when the recorder ran it to its end', async () => {
      const home = autoStartHome(kind);
      try {
        expect(readFileSync(home.rc, 'utf8')).toContain(`'${home.bin}'`); // the launcher on PATH, not this checkout's file
        const s = newTerminal(kind, home, { TMPDIR: home.path });
        await s.waitFor((t) => t.includes('133;B;sivtr='), 'a recorded prompt', SLOW);
        await s.ready();
        await s.run('echo first');
        await s.run('echo second');
        await s.run('echo third');
        expect(await s.exit('exit 7')).toBe(7);
        expect(leftovers(home.path)).toEqual([]);
        const env = cleanEnv(home.path, { SIVTR_DATA_DIR: join(home.path, 'data') });
        expect(runCli(['copy', 'out', '2', '--print'], { env }).stdout).toBe('second\n');
      } finally {
        home.cleanup();
      }
    });

    it('carries on as a plain shell when the launcher is gone', async () => {
      const home = autoStartHome(kind);
      try {
        rmSync(home.bin);
        const s = newTerminal(kind, home);
        await expectPlainShell(s, new RegExp(`\\(${home.bin.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is gone\\)`));
        expect(await s.exit()).toBe(0);
      } finally {
        home.cleanup();
      }
    });

    it('carries on as a plain shell when node is gone', async () => {
      const home = autoStartHome(kind);
      try {
        // node uninstalled: the one `init` saw is gone, and none is on PATH.
        writeFileSync(home.rc, readFileSync(home.rc, 'utf8').split(`'${process.execPath}'`).join(`'${join(home.path, 'gone', 'node')}'`));
        const sys = join(home.path, 'sys');
        mkdirSync(sys);
        for (const tool of [kind, 'dotnet', 'rm', 'mkdir', 'stty']) {
          const found = process.env.PATH!.split(':').map((d) => join(d, tool)).find((p) => have(p));
          if (found) symlinkSync(found, join(sys, tool));
        }
        const s = newTerminal(kind, home, { PATH: `${join(home.path, 'bin')}:${sys}` });
        await expectPlainShell(s, /\(node is not on PATH\)/);
        expect(await s.exit()).toBe(0);
      } finally {
        home.cleanup();
      }
    });

    it('carries on as a plain shell when the recorder crashes (its bundle is gone)', async () => {
      const tmp = tempDir('sivtr-auto-broken-');
      try {
        // An installation whose dist/ was cleaned away: the launcher is there, requiring it throws.
        mkdirSync(join(tmp.path, 'bin'));
        copyFileSync(BIN, join(tmp.path, 'bin', 'sivtr.js'));
        copyFileSync(join(ROOT, 'bin', 'package.json'), join(tmp.path, 'bin', 'package.json'));
        const home = autoStartHome(kind, join(tmp.path, 'bin', 'sivtr.js'));
        try {
          const s = newTerminal(kind, home, { TMPDIR: home.path });
          await expectPlainShell(s, /\(Error: Cannot find module '.*dist\/sivtr\.cjs'\)/);
          expect(leftovers(home.path)).toEqual([]);
          expect(await s.exit()).toBe(0);
        } finally {
          home.cleanup();
        }
      } finally {
        tmp.cleanup();
      }
    });

    // SIGTERM is the recorder told to stop (it ends the shell it runs); SIGKILL leaves it no say.
    const signals: [NodeJS.Signals, number][] = kind === 'bash' ? [['SIGKILL', 137], ['SIGTERM', 143]] : [['SIGKILL', 137]];
    it.each(signals)('carries on as a plain shell when the recorder is killed (%s)', async (signal, code) => {
      const home = autoStartHome(kind);
      try {
        const s = newTerminal(kind, home, { TMPDIR: home.path });
        await s.waitFor((t) => t.includes('133;B;sivtr='), 'a recorded prompt', SLOW);
        await s.ready();
        await s.run(pids[kind]);
        const [, recorder, shell] = /recorder=(\d+) shell=(\d+)\r*\n/.exec(s.text)!.map(Number);
        const at = s.text.length;
        process.kill(recorder!, signal);
        await s.waitFor((t) => new RegExp(`recording is off[^\\n]*\\n[\\s\\S]*${SENTINEL}`).test(t.slice(at)), 'the fallback line and a plain prompt', SLOW);
        expect(sivtrLines(s.text.slice(at))).toEqual([expect.stringMatching(new RegExp(`^sivtr: recording is off in this shell \\(the recorder stopped, exit code ${code}\\)`))]);
        await until(() => !alive(shell!), 'the recorded shell to end with its recorder');
        await promptSettled(s);
        const mark = s.text.length;
        await s.run(arithmetic[kind]);
        expect(s.text.slice(mark)).toMatch(/alive-42\r*\n/);
        expect(leftovers(home.path)).toEqual([]);
        expect(await s.exit()).toBe(0);
        // The plain shell goes on recording in hooks-only mode.
        const dir = join(home.path, 'data', 'terminals');
        const commands = readdirSync(dir).filter((n) => n.endsWith('.jsonl')).flatMap((n) => loadLog(join(dir, n)).entries.map((e) => e.command));
        expect(commands).toContain(arithmetic[kind]);
      } finally {
        home.cleanup();
      }
    });
  });
}
