// `sivtr run CMD` and `CMD | sivtr pipe`: the command runs under a PTY (so it colours and
// buffers as it would in a terminal) with its output passed through untouched, or stdin is
// teed. What was seen is returned raw; the store renders it with the one text model.
import { write } from 'node:fs';
import { findExecutable } from './which.js';
import { SivtrError } from '../errors.js';
import { loadPty } from './pty.js';

/** A command line a person could paste back into a POSIX shell. */
export function quoteCommand(argv: string[]): string {
  return argv.map((a) => (a !== '' && /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

export type RunResult = { exitCode: number; output: string; durationMs: number; startedAt: Date; endedAt: Date };

/** Runs argv under a PTY, mirroring its output to stdout and our stdin to it. */
export async function runUnderPty(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<RunResult> {
  const [command, ...args] = argv;
  const file = findExecutable(command!, env, cwd);
  if (!file) throw new SivtrError(`command not found: ${command}`, 'check the spelling, or run it through a shell: `sivtr run sh -c "…"`');
  const pty = await loadPty();
  const stdout = process.stdout;
  const stdin = process.stdin;
  const startedAt = new Date();
  const child = pty.spawn(file, args, {
    name: env.TERM || 'xterm-256color',
    cols: stdout.isTTY ? stdout.columns : 120,
    rows: stdout.isTTY ? stdout.rows : 40,
    cwd,
    env: env as Record<string, string>,
  });
  const chunks: string[] = [];
  child.onData((data) => {
    chunks.push(data);
    stdout.write(data);
  });
  const onResize = () => child.resize(stdout.columns, stdout.rows);
  if (stdout.isTTY) stdout.on('resize', onResize);
  const rawMode = stdin.isTTY === true;
  if (rawMode) stdin.setRawMode(true);
  let exited = false;
  // node-pty writes from the thread pool and retries later on EAGAIN. A write still pending when
  // the child exits (the end-of-file character of piped input races the exit) can run after the
  // pty's fd is closed, and then lands in whatever file reuses that fd number next: history.db,
  // whose header it overwrote. So input is written here, and the run waits for its last write.
  const fd = (child as unknown as { fd?: unknown }).fd;
  let writing: Promise<void> = Promise.resolve();
  const writeAll = (target: number, buffer: Buffer): Promise<void> =>
    new Promise((done) => {
      const step = (offset: number): void => {
        if (exited || offset >= buffer.length) return done();
        write(target, buffer, offset, buffer.length - offset, null, (error, written) => {
          if (!error) return step(offset + written);
          if ((error as NodeJS.ErrnoException).code === 'EAGAIN' && !exited) setImmediate(() => step(offset));
          else done();
        });
      };
      step(0);
    });
  const send = (text: string) => {
    if (exited) return;
    if (typeof fd !== 'number') child.write(text);
    else writing = writing.then(() => writeAll(fd, Buffer.from(text, 'utf8')));
  };
  // A terminal's keystrokes go through as typed. Piped input is sent whole, with the terminal's
  // end-of-file character, in one write: separate late writes race the child's exit in node-pty.
  const piped: Buffer[] = [];
  const forward = rawMode ? (data: Buffer) => send(data.toString('utf8')) : (data: Buffer) => void piped.push(data);
  const onEnd = () => send(Buffer.concat(piped).toString('utf8') + '\x04');
  stdin.on('data', forward);
  if (!rawMode) stdin.on('end', onEnd);
  stdin.resume();
  const { exitCode, signal } = await new Promise<{ exitCode: number; signal?: number }>((done) =>
    child.onExit((e) => {
      exited = true;
      done(e);
    }),
  );
  await writing;
  const endedAt = new Date();
  stdin.off('data', forward);
  stdin.off('end', onEnd);
  if (rawMode) stdin.setRawMode(false);
  stdin.pause();
  if (stdout.isTTY) stdout.off('resize', onResize);
  return {
    exitCode: signal ? 128 + signal : exitCode,
    output: chunks.join(''),
    durationMs: endedAt.getTime() - startedAt.getTime(),
    startedAt,
    endedAt,
  };
}

/** Everything on stdin, passed through to stdout as it arrives. */
export async function teeStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    process.stdout.write(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
