// `sivtr run CMD` and `CMD | sivtr pipe`: the command runs under a PTY (so it colours and
// buffers as it would in a terminal) with its output passed through untouched, or stdin is
// teed. What is kept of it is bounded (kept-output.ts). The command
// runs under a wrapper that holds the terminal until its last byte was read (run-marker.ts,
// docs/capture.md "sivtr run").
import { write } from 'node:fs';
import { findExecutable } from './which.js';
import { SivtrError, warn } from '../errors.js';
import { KeptOutput, type Kept, type KeptOutputOptions } from './kept-output.js';

export { keptFields } from './kept-output.js';
import { loadPty } from './pty.js';
import { hangUpWrapper, RunMarkerScanner, wrapped, wrapperShell } from './run-marker.js';

/** A command line a person could paste back into a POSIX shell. */
export function quoteCommand(argv: string[]): string {
  return argv.map((a) => (a !== '' && /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** `stoppedBy`: the signal (SIGHUP 1, SIGTERM 15) that sivtr itself got and passed on to the command. */
export type RunResult = { exitCode: number; output: Kept; durationMs: number; startedAt: Date; endedAt: Date; stoppedBy?: number };

type Pty = Awaited<ReturnType<typeof loadPty>>;
type Child = import('node-pty').IPty;

/** How one PTY attempt ended. `started` is false when the wrapper never reached the command. */
type Attempt = { exitCode: number; started: boolean; endedAt: Date };

/** Runs argv under a PTY, mirroring its output to stdout and our stdin to it. */
export async function runUnderPty(argv: string[], env: NodeJS.ProcessEnv, cwd: string, keep?: KeptOutputOptions): Promise<RunResult> {
  const [command, ...args] = argv;
  const file = findExecutable(command!, env, cwd);
  if (!file) throw new SivtrError(`command not found: ${command}`, 'check the spelling, or run it through a shell: `sivtr run sh -c "…"`');
  const pty = await loadPty();
  const stdout = process.stdout;
  const stdin = process.stdin;
  const startedAt = new Date();
  const kept = new KeptOutput(keep);
  const signals = new SignalForwarder();
  const show = (bytes: Buffer): void => {
    if (bytes.length === 0) return;
    kept.write(bytes);
    // After a hang-up the terminal is gone (a write would fail with EIO); the record still gets it all.
    if (!stdout.destroyed && !(signals.stoppedBy === 1 && stdout.isTTY)) stdout.write(bytes);
  };
  const io = new TerminalIo(stdin, stdout);
  let attempt: Attempt | undefined;
  try {
    const shell = wrapperShell(env, cwd);
    if (shell) {
      attempt = await runAttempt(pty, io, show, signals, { file, args, env, cwd, shell });
      if (!attempt.started && signals.stoppedBy === undefined) {
        warn(`${shell} could not host \`sivtr run\` (exit ${attempt.exitCode}); running ${command} without it, so the end of its output may be lost — set SIVTR_RUN_SHELL to a POSIX shell`);
      }
    }
    if (!attempt?.started && signals.stoppedBy === undefined) attempt = await runAttempt(pty, io, show, signals, { file, args, env, cwd });
  } finally {
    signals.close();
    io.close();
  }
  return {
    exitCode: attempt!.exitCode,
    output: kept.end(),
    durationMs: attempt!.endedAt.getTime() - startedAt.getTime(),
    startedAt,
    endedAt: attempt!.endedAt,
    ...(signals.stoppedBy !== undefined ? { stoppedBy: signals.stoppedBy } : {}),
  };
}

/**
 * Signals sent to sivtr itself go to the command, and the run still ends as usual, its output kept:
 * SIGINT (a Ctrl-C where our stdin is not the terminal) to the command's process group as the
 * terminal's Ctrl-C would (the wrapper only passes it on); SIGHUP and SIGTERM as a hang-up of the
 * command, SIGKILL after 5 s if it ignores that.
 */
class SignalForwarder {
  stoppedBy: number | undefined;
  private child: Child | undefined;
  private commandPid: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly handlers: [NodeJS.Signals, () => void][] = [
    ['SIGINT', () => this.interrupt()],
    ['SIGHUP', () => this.stop(1)],
    ['SIGTERM', () => this.stop(15)],
  ];

  constructor() {
    for (const [signal, handler] of this.handlers) process.on(signal, handler);
  }

  /** The child of this attempt; `commandPid` once known (under the wrapper, from its start marker). */
  target(child: Child | undefined, commandPid?: number): void {
    this.child = child;
    this.commandPid = commandPid;
  }

  close(): void {
    for (const [signal, handler] of this.handlers) process.off(signal, handler);
    if (this.timer) clearTimeout(this.timer);
  }

  private interrupt(): void {
    if (this.child) kill(-this.child.pid, 'SIGINT');
  }

  private stop(signal: number): void {
    this.stoppedBy ??= signal;
    const child = this.child;
    if (!child) return;
    kill(this.commandPid ?? child.pid, 'SIGHUP');
    this.timer ??= setTimeout(() => {
      kill(this.commandPid ?? child.pid, 'SIGKILL');
      hangUpWrapper(child.pid);
    }, 5000);
  }
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone already
  }
}

type AttemptOptions = { file: string; args: string[]; env: NodeJS.ProcessEnv; cwd: string; shell?: string };

/**
 * One PTY child: the command under the wrapper when `shell` is given, else the command itself.
 * Under the wrapper nothing is shown or sent before it announced itself (a wrapper that cannot
 * start must leave no trace, and an early Ctrl-C must reach the command, not the wrapper), and it
 * ends when the end marker has been read, with the status the marker carries.
 */
async function runAttempt(pty: Pty, io: TerminalIo, show: (bytes: Buffer) => void, signals: SignalForwarder, options: AttemptOptions): Promise<Attempt> {
  const { file, args, env, cwd, shell } = options;
  const spawnWith = shell ? wrapped(shell, file, args, env) : { file, args, env: definedOnly(env), nonce: '' };
  let child: Child;
  try {
    child = pty.spawn(spawnWith.file, spawnWith.args, {
      name: env.TERM || 'xterm-256color',
      cols: io.cols,
      rows: io.rows,
      cwd,
      env: spawnWith.env,
      encoding: null,
    } as import('node-pty').IPtyForkOptions);
  } catch (error) {
    if (shell) return { exitCode: 127, started: false, endedAt: new Date() };
    throw new SivtrError(`cannot start ${file} on a PTY (${(error as Error).message})`, 'check that node-pty is built (`npm rebuild node-pty`)');
  }
  signals.target(child, shell ? undefined : child.pid);
  const scanner = shell ? new RunMarkerScanner(spawnWith.nonce) : undefined;
  let started = !shell;
  let ended: { exitCode: number; at: Date } | undefined;
  const early: Buffer[] = [];
  const sink = io.attach(child, () => started && !ended);
  // Under the wrapper the PTY can wait for a slow reader of our stdout: nothing is lost while the
  // wrapper holds the terminal. Without it, a paused PTY would lose more at the hang-up.
  const pace = shell ? io.pacer(child) : undefined;
  const out = (bytes: Buffer): void => {
    if (!started) early.push(bytes);
    else {
      show(bytes);
      pace?.();
    }
  };
  child.onData((data: Buffer | string) => {
    if (ended) return;
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (!scanner) return out(bytes);
    for (const piece of scanner.feed(bytes)) {
      if (piece.type === 'bytes') out(piece.bytes);
      else if (piece.type === 'start' && !started) {
        started = true;
        signals.target(child, piece.pid);
        for (const b of early.splice(0)) out(b);
        sink.flush();
      } else if (piece.type === 'end' && started) {
        ended = { exitCode: piece.exitCode, at: new Date() };
        pace?.(true); // read on, so the hang-up is seen at once
        hangUpWrapper(child.pid);
        return;
      }
    }
  });
  const exit = await new Promise<{ exitCode: number; signal?: number }>((done) => child.onExit(done));
  signals.target(undefined);
  await sink.detach();
  pace?.(true);
  if (ended) return { exitCode: ended.exitCode, started: true, endedAt: ended.at };
  // The wrapper went without an end marker (killed, its terminal gone): what it held back is output.
  if (started && scanner) show(scanner.flush());
  return { exitCode: exit.signal ? 128 + exit.signal : exit.exitCode, started, endedAt: new Date() };
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * Our terminal's side of a run: raw mode, keystrokes or piped input to the current child, window
 * sizes, and back-pressure from stdout. It outlives a wrapper that could not start, so input read
 * for it goes to the command run after it.
 */
class TerminalIo {
  private readonly rawMode: boolean;
  private readonly piped: Buffer[] = [];
  private stdinEnded = false;
  private target: { child: Child; fd: number | undefined; ready: () => boolean; queue: Buffer[]; writing: Promise<void>; exited: boolean } | undefined;
  private readonly onData = (data: Buffer): void => {
    if (this.rawMode) this.send(data);
    else this.piped.push(data);
  };
  private readonly onEnd = (): void => {
    this.stdinEnded = true;
    this.sendPiped();
  };
  private readonly onResize = (): void => {
    try {
      this.target?.child.resize(this.cols, this.rows);
    } catch {
      // the child already exited
    }
  };

  constructor(
    private readonly stdin: NodeJS.ReadStream,
    private readonly stdout: NodeJS.WriteStream,
  ) {
    this.rawMode = stdin.isTTY === true;
    if (this.rawMode) stdin.setRawMode(true);
    stdin.on('data', this.onData);
    if (!this.rawMode) stdin.on('end', this.onEnd);
    stdin.resume();
    if (stdout.isTTY) stdout.on('resize', this.onResize);
  }

  get cols(): number {
    return this.stdout.isTTY ? this.stdout.columns : 120;
  }

  get rows(): number {
    return this.stdout.isTTY ? this.stdout.rows : 40;
  }

  /** Input goes to `child` from now on, held back while `ready()` is false (then `flush`). */
  attach(child: Child, ready: () => boolean): { flush: () => void; detach: () => Promise<void> } {
    const fd = (child as unknown as { fd?: unknown }).fd;
    const target = { child, fd: typeof fd === 'number' ? fd : undefined, ready, queue: [] as Buffer[], writing: Promise.resolve(), exited: false };
    this.target = target;
    if (this.stdinEnded) this.sendPiped();
    return {
      flush: () => {
        for (const b of target.queue.splice(0)) this.write(target, b);
      },
      detach: async () => {
        target.exited = true;
        if (this.target === target) this.target = undefined;
        await target.writing;
      },
    };
  }

  /**
   * Pauses `child` while stdout's buffer is full, as a terminal that cannot keep up does. Called
   * after each write; `pace(true)` lets go (the child is gone).
   */
  pacer(child: Child): (done?: boolean) => void {
    let paused = false;
    const resume = (): void => {
      if (!paused) return;
      paused = false;
      this.stdout.off('drain', resume);
      this.stdout.off('close', resume);
      try {
        child.resume();
      } catch {
        // gone
      }
    };
    return (done = false) => {
      if (done) return resume();
      if (paused || this.stdout.destroyed || this.stdout.writableNeedDrain !== true) return;
      paused = true;
      child.pause();
      this.stdout.once('drain', resume);
      this.stdout.once('close', resume);
    };
  }

  close(): void {
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    if (this.rawMode) {
      try {
        this.stdin.setRawMode(false);
      } catch {
        // the terminal is gone (a hang-up)
      }
    }
    this.stdin.pause();
    if (this.stdout.isTTY) this.stdout.off('resize', this.onResize);
  }

  // Piped input is sent whole, with the terminal's end-of-file character, in one write: separate
  // late writes race the child's exit in node-pty.
  private sendPiped(): void {
    this.send(Buffer.concat([...this.piped, Buffer.from('\x04')]));
  }

  private send(data: Buffer): void {
    const target = this.target;
    if (!target || target.exited) return;
    if (!target.ready()) target.queue.push(data);
    else this.write(target, data);
  }

  // node-pty writes from the thread pool and retries later on EAGAIN. A write still pending when
  // the child exits (the end-of-file character of piped input races the exit) can run after the
  // pty's fd is closed, and then lands in whatever file reuses that fd number next: history.db,
  // whose header it overwrote. So input is written here, and the attempt waits for its last write.
  private write(target: NonNullable<TerminalIo['target']>, buffer: Buffer): void {
    if (target.fd === undefined) {
      target.child.write(buffer.toString('utf8'));
      return;
    }
    const fd = target.fd;
    target.writing = target.writing.then(
      () =>
        new Promise<void>((done) => {
          const step = (offset: number): void => {
            if (target.exited || offset >= buffer.length) return done();
            write(fd, buffer, offset, buffer.length - offset, null, (error, written) => {
              if (!error) return step(offset + written);
              if ((error as NodeJS.ErrnoException).code === 'EAGAIN' && !target.exited) setImmediate(() => step(offset));
              else done();
            });
          };
          step(0);
        }),
    );
  }
}

/** Everything on stdin, passed through to stdout as it arrives; what is kept of it, rendered. */
export async function teeStdin(keep?: KeptOutputOptions): Promise<Kept> {
  const kept = new KeptOutput(keep);
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    kept.write(chunk);
    process.stdout.write(chunk);
  }
  return kept.end();
}
