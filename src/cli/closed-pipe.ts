// When the reader of our stdout goes away (`sivtr copy out --print | head -3`), the next write
// fails with EPIPE. Node reports that as an 'error' event, and without a listener it becomes an
// uncaught exception with a stack trace. A closed reader is not a failure of ours: the rest of the
// output is dropped, the command finishes what it does besides printing (a copy still reaches
// the clipboard, a capture is still kept), and the process ends the way a Unix tool killed by
// SIGPIPE does: silently, with status 141 (128 + SIGPIPE).
export const CLOSED_PIPE_EXIT = 141;

let closed = false;

function swallow(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') {
      closed = true;
      return;
    }
    throw error;
  });
}

export function guardClosedPipes(): void {
  swallow(process.stdout);
  swallow(process.stderr);
  // The failed write is reported after the command returned, so the status is decided at exit.
  process.on('exit', () => {
    if (closed) process.exitCode = CLOSED_PIPE_EXIT;
  });
}
