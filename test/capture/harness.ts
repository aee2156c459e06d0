// Drives a real bash, zsh or pwsh through node-pty with deterministic rc files, in a temp HOME.
// Synchronisation is on what the shell prints (our markers, or a sentinel prompt), never on sleeps.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { spawnSync } from 'node:child_process';
import * as pty from 'node-pty';
import { Recorder } from '../../src/capture/recorder.js';
import type { SessionEntry } from '../../src/session/entry.js';
import { ROOT } from '../helpers/cli.js';

export const HOOKS = join(ROOT, 'shell-hooks');
export const NONCE = '0123456789abcdef0123456789abcdef';
/** The prompt in hooks-only sessions: a sentinel that typed commands never contain. */
export const SENTINEL = '@P@';

// The PowerShell global tool lands in ~/.dotnet/tools (docs/capture.md); CI puts it on PATH, and so do we.
const dotnetTools = join(homedir(), '.dotnet', 'tools');
if (existsSync(join(dotnetTools, 'pwsh')) && !(process.env.PATH ?? '').split(':').includes(dotnetTools)) {
  process.env.PATH = `${dotnetTools}:${process.env.PATH ?? ''}`;
}

export function have(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).status === 0;
}

export type Kind = 'bash' | 'zsh' | 'pwsh';

export type SessionOptions = {
  kind: Kind;
  home: string;
  mode: 'proxy' | 'hooks';
  /** rc lines before the hooks are sourced */
  before?: string;
  /** rc lines after the hooks are sourced */
  after?: string;
  cols?: number;
  rows?: number;
  env?: Record<string, string>;
  /** Spawn this instead of the shell (e.g. `sivtr shell`), with these args. */
  command?: { file: string; args: string[] };
  /** What marks a new prompt in the output, when the default (our B marker / the sentinel) does not fit. */
  promptNeedle?: string;
};

export class ShellSession {
  readonly chunks: string[] = [];
  readonly entries: SessionEntry[] = [];
  text = '';
  exitCode: number | undefined;
  private readonly pty: pty.IPty;
  private readonly decoder = new StringDecoder('utf8');
  private readonly recorder: Recorder | undefined;
  private waiters: (() => void)[] = [];
  private exited: Promise<number>;

  constructor(readonly options: SessionOptions) {
    const { kind, home, mode } = options;
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      INPUTRC: '/dev/null',
      SIVTR_DATA_DIR: join(home, 'data'),
      ...options.env,
    };
    if (mode === 'proxy' && !options.command) {
      env.SIVTR_PTY_PROXY = '1';
      env.SIVTR_NONCE = NONCE;
      env.SIVTR_TERMINAL_ID = 'test';
      mkdirSync(join(home, 'data', 'terminals'), { recursive: true, mode: 0o700 }); // as `sivtr shell` does
      this.recorder = new Recorder({ nonce: NONCE, write: (e) => this.entries.push(e) });
    }
    const prompt = mode === 'hooks' ? SENTINEL : 'P';
    let file: string;
    let args: string[];
    if (kind === 'bash') {
      const rc = join(home, 'test.bashrc');
      writeFileSync(rc, [`PS1='${prompt}$ '`, 'HISTFILE=/dev/null', "bind 'set enable-bracketed-paste off' 2>/dev/null", options.before ?? '', `. ${HOOKS}/sivtr.bash`, options.after ?? '', ''].join('\n'));
      file = 'bash';
      args = ['--noprofile', '--rcfile', rc, '-i'];
    } else if (kind === 'zsh') {
      const zdot = join(home, 'zdot');
      mkdirSync(zdot, { recursive: true });
      writeFileSync(join(zdot, '.zshrc'), [`PS1='${prompt}%# '`, 'HISTFILE=/dev/null', 'unsetopt BEEP', options.before ?? '', `. ${HOOKS}/sivtr.zsh`, options.after ?? '', ''].join('\n'));
      env.ZDOTDIR = zdot;
      file = 'zsh';
      args = ['-d', '-i'];
    } else {
      const profile = join(home, 'test-profile.ps1');
      writeFileSync(profile, [`function prompt { '${prompt}> ' }`, options.before ?? '', `. '${HOOKS}/sivtr.ps1'`, options.after ?? '', ''].join('\n'));
      file = 'pwsh';
      args = ['-NoLogo', '-NoProfile', '-NoExit', '-Command', `. '${profile}'`];
      // .NET puts its diagnostic sockets and debug pipes in TMPDIR, and a killed pwsh leaves them there.
      env.TMPDIR = home;
    }
    Object.assign(env, options.env); // the caller's choices win (e.g. a user ZDOTDIR)
    if (options.command) {
      file = options.command.file;
      args = options.command.args;
    }
    this.pty = pty.spawn(file, args, { name: env.TERM, cols: options.cols ?? 100, rows: options.rows ?? 30, cwd: home, env, encoding: null } as pty.IPtyForkOptions);
    this.pty.onData((data: Buffer | string) => {
      const text = this.decoder.write(typeof data === 'string' ? Buffer.from(data) : data);
      this.chunks.push(text);
      // .NET asks the terminal where the cursor is (DSR); answer as a terminal would.
      for (let i = text.indexOf('\x1b[6n'); i >= 0; i = text.indexOf('\x1b[6n', i + 1)) this.pty.write('\x1b[1;1R');
      this.text += text;
      this.recorder?.feed(text);
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    });
    this.exited = new Promise((resolve) => {
      this.pty.onExit(({ exitCode, signal }) => {
        this.recorder?.finish();
        this.exitCode = signal ? 128 + signal : exitCode;
        const waiters = this.waiters;
        this.waiters = [];
        for (const w of waiters) w();
        resolve(this.exitCode);
      });
    });
  }

  /** Resolves once `predicate` holds for the output so far; a deadlock guard fails after `ms`. */
  waitFor(predicate: (text: string) => boolean, what: string, ms = 15_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; output tail:\n${JSON.stringify(this.text.slice(-1500))}`)), ms);
      const check = (): void => {
        if (predicate(this.text)) {
          clearTimeout(timer);
          resolve();
        } else if (this.exitCode !== undefined) {
          clearTimeout(timer);
          reject(new Error(`shell exited (${this.exitCode}) while waiting for ${what}; output tail:\n${JSON.stringify(this.text.slice(-1500))}`));
        } else {
          this.waiters.push(check);
        }
      };
      check();
    });
  }

  /** How many prompts have been drawn so far. */
  prompts(text = this.text): number {
    const needle = this.options.promptNeedle ?? (this.options.mode === 'proxy' && !this.options.command ? `133;B;sivtr=${NONCE}` : this.options.mode === 'proxy' ? '133;B;sivtr=' : SENTINEL);
    let n = 0;
    for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) n++;
    return n;
  }

  async ready(): Promise<void> {
    await this.waitFor((t) => this.prompts(t) >= 1, 'the first prompt');
  }

  /** Types `line` + Enter and waits for the next prompt. */
  async run(line: string, opts: { prompts?: number } = {}): Promise<void> {
    if (process.env.SIVTR_TEST_TRACE) process.stderr.write(`[${this.options.kind}] ${line}\n`);
    const before = this.prompts();
    this.pty.write(line + '\r');
    await this.waitFor((t) => this.prompts(t) >= before + (opts.prompts ?? 1), `the prompt after ${JSON.stringify(line)}`);
  }

  /** Ctrl-C at an idle prompt. bash can swallow a ^C that races readline's setup; an Enter then
   *  brings the prompt back (neither makes an entry, which is what the tests check). */
  async interruptPrompt(): Promise<void> {
    const before = this.prompts();
    this.pty.write('\x03');
    try {
      await this.waitFor((t) => this.prompts(t) > before, 'the prompt after Ctrl-C', 3000);
    } catch {
      this.pty.write('\r');
      await this.waitFor((t) => this.prompts(t) > before, 'the prompt after Ctrl-C and Enter');
    }
  }

  write(data: string): void {
    this.pty.write(data);
  }

  resize(cols: number, rows: number): void {
    this.pty.resize(cols, rows);
  }

  async exit(line = 'exit'): Promise<number> {
    this.pty.write(line + '\r');
    await this.waitFor(() => this.exitCode !== undefined, 'the shell to exit').catch((e) => {
      if (this.exitCode === undefined) throw e;
    });
    return this.exited;
  }

  /** Resolves with the exit code once the program on the PTY has ended on its own. */
  ended(): Promise<number> {
    return this.exited;
  }

  kill(signal = 'SIGKILL'): Promise<number> {
    try {
      this.pty.kill(signal);
    } catch {
      // gone
    }
    return this.exited;
  }

  get pid(): number {
    return this.pty.pid;
  }
}
