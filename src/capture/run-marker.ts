// The end-of-output handshake of `sivtr run` (docs/capture.md, "sivtr run"). On Linux, when the
// session leader on a PTY exits, the kernel hangs the terminal up and throws away what the reader
// had not yet taken from the PTY: a reader that is late (a slow consumer of our stdout, a busy CPU)
// loses the end of the output. So the command runs under a small POSIX sh script that stays the
// session leader: it announces itself, runs the command, prints an end marker with the exit status,
// and waits until sivtr, having read that marker, hangs it up. Both markers carry a per-run nonce,
// so output that merely looks like them (a `cat` of a captured stream, a nested `sivtr run`) stays
// output.

import { randomBytes } from 'node:crypto';
import { findExecutable } from './which.js';

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
/** SHLVL as sivtr got it (`=N`, or `-` for none): a bash that is /bin/sh raises it for the command. */
export const SHLVL_VAR = 'SIVTR_RUN_SHLVL';

/**
 * The second `sh`: the start marker with its own pid, then it becomes the command. A bash (when it
 * is /bin/sh) raises SHLVL as it starts and lowers it as it execs, which restores a SHLVL that was
 * set but leaves `SHLVL=0` for one that was not: `env -u` takes that away.
 */
const START_SCRIPT = [
  'exec 2>&3 3>&-',
  `printf "\\033]${OSC};%s;start=%s\\007" "$1" "$$" || exit 127`,
  'shift',
  `if [ "$${SHLVL_VAR}" = - ] && [ -n "\${BASH_VERSION-}" ] && command -v env >/dev/null; then unset ${SHLVL_VAR}; exec env -u SHLVL "$@"; fi`,
  `unset ${SHLVL_VAR}`,
  'exec "$@"',
].join('; ');

/**
 * `sh -c WRAPPER SH FILE ARGS…`. The start marker comes from a second `sh` that then becomes the
 * command (`exec`), so it carries the command's pid. INT and QUIT get a handler (not ignored: an
 * ignored signal would stay ignored in the command) so that Ctrl-C ends the command, not the
 * wrapper; they are default again while it waits, so a Ctrl-C there still ends everything. A
 * failed marker write (the terminal is gone) ends the wrapper at once. `sleep` waits without
 * reading the terminal, whatever mode the command left it in; sivtr hangs the wrapper up once it
 * has read the end marker.
 */
export const WRAPPER_SCRIPT = [
  `n=$${NONCE_VAR}; unset ${NONCE_VAR}`,
  `case $${SHLVL_VAR} in =*) SHLVL=\${${SHLVL_VAR}#=}; export SHLVL ;; -) unset SHLVL ;; esac`,
  'trap : INT QUIT',
  // The wrapper's own messages (a shell names the signal that ended its command: "Hangup") are
  // not the command's output: its stderr goes to /dev/null, the second sh gives the command the
  // terminal back (a redirection on the command itself would hold while the wrapper waits).
  'exec 3>&2 2>/dev/null',
  `"$0" -c '${START_SCRIPT}' "$0" "$n" "$@"`,
  's=$?',
  'trap - INT QUIT',
  `printf '\\033]${OSC};%s;end=%s\\007' "$n" "$s" || exit "$s"`,
  'sleep 2147483647 2>/dev/null',
  'exit "$s"',
].join('\n');

/**
 * The POSIX shell that hosts the wrapper: SIVTR_RUN_SHELL, else /bin/sh, else `sh` on PATH;
 * undefined (the program runs bare) when there is none or SIVTR_RUN_SHELL is empty.
 */
export function wrapperShell(env: NodeJS.ProcessEnv, cwd = process.cwd()): string | undefined {
  if (process.platform === 'win32') return undefined; // ConPTY has no session leader to keep alive
  if (env.SIVTR_RUN_SHELL !== undefined) return env.SIVTR_RUN_SHELL === '' ? undefined : env.SIVTR_RUN_SHELL;
  return findExecutable('/bin/sh', env, cwd) ?? findExecutable('sh', env, cwd);
}

/** The wrapper has said all: hang its process group up, as a closing terminal would. */
export function hangUpWrapper(pid: number): void {
  try {
    process.kill(-pid, 'SIGHUP');
  } catch {
    try {
      process.kill(pid, 'SIGHUP');
    } catch {
      // gone already
    }
  }
}

/** How to spawn FILE ARGS under the wrapper hosted by `shell`, with this run's nonce. */
export function wrapped(shell: string, file: string, args: string[], env: NodeJS.ProcessEnv): { file: string; args: string[]; env: Record<string, string>; nonce: string } {
  const nonce = newRunNonce();
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  childEnv[NONCE_VAR] = nonce;
  childEnv[SHLVL_VAR] = env.SHLVL === undefined ? '-' : `=${env.SHLVL}`;
  return { file: shell, args: ['-c', WRAPPER_SCRIPT, shell, file, ...args], env: childEnv, nonce };
}

export type MarkerPiece = { type: 'bytes'; bytes: Buffer } | { type: 'start'; pid: number } | { type: 'end'; exitCode: number };

const ESC = 0x1b;
const BEL = 0x07;
/** `start=` and a pid, or `end=` and a status. */
const MAX_FIELD = 16;

/** The marker a field makes; 'partial' while it may still become one, undefined once it cannot. */
function fieldState(field: string, complete: boolean): MarkerPiece | 'partial' | undefined {
  if (complete) {
    const start = /^start=(\d{1,10})$/.exec(field);
    if (start) return { type: 'start', pid: Number(start[1]) };
    const end = /^end=(\d{1,3})$/.exec(field);
    return end ? { type: 'end', exitCode: Number(end[1]) } : undefined;
  }
  return /^(?:s(?:t(?:a(?:r(?:t(?:=\d{0,10})?)?)?)?)?|e(?:n(?:d(?:=\d{0,3})?)?)?)?$/.test(field) ? 'partial' : undefined;
}

/**
 * Finds this run's markers in the PTY's byte stream, split across reads at any byte. Everything
 * else is handed on unchanged; bytes that may begin a marker wait for the next read (or `flush`).
 */
export class RunMarkerScanner {
  /** `ESC ] 6973 ;`: what every marker of ours begins with, found by one native search per read. */
  private readonly lead = Buffer.from(`\x1b]${OSC};`, 'latin1');
  private readonly head: Buffer;
  private pending: Buffer = Buffer.alloc(0);

  constructor(nonce: string) {
    this.head = Buffer.from(`\x1b]${OSC};${nonce};`, 'latin1');
  }

  feed(chunk: Buffer): MarkerPiece[] {
    const data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const pieces: MarkerPiece[] = [];
    let emitted = 0;
    let held = -1; // where bytes that may begin a marker start
    for (let at = data.indexOf(this.lead); at >= 0; ) {
      const found = this.matchAt(data, at);
      if (found === 'partial') {
        held = at;
        break;
      }
      if (!found) {
        at = data.indexOf(this.lead, at + 1);
        continue;
      }
      if (at > emitted) pieces.push({ type: 'bytes', bytes: data.subarray(emitted, at) });
      pieces.push(found.piece);
      emitted = found.end;
      at = data.indexOf(this.lead, emitted);
    }
    // A read that ends inside the lead itself.
    for (let p = Math.max(emitted, data.length - this.lead.length + 1); held < 0 && p < data.length; p++) {
      if (data[p] === ESC && data.compare(this.lead, 0, data.length - p, p) === 0) held = p;
    }
    const end = held >= 0 ? held : data.length;
    if (end > emitted) pieces.push({ type: 'bytes', bytes: data.subarray(emitted, end) });
    this.pending = held >= 0 ? Buffer.from(data.subarray(held)) : Buffer.alloc(0); // a copy: do not pin the chunk
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
    return { piece: state, end: bel + 1 };
  }
}
