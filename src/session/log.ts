// Terminal logs: one JSONL SessionEntry per line. Loading tolerates anything; unreadable lines
// are salvaged (the original kept beside the log, the lines blanked) by the next append or the
// next reader, so a corrupt or legacy log never blocks recording and never loses a line.
import { closeSync, existsSync, fchmodSync, fstatSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { childPath, ensurePrivateDir } from '../files.js';
import { statStamp } from '../file-stat.js';
import { dirname } from 'node:path';
import { SivtrError, warn } from '../errors.js';
import { isEntryShape, normaliseRaw, parseRawEntryLine, serializeEntry, type RawEntry, type SessionEntry } from './entry.js';
import { newJsonlStats, parseJsonlLine, skippedLines, textLines } from './jsonl.js';
import { forgetLogOffsets, scanLogOffsets, type LogScan } from './log-offsets.js';
import { blankRanges, keepOriginal, readBytes, salvageDamagedLines, salvageMessage, unreadableLines } from './log-salvage.js';
import { terminalLogPath, terminalsDir, type Env } from './paths.js';
import { count } from '../plural.js';

export type LoadedLog = { path: string; entries: SessionEntry[]; skipped: number };

/** Valid lines as raw entries (normalise with `normaliseRaw` when a field is needed). */
export function scanLog(text: string): { raws: RawEntry[]; skipped: number } {
  const raws: RawEntry[] = [];
  const stats = newJsonlStats();
  let foreign = 0;
  for (const { line, terminated } of textLines(text)) {
    const value = parseJsonlLine(line, stats, !terminated);
    if (value === undefined) continue;
    if (isEntryShape(value)) raws.push(value);
    else foreign++;
  }
  // In a log, a last line without its newline is damage (every append is one whole line).
  return { raws, skipped: skippedLines(stats) + foreign };
}

export function parseLog(text: string): { entries: SessionEntry[]; skipped: number } {
  const { raws, skipped } = scanLog(text);
  return { entries: raws.map(normaliseRaw), skipped };
}

/** A failed read of a log, said for people. */
export function logReadError(path: string, error: unknown): SivtrError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new SivtrError(`no terminal log at ${path}`, 'run `sivtr init bash` (or zsh, pwsh) and open a new terminal');
  return new SivtrError(`cannot read ${path} (${code ?? 'error'})`, 'check the file permissions');
}

/**
 * Valid entry spans of a log (cached offsets). Unreadable lines are salvaged once, said once; only
 * what cannot be salvaged (the log is read-only, or its last line is still being written) warns on.
 */
export function scanLogSpans(path: string, env: Env = process.env): LogScan {
  let scan: LogScan;
  try {
    scan = scanLogOffsets(path, env);
    if (scan.skipped > 0) {
      // The shell hooks cannot parse what they append to, so the reader salvages for them.
      const salvaged = trySalvage(path);
      if (salvaged.blanked > 0) {
        forgetLogOffsets(path, env);
        warn(salvageMessage(path, salvaged.backup!, salvaged.blanked));
        scan = scanLogOffsets(path, env);
      }
    }
  } catch (error) {
    throw logReadError(path, error);
  }
  if (scan.skipped > 0) warn(`skipped ${count(scan.skipped, 'unreadable line')} in ${path}`);
  return scan;
}

function trySalvage(path: string): { backup?: string; blanked: number } {
  try {
    return salvageDamagedLines(path);
  } catch {
    return { blanked: 0 }; // read-only data: reading still works, the warning stays
  }
}

/** A whole log read at once (what tests check a recording with; commands read through `scanLogSpans`). */
export function loadLog(path: string, opts: { quiet?: boolean } = {}): LoadedLog {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw logReadError(path, error);
  }
  const { entries, skipped } = parseLog(text);
  if (skipped > 0 && !opts.quiet) warn(`skipped ${count(skipped, 'unreadable line')} in ${path}`);
  return { path, entries, skipped };
}

/**
 * Appends whole lines with one O_APPEND write each. Whenever the file is not as this writer left
 * it (the first append, or someone else wrote since), the new bytes are checked first: a last line
 * without its newline gets one, so the next entry never glues onto it, and unreadable lines are
 * salvaged (original kept, lines blanked) so readers stop warning about them.
 */
export class LogWriter {
  private knownEnd: number | undefined;
  /** `notify` says what a salvage did (default: a warning on stderr). */
  constructor(
    readonly path: string,
    private readonly notify: (message: string) => void = warn,
  ) {}

  append(entry: SessionEntry): void {
    ensurePrivateDir(dirname(this.path));
    const fd = openSync(this.path, 'a', 0o600);
    try {
      const st = fstatSync(fd);
      // Terminal output is private: a log someone else created readable by others is closed up.
      if (this.knownEnd === undefined && (st.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
      if (st.size !== this.knownEnd) this.checkNewBytes(fd, st.size);
      writeSync(fd, serializeEntry(entry) + '\n');
      this.knownEnd = fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
  }

  private checkNewBytes(fd: number, size: number): void {
    // Grown past what this writer left: only the bytes after it are new. Anything else (first
    // append, a shrunk or rewritten file): all of it.
    const from = this.knownEnd !== undefined && size > this.knownEnd ? this.knownEnd : 0;
    const rfd = openSync(this.path, 'r');
    let bytes: Buffer;
    try {
      bytes = readBytes(rfd, from, size);
    } finally {
      closeSync(rfd);
    }
    const unterminated = bytes.length > 0 && bytes[bytes.length - 1] !== 10;
    const lastStart = unterminated ? bytes.lastIndexOf(10) + 1 : bytes.length;
    const lastIsBad = unterminated && !parseRawEntryLine(bytes.toString('utf8', lastStart));
    const bad = unreadableLines(bytes, from);
    if (lastIsBad) bad.push({ start: from + lastStart, end: size });
    const backup = bad.length > 0 ? keepOriginal(this.path) : undefined;
    if (unterminated) writeSync(fd, '\n');
    if (backup) {
      blankRanges(this.path, bad);
      forgetLogOffsets(this.path);
      this.notify(salvageMessage(this.path, backup, bad.length));
    }
  }
}

export function appendEntry(path: string, entry: SessionEntry): void {
  new LogWriter(path).append(entry);
}

export type TerminalLogInfo = { id: string; path: string; mtimeMs: number; size: number };

/** Terminal logs in the data dir, newest first. */
export function listTerminalLogs(env: Env = process.env): TerminalLogInfo[] {
  const dir = terminalsDir(env);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const logs: TerminalLogInfo[] = [];
  for (const name of names) {
    if (!name.endsWith('.jsonl')) continue;
    const path = childPath(dir, name);
    // statStamp, not statSync: `sessions` and `copy` list the logs at every start, and each log
    // got a fourteen-field Stats object where three numbers are read (src/file-stat.ts).
    try {
      const st = statStamp(path);
      if (st?.kind === 'file') logs.push({ id: name.slice(0, -'.jsonl'.length), path, mtimeMs: st.mtimeMs, size: st.size });
    } catch {
      // unreadable: left out, as a log that vanished between readdir and stat
    }
  }
  // Code-unit order: localeCompare's first call loads ICU collation, several ms of every command.
  return logs.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** `terminal/current`: SIVTR_SESSION_LOG, then SIVTR_TERMINAL_ID's log, then the newest log. */
export function currentTerminalLog(env: Env = process.env, logs?: readonly TerminalLogInfo[]): string {
  if (env.SIVTR_SESSION_LOG) return env.SIVTR_SESSION_LOG;
  if (env.SIVTR_TERMINAL_ID) {
    const own = terminalLogPath(env.SIVTR_TERMINAL_ID, env);
    if (existsSync(own)) return own;
  }
  const newest = (logs ?? listTerminalLogs(env))[0];
  if (newest) return newest.path;
  throw new SivtrError(`nothing recorded yet in ${terminalsDir(env)}`, 'run `sivtr init bash` (or zsh, pwsh) and open a new terminal, or `sivtr shell`');
}
