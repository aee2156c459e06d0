// Runs a program in a real PTY and keeps a headless xterm fed with everything it writes, so a
// test reads the screen as a person would see it (and the raw bytes, for escape sequences).
// Waits are on what the screen shows, never on sleeps.
import * as pty from 'node-pty';
import xterm from '@xterm/headless';

const { Terminal } = xterm;

export type ScreenOptions = { cols?: number; rows?: number; env: NodeJS.ProcessEnv; cwd?: string };

export class PtyScreen {
  readonly term: InstanceType<typeof Terminal>;
  readonly child: pty.IPty;
  raw = '';
  exitCode: number | undefined;
  signal: number | undefined;
  private readonly exited: Promise<number>;
  private waiters: (() => void)[] = [];
  private pending = Promise.resolve();

  constructor(file: string, args: string[], opts: ScreenOptions) {
    const cols = opts.cols ?? 80;
    const rows = opts.rows ?? 24;
    this.term = new Terminal({ cols, rows, allowProposedApi: true });
    this.child = pty.spawn(file, args, { cols, rows, env: opts.env as Record<string, string>, cwd: opts.cwd ?? opts.env.HOME, name: 'xterm-256color' });
    this.child.onData((d) => {
      this.raw += d;
      // xterm parses asynchronously: a waiter looks at the screen once this chunk is in.
      this.pending = new Promise<void>((resolve) => this.term.write(d, resolve)).then(() => this.wake());
    });
    // The terminal's answers (cursor position reports that pwsh and PSReadLine ask for) go back, as from a real one.
    this.term.onData((d) => {
      if (this.exitCode === undefined) this.child.write(d);
    });
    this.exited = new Promise((resolve) =>
      this.child.onExit((e) => {
        this.exitCode = e.exitCode;
        this.signal = e.signal;
        void this.pending.then(() => {
          this.wake();
          resolve(e.exitCode);
        });
      }),
    );
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** The visible screen, one string per row, trailing spaces cut. */
  lines(): string[] {
    const buf = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++) out.push((buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '').trimEnd());
    return out;
  }

  text(): string {
    return this.lines().join('\n');
  }

  /**
   * Inside a synchronized update (ESC[?2026h … ESC[?2026l, which Ink wraps around each frame): the
   * screen is half redrawn, as a terminal that honours the mode would never show it.
   */
  midFrame(): boolean {
    return this.raw.lastIndexOf('\x1b[?2026h') > this.raw.lastIndexOf('\x1b[?2026l');
  }

  /** Whether the alternate screen is the one shown. */
  onAltScreen(): boolean {
    return this.term.buffer.active.type === 'alternate';
  }

  /** Resolves when `test` holds for the screen (checked after every write); rejects after `ms` with the screen. */
  async until(test: (screen: PtyScreen) => boolean, what: string, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      await this.pending;
      if (!this.midFrame() && test(this)) return;
      if (this.exitCode !== undefined) throw new Error(`exited (${this.exitCode}) before ${what}; screen:\n${this.text()}\nraw tail: ${JSON.stringify(this.raw.slice(-400))}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; screen:\n${this.text()}\nraw tail: ${JSON.stringify(this.raw.slice(-1500))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  untilText(needle: string | RegExp, ms?: number): Promise<void> {
    return this.until((s) => (typeof needle === 'string' ? s.text().includes(needle) : needle.test(s.text())), `screen to show ${needle}`, ms);
  }

  write(data: string): void {
    this.child.write(data);
  }

  /** Writes, then waits until the screen shows `needle`. */
  async type(data: string, needle: string | RegExp): Promise<void> {
    this.write(data);
    await this.untilText(needle);
  }

  wait(): Promise<number> {
    return this.exited;
  }

  kill(signal?: string): void {
    try {
      this.child.kill(signal);
    } catch {
      // already gone
    }
  }
}

export const KEY = {
  enter: '\r',
  esc: '\x1b',
  tab: '\t',
  shiftTab: '\x1b[Z',
  up: '\x1b[A',
  down: '\x1b[B',
  pageDown: '\x1b[6~',
  pageUp: '\x1b[5~',
  backspace: '\x7f',
  ctrlC: '\x03',
  ctrlD: '\x04',
  ctrlT: '\x14',
  ctrlU: '\x15',
  ctrlN: '\x0e',
  ctrlP: '\x10',
} as const;
