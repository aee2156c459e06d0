// The end-of-output handshake of `sivtr run` (docs/capture.md, "sivtr run"). On Linux, when the
// session leader on a PTY exits, the kernel hangs the terminal up and throws away what the reader
// had not yet taken from the PTY: a reader that is late (a slow consumer of our stdout, a busy CPU)
// loses the end of the output. So the command runs under a small POSIX sh script that stays the
// session leader: it announces itself, runs the command, prints an end marker with the exit status,
// and waits until sivtr, having read that marker, hangs it up. Both markers carry a per-run nonce,
// so output that merely looks like them (a `cat` of a captured stream, a nested `sivtr run`) stays
// output.

import { randomBytes } from 'node:crypto';

/** The OSC number of the markers: unknown to terminals, which ignore it if one ever leaks. */
const OSC = '6973';

/**
 * Digits only: the one output translation a terminal may apply to letters (`stty olcuc`) leaves
 * them alone, and a marker that is not recognised would leave the wrapper waiting.
 */
export function newRunNonce(): string {
  return randomBytes(8).readBigUInt64BE().toString().padStart(20, '0');
}

/** The environment variable that hands the nonce to the wrapper; the wrapper unsets it. */
export const NONCE_VAR = 'SIVTR_RUN_NONCE';

/**
 * `sh -c WRAPPER sivtr-run FILE ARGS…`. INT and QUIT get a handler (not ignored: an ignored signal
 * would stay ignored in the command) so that Ctrl-C ends the command, not the wrapper; they are
 * default again while it waits, so a Ctrl-C there still ends everything. A failed marker write
 * (the terminal is gone) ends the wrapper at once. `sleep` waits without reading the terminal,
 * whatever mode the command left it in; sivtr hangs the wrapper up once it has read the marker.
 */
export const WRAPPER_SCRIPT = [
  `n=$${NONCE_VAR}; unset ${NONCE_VAR}`,
  'trap : INT QUIT',
  `printf '\\033]${OSC};%s;start\\007' "$n" || exit 127`,
  '"$@"',
  's=$?',
  'trap - INT QUIT',
  `printf '\\033]${OSC};%s;end=%s\\007' "$n" "$s" || exit "$s"`,
  'sleep 2147483647 2>/dev/null',
  'exit "$s"',
].join('\n');

export type MarkerPiece = { type: 'bytes'; bytes: Buffer } | { type: 'start' } | { type: 'end'; exitCode: number };

const ESC = 0x1b;
const BEL = 0x07;
/** `start` or `end=` and up to three digits. */
const MAX_FIELD = 8;

/** The field of a marker so far: undefined when it can no longer become `start` or `end=N`. */
function fieldState(field: string, complete: boolean): 'start' | number | 'partial' | undefined {
  if (complete) {
    if (field === 'start') return 'start';
    const m = /^end=(\d{1,3})$/.exec(field);
    return m ? Number(m[1]) : undefined;
  }
  if ('start'.startsWith(field) || 'end='.startsWith(field) || /^end=\d{0,3}$/.test(field)) return 'partial';
  return undefined;
}

/**
 * Finds this run's markers in the PTY's byte stream, split across reads at any byte. Everything
 * else is handed on unchanged; bytes that may begin a marker wait for the next read (or `flush`).
 */
export class RunMarkerScanner {
  private readonly head: Buffer;
  private pending: Buffer = Buffer.alloc(0);

  constructor(nonce: string) {
    this.head = Buffer.from(`\x1b]${OSC};${nonce};`, 'latin1');
  }

  feed(chunk: Buffer): MarkerPiece[] {
    const data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = Buffer.alloc(0);
    const pieces: MarkerPiece[] = [];
    let emitted = 0;
    let at = data.indexOf(ESC);
    while (at >= 0) {
      const found = this.matchAt(data, at);
      if (found === 'partial') {
        this.pending = data.subarray(at);
        break;
      }
      if (found) {
        if (at > emitted) pieces.push({ type: 'bytes', bytes: data.subarray(emitted, at) });
        pieces.push(found.piece);
        emitted = found.end;
        at = data.indexOf(ESC, emitted);
        continue;
      }
      at = data.indexOf(ESC, at + 1);
    }
    const end = this.pending.length > 0 ? data.length - this.pending.length : data.length;
    if (end > emitted) pieces.push({ type: 'bytes', bytes: data.subarray(emitted, end) });
    if (this.pending.length > 0) this.pending = Buffer.from(this.pending); // do not pin the whole chunk
    return pieces;
  }

  /** The stream ended: bytes held back as a possible marker were output after all. */
  flush(): Buffer {
    const rest = this.pending;
    this.pending = Buffer.alloc(0);
    return rest;
  }

  private matchAt(data: Buffer, at: number): 'partial' | { piece: MarkerPiece; end: number } | undefined {
    const head = this.head;
    const available = Math.min(head.length, data.length - at);
    if (data.compare(head, 0, available, at, at + available) !== 0) return undefined;
    if (available < head.length) return 'partial';
    const fieldStart = at + head.length;
    const bel = data.indexOf(BEL, fieldStart);
    const complete = bel >= 0 && bel - fieldStart <= MAX_FIELD;
    const fieldEnd = complete ? bel : Math.min(data.length, fieldStart + MAX_FIELD + 1);
    const state = fieldState(data.toString('latin1', fieldStart, fieldEnd), complete);
    if (state === undefined) return undefined;
    if (state === 'partial') return data.length - fieldStart <= MAX_FIELD ? 'partial' : undefined;
    return { piece: state === 'start' ? { type: 'start' } : { type: 'end', exitCode: state }, end: bel + 1 };
  }
}
