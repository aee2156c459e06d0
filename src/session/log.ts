// Terminal logs: one JSONL SessionEntry per line. Loading tolerates anything; appending to a log
// that holds unreadable lines first saves the original and rewrites the valid entries, so a
// corrupt or legacy log never blocks recording and never loses a line.
import { chmodSync, closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SivtrError, warn } from '../errors.js';
import { normaliseRaw, parseRawEntryLine, serializeEntry, type RawEntry, type SessionEntry } from './entry.js';
import { scanLogOffsets, type LogScan } from './log-offsets.js';
import { terminalLogPath, terminalsDir, type Env } from './paths.js';

export type LoadedLog = { path: string; entries: SessionEntry[]; skipped: number };
export type ScannedLog = { path: string; raws: RawEntry[]; skipped: number };

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Valid lines as raw entries (normalise with `normaliseRaw` when a field is needed). */
export function scanLog(text: string): { raws: RawEntry[]; skipped: number } {
  const raws: RawEntry[] = [];
  let skipped = 0;
  for (const line of splitLines(text)) {
    if (line.length === 0 || (line.trim() === '')) continue;
    const raw = parseRawEntryLine(line);
    if (raw) raws.push(raw);
    else skipped++;
  }
  return { raws, skipped };
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

function readLogText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw logReadError(path, error);
  }
}

/** Valid entry spans of a log (cached offsets), warning about unreadable lines. */
export function scanLogSpans(path: string, env: Env = process.env): LogScan {
  let scan: LogScan;
  try {
    scan = scanLogOffsets(path, env);
  } catch (error) {
    throw logReadError(path, error);
  }
  if (scan.skipped > 0) warn(`skipped ${scan.skipped} unreadable line(s) in ${path}`);
  return scan;
}

/** Reads a log without normalising it yet; unreadable lines are skipped and counted on stderr. */
export function scanLogFile(path: string, opts: { quiet?: boolean } = {}): ScannedLog {
  const { raws, skipped } = scanLog(readLogText(path));
  if (skipped > 0 && !opts.quiet) warn(`skipped ${skipped} unreadable line(s) in ${path}`);
  return { path, raws, skipped };
}

/** Reads a log; unreadable lines are skipped and counted on stderr (`quiet` for listings). */
export function loadLog(path: string, opts: { quiet?: boolean } = {}): LoadedLog {
  const { raws, skipped } = scanLogFile(path, opts);
  return { path, entries: raws.map(normaliseRaw), skipped };
}

export function ensurePrivateDir(dir: string): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
}

function utcStamp(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/** Keeps the original as `<name>.corrupt-<stamp>` and atomically rewrites only valid entries. */
export function salvageLog(path: string, entries: SessionEntry[]): string {
  let backup = `${path}.corrupt-${utcStamp()}`;
  for (let n = 2; existsSync(backup); n++) backup = `${path}.corrupt-${utcStamp()}-${n}`;
  copyFileSync(path, backup);
  chmodSync(backup, 0o600);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, entries.map((e) => serializeEntry(e) + '\n').join(''));
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  warn(`${path} held unreadable lines: kept the original as ${basename(backup)} and rewrote its valid entries`);
  return backup;
}

/** Appends whole lines with one O_APPEND write each, after salvaging a damaged log once. */
export class LogWriter {
  private checked = false;
  constructor(readonly path: string) {}

  append(entry: SessionEntry): void {
    ensurePrivateDir(dirname(this.path));
    if (!this.checked) {
      if (existsSync(this.path)) {
        const text = readFileSync(this.path, 'utf8');
        const { entries, skipped } = parseLog(text);
        if (skipped > 0) salvageLog(this.path, entries);
        else if (text !== '' && !text.endsWith('\n')) this.writeRaw('\n'); // valid last line, newline lost
      }
      this.checked = true;
    }
    this.writeRaw(serializeEntry(entry) + '\n');
  }

  private writeRaw(text: string): void {
    const fd = openSync(this.path, 'a', 0o600);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
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
    const path = join(dir, name);
    try {
      const st = statSync(path);
      if (st.isFile()) logs.push({ id: name.slice(0, -'.jsonl'.length), path, mtimeMs: st.mtimeMs, size: st.size });
    } catch {
      // vanished between readdir and stat
    }
  }
  return logs.sort((a, b) => b.mtimeMs - a.mtimeMs || a.id.localeCompare(b.id));
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
