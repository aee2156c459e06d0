// stdout and stderr as the output kernel writes them: straight to the file descriptor. Making
// process.stdout and process.stderr loads node:stream, and for a pipe node:net as well: ~5 ms
// of a one-shot `search` or `sessions`, more than printing their answer. Once something else made
// one of the streams (yargs, the picker, a library), the kernel writes through that stream too, so
// its writes and the stream's stay in order.
//
// A reader that went away (EPIPE) is not a failure of ours: the rest of that output is dropped
// and the process ends as a Unix tool killed by SIGPIPE does, quietly with status 141; whatever
// the command does besides printing (a copy still reaches the clipboard) still happens.
import { fstatSync, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';

export const CLOSED_PIPE_EXIT = 141;

type Fd = 1 | 2;

const made: Record<Fd, boolean> = { 1: false, 2: false };
const closed: Record<Fd, boolean> = { 1: false, 2: false };

function onStreamError(fd: Fd): (error: NodeJS.ErrnoException) => void {
  return (error) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') {
      closed[fd] = true;
      return;
    }
    throw error;
  };
}

/**
 * From here on, a stream made by anyone is marked (so the kernel writes through it) and gets the
 * EPIPE listener (without one, a closed reader is an uncaught exception with a stack trace).
 * Nothing is made now.
 */
export function guardClosedPipes(): void {
  for (const [fd, name] of [
    [1, 'stdout'],
    [2, 'stderr'],
  ] as const) {
    const own = Object.getOwnPropertyDescriptor(process, name);
    if (!own?.get || !own.configurable) {
      // Made already, or not a lazy getter in this Node: guard it as it is.
      made[fd] = true;
      process[name].on('error', onStreamError(fd));
      continue;
    }
    const make = own.get;
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: own.enumerable ?? true,
      get(): NodeJS.WriteStream {
        const stream = make.call(process) as NodeJS.WriteStream;
        Object.defineProperty(process, name, { configurable: true, enumerable: own.enumerable ?? true, value: stream, writable: false });
        made[fd] = true;
        stream.on('error', onStreamError(fd));
        return stream;
      },
    });
  }
  // A failed stream write is reported after the command returned, so the status is decided at exit.
  process.on('exit', () => {
    if (closed[1] || closed[2]) process.exitCode = CLOSED_PIPE_EXIT;
  });
}

/** Waits `ms` without spinning (a descriptor set non-blocking by another process is full). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Writes all of `text` to `fd`, or drops it once the reader went away. */
export function writeTo(fd: Fd, text: string): void {
  if (text === '' || closed[fd]) return;
  if (made[fd]) {
    (fd === 1 ? process.stdout : process.stderr).write(text);
    return;
  }
  writeBytesTo(fd, Buffer.from(text));
}

/** writeTo for bytes already encoded (UTF-8). */
export function writeBytesTo(fd: Fd, bytes: Buffer): void {
  if (bytes.length === 0 || closed[fd]) return;
  if (made[fd]) {
    (fd === 1 ? process.stdout : process.stderr).write(bytes);
    return;
  }
  let at = 0;
  while (at < bytes.length) {
    try {
      at += writeSync(fd, bytes, at, bytes.length - at);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        pause(1);
        continue;
      }
      if (code === 'EPIPE') {
        closed[fd] = true;
        return;
      }
      throw error;
    }
  }
}

/**
 * Whether `fd` is a terminal, without making its stream: only a character device other than
 * /dev/null (`> /dev/null` is common) can be one, and only then is node:tty (which loads the
 * stream modules and node:net) asked.
 */
export function isTerminal(fd: Fd): boolean {
  if (made[fd]) return (fd === 1 ? process.stdout : process.stderr).isTTY === true;
  try {
    const st = fstatSync(fd);
    if (!st.isCharacterDevice() || st.rdev === statSync('/dev/null', { throwIfNoEntry: false })?.rdev) return false;
  } catch {
    return false;
  }
  return (createRequire(import.meta.url)('node:tty') as typeof import('node:tty')).isatty(fd);
}
