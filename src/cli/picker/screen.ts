// The terminal the picker draws on, and the promise to give it back as it was on every way out:
// Enter, Esc, Ctrl-C, SIGTERM/SIGHUP/SIGINT, and a crash. The picker draws on the alternate
// screen in raw mode; leaving restores the cursor, autowrap, the main screen and cooked mode,
// so the prompt it was opened from (a key binding) is where it was.
// With stdout a pipe (`pick --print | …`, `$(sivtr pick --print)`), the screen is /dev/tty.
import { openSync } from 'node:fs';
import { writeSync } from 'node:fs';
import { ReadStream, WriteStream } from 'node:tty';
import { SivtrError } from '../../errors.js';

/**
 * Alternate screen, cleared, with autowrap off: the painter rewrites only the rows that changed,
 * so a row one column wider than measured (a character whose width this terminal counts
 * otherwise) would wrap into the row below and stay there; without autowrap it is cut at the edge.
 */
export const ENTER_ALT = '\x1b[?1049h\x1b[?7l\x1b[H\x1b[2J';
/** Cursor shown, attributes reset, autowrap back on, main screen back. */
export const LEAVE_ALT = '\x1b[?25h\x1b[0m\x1b[?7h\x1b[?1049l';

export type Screen = {
  stdin: ReadStream;
  stdout: WriteStream;
  /** What stops the screen's own drawing; called before the terminal is restored, so no frame lands on the main screen after it. */
  onRestore(stop: () => void): void;
  /** Writes straight to the terminal (the first frame, before the screen's chunk has loaded). */
  paint(text: string): void;
  restore(): void;
};

const SIGNALS = { SIGINT: 2, SIGHUP: 1, SIGTERM: 15, SIGQUIT: 3 } as const;

function ttyIn(): ReadStream {
  if (process.stdin.isTTY) return process.stdin as ReadStream;
  return new ReadStream(openSync('/dev/tty', 'r'));
}

function ttyOut(): { stream: WriteStream; fd: number } {
  if (process.stdout.isTTY) return { stream: process.stdout as WriteStream, fd: 1 };
  const fd = openSync('/dev/tty', 'w');
  return { stream: new WriteStream(fd), fd };
}

export function openScreen(): Screen {
  let stdin: ReadStream;
  let stdout: WriteStream;
  let fd: number;
  try {
    stdin = ttyIn();
    ({ stream: stdout, fd } = ttyOut());
  } catch {
    throw new SivtrError('the picker needs a terminal, and there is none here', 'run it at a prompt; in scripts use `sivtr copy`, `show` or `search`', 2);
  }
  let restored = false;
  let stop: (() => void) | undefined;
  const restore = (): void => {
    if (restored) return;
    restored = true;
    try {
      stop?.();
    } catch {
      // it was failing anyway: the terminal still comes back below
    }
    try {
      if (stdin.isRaw) stdin.setRawMode(false);
    } catch {
      // the terminal is gone (hang-up): nothing to restore
    }
    try {
      writeSync(fd, LEAVE_ALT);
    } catch {
      // as above
    }
    stdin.pause();
    for (const [signal, handler] of handlers) process.off(signal, handler);
    process.off('exit', restore);
    process.off('uncaughtException', crashed);
    process.off('unhandledRejection', crashed);
  };
  const handlers: [NodeJS.Signals, () => void][] = Object.entries(SIGNALS).map(([signal, n]) => [
    signal as NodeJS.Signals,
    () => {
      restore();
      process.exit(128 + n);
    },
  ]);
  const crashed = (error: unknown): void => {
    restore();
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`sivtr: the picker failed: ${message} — the terminal was restored; rerun with SIVTR_DEBUG=1 and report it\n`);
    if (process.env.SIVTR_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  };
  for (const [signal, handler] of handlers) process.on(signal, handler);
  process.on('exit', restore);
  process.on('uncaughtException', crashed);
  process.on('unhandledRejection', crashed);
  // Raw before the first frame, not when Ink gets to it after: a key typed at once (Ctrl-C
  // included) is then a key for the picker, not a signal or an echo from the terminal driver.
  stdin.setRawMode(true);
  writeSync(fd, ENTER_ALT);
  return { stdin, stdout, restore, onRestore: (f) => (stop = f), paint: (text) => void writeSync(fd, text) };
}
