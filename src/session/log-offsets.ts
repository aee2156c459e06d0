// Where each valid entry of a terminal log starts and ends, cached beside the data so a one-shot
// `sivtr copy` re-validates only what was appended since the last run instead of the whole log.
// The cache is keyed by the log's path and trusted only while the log's head and the bytes just
// before the cached end are unchanged; anything else triggers a full rescan, with the same result.
import { closeSync, fstatSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../files.js';
import { isEntryShape, isRecord, normaliseRaw, parseRawEntryLine, type RawEntry } from './entry.js';
import { bufferLines, newJsonlStats, parseJsonlLine, skippedLines } from './jsonl.js';
import { activeCaptureRules, applyCaptureRules, KEPT_OUT, type CaptureRules } from './capture-rules.js';
import { dataDir, type Env } from './paths.js';

const VERSION = 2;
const PROBE = 4096;

/**
 * Valid entry lines as pairs in one flat array: start byte, then end byte (exclusive, without
 * the newline) negated when the entry is not a record. Flat numbers keep a 10,000-entry log
 * cheap to load; objects per line would cost more than the parse they save.
 */
export type LogScan = { spans: ArrayLike<number>; skipped: number; size: number };

export const spanCount = (scan: LogScan): number => scan.spans.length / 2;
export const spanIsRecord = (scan: LogScan, i: number): boolean => scan.spans[2 * i + 1]! > 0;

type CacheFile = { v: number; path: string; scannedTo: number; head: string; tail: string; skipped: number; spans: string; rules?: string };

/** FNV-1a, for the cache file's name only. */
function fnv(bytes: Uint8Array, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193) >>> 0;
  return h;
}

/**
 * The log's bytes in [from, to), kept verbatim (base64) to notice a rewritten log: comparing
 * 8 KB natively is cheaper at start-up than hashing them in not-yet-optimised JavaScript.
 */
function probe(fd: number, from: number, to: number): string {
  const length = Math.max(0, to - from);
  const buf = Buffer.alloc(length);
  const n = length > 0 ? readSync(fd, buf, 0, length, from) : 0;
  return buf.toString('base64', 0, n);
}

function cachePath(logPath: string, env: Env): string {
  const bytes = Buffer.from(logPath);
  const key = fnv(bytes).toString(16) + fnv(bytes, 0x1234567).toString(16);
  return join(dataDir(env), 'cache', 'logs', `${key}.json`);
}

const encodeSpans = (spans: ArrayLike<number>): string => Buffer.from(Float64Array.from(spans).buffer).toString('base64');

function decodeSpans(text: string): Float64Array {
  const buf = Buffer.from(text, 'base64');
  return new Float64Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
}

function readCache(file: string, logPath: string): CacheFile | undefined {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
    return c.v === VERSION && c.path === logPath && typeof c.spans === 'string' && c.spans.length % 4 === 0 ? c : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(file: string, cache: CacheFile): void {
  try {
    writeFileAtomic(file, JSON.stringify(cache), { mode: 0o600, privateDir: true });
  } catch {
    // A read-only data dir only costs speed.
  }
}

const isRecordRaw = (raw: RawEntry): boolean => raw.command.trim() !== '' || isRecord(normaliseRaw(raw));

/** Scans `buf` (file bytes starting at `base`), appending spans; returns bytes fully consumed. */
function scanBytes(buf: Buffer, base: number, spans: number[], counts: { skipped: number }, final: boolean): number {
  let consumed = 0;
  for (const { start, end, terminated } of bufferLines(buf, base)) {
    if (!terminated && !final) break;
    const stats = newJsonlStats();
    const value = parseJsonlLine(buf.toString('utf8', start - base, end - base), stats, !terminated);
    if (isEntryShape(value)) spans.push(start, isRecordRaw(value) ? end : -end);
    // A foreign line, or a last line without its newline: damage in a log (appends are whole lines).
    else if (value !== undefined || skippedLines(stats) > 0) counts.skipped++;
    consumed = end - base + (terminated ? 1 : 0);
  }
  return consumed;
}

/**
 * The capture rules applied to lines the hooks appended (the recorder applies them before it
 * writes): an ignored command's line is blanked, a line with a masked piece is rewritten in place,
 * padded with spaces to its old length so no other byte moves. A masked line that would grow
 * becomes a stub with the record's metadata and `[kept out]` for its text. When the log cannot be
 * written, the spans still leave out ignored commands and `readSpan` masks what it returns.
 * Returns the spans kept.
 */
function scrubSpans(logPath: string, body: Buffer, base: number, spans: number[], rules: CaptureRules): number[] {
  const kept: number[] = [];
  const writes: { at: number; bytes: Buffer }[] = [];
  for (let i = 0; i < spans.length; i += 2) {
    const start = spans[i]!;
    const end = Math.abs(spans[i + 1]!);
    const line = body.toString('utf8', start - base, end - base);
    const raw = parseRawEntryLine(line);
    const allowed = raw && applyCaptureRules(raw, rules);
    const length = end - start;
    if (allowed === raw) {
      kept.push(start, spans[i + 1]!);
      continue;
    }
    if (!allowed) {
      writes.push({ at: start, bytes: Buffer.alloc(length, 0x20) });
      continue;
    }
    // The masked entry (without its duration and prompt colours if that makes it fit), else (masks
    // longer than what they hide) a stub that keeps the record's place and metadata: either way the
    // line keeps its length.
    const { cwd, ended_at, exit_code } = allowed;
    const candidates = [allowed, { ...allowed, duration_ms: undefined, prompt_ansi: undefined }, { prompt: '', command: KEPT_OUT, output: '', cwd, ended_at, exit_code }, { prompt: '', command: KEPT_OUT, output: '' }];
    const fits = candidates.map((c) => Buffer.from(JSON.stringify(c))).find((b) => b.length <= length);
    writes.push({ at: start, bytes: fits ? Buffer.concat([fits, Buffer.alloc(length - fits.length, 0x20)]) : Buffer.alloc(length, 0x20) });
    if (fits) kept.push(start, spans[i + 1]!);
  }
  if (writes.length > 0) {
    try {
      const fd = openSync(logPath, 'r+');
      try {
        for (const w of writes) writeSync(fd, w.bytes, 0, w.bytes.length, w.at);
      } finally {
        closeSync(fd);
      }
    } catch {
      // A log sivtr may not write: readers still leave out and mask what the rules say.
    }
  }
  return kept;
}

/** Valid entry spans of a log, reusing and refreshing the offsets cache. */
export function scanLogOffsets(logPath: string, env: Env): LogScan {
  const rules = activeCaptureRules();
  // Spans cached under other rules may hold what these keep out: rescan (and scrub) the whole log.
  const rulesKey = rules ? JSON.stringify(rules.data) : '';
  const fd = openSync(logPath, 'r');
  try {
    const size = fstatSync(fd).size;
    const file = cachePath(logPath, env);
    const cached = readCache(file, logPath);
    let known: ArrayLike<number> = [];
    const counts = { skipped: 0 };
    let from = 0;
    if (
      cached &&
      (cached.rules ?? '') === rulesKey &&
      cached.scannedTo <= size &&
      cached.head === probe(fd, 0, Math.min(PROBE, cached.scannedTo)) &&
      cached.tail === probe(fd, Math.max(0, cached.scannedTo - PROBE), cached.scannedTo)
    ) {
      known = decodeSpans(cached.spans);
      counts.skipped = cached.skipped;
      from = cached.scannedTo;
    }
    const rest = Buffer.alloc(size - from);
    const n = rest.length > 0 ? readSync(fd, rest, 0, rest.length, from) : 0;
    const body = rest.subarray(0, n);
    let added: number[] = [];
    // Only whole lines go into the cache; an unterminated last line is judged afresh each time.
    const consumed = scanBytes(body, from, added, counts, false);
    if (rules && added.length > 0) added = scrubSpans(logPath, body, from, added, rules);
    const scannedTo = from + consumed;
    const whole = added.length === 0 ? known : [...Array.from(known), ...added];
    if (!cached || scannedTo !== cached.scannedTo || (cached.rules ?? '') !== rulesKey) {
      writeCache(file, {
        v: VERSION,
        path: logPath,
        scannedTo,
        head: probe(fd, 0, Math.min(PROBE, scannedTo)),
        tail: probe(fd, Math.max(0, scannedTo - PROBE), scannedTo),
        skipped: counts.skipped,
        spans: encodeSpans(whole),
        ...(rulesKey ? { rules: rulesKey } : {}),
      });
    }
    let unterminated: number[] = [];
    scanBytes(body.subarray(consumed), scannedTo, unterminated, counts, true);
    if (rules && unterminated.length > 0) {
      // Still being written: not rewritten, only left out when ignored (readSpan masks the rest).
      const raw = parseRawEntryLine(body.toString('utf8', consumed, body.length));
      if (raw && rules.ignores(raw.command)) unterminated = [];
    }
    return { spans: unterminated.length === 0 ? whole : [...Array.from(whole), ...unterminated], skipped: counts.skipped, size };
  } finally {
    closeSync(fd);
  }
}

/** Reads the raw entry of the i-th valid line back from the log. */
export function readSpan(logPath: string, scan: LogScan, i: number): RawEntry {
  const start = scan.spans[2 * i]!;
  const end = Math.abs(scan.spans[2 * i + 1]!);
  const fd = openSync(logPath, 'r');
  try {
    const buf = Buffer.alloc(end - start);
    readSync(fd, buf, 0, buf.length, start);
    const raw = parseRawEntryLine(buf.toString('utf8'));
    if (!raw) throw new Error(`log changed while reading ${logPath}`);
    // An ignored command reaches here only from a log cached before the rule: say so, show nothing.
    return applyCaptureRules(raw, activeCaptureRules()) ?? { prompt: '', command: KEPT_OUT, output: '' };
  } finally {
    closeSync(fd);
  }
}

/** Records in a log, from the offsets cache (only appended lines are parsed). */
export function recordCount(logPath: string, env: Env): number {
  const scan = scanLogOffsets(logPath, env);
  let n = 0;
  for (let i = 0; i < spanCount(scan); i++) if (spanIsRecord(scan, i)) n++;
  return n;
}

/** A log as listed: its path and the size and mtime one stat gave. */
export type ListedLog = { path: string; size: number; mtimeMs: number };

/** Every listed log's count as [size, mtime, records], under the capture rules it was counted with. */
type CountsFile = { v: number; rules: string; logs: Record<string, [size: number, mtime: number, records: number]> };

const countsPath = (env: Env): string => join(dataDir(env), 'cache', 'logs', 'counts.json');

/**
 * Records in each log (undefined: unreadable). A log with the size and mtime it had when it was
 * last counted has its old count, the index's own rule for an unchanged file; the others are
 * counted from their offsets cache. One small file for all logs: opening and checking every log's
 * offsets cache was ~10 ms of `sessions` for twenty logs.
 */
export function recordCounts(logs: readonly ListedLog[], env: Env): (number | undefined)[] {
  const rules = activeCaptureRules();
  const rulesKey = rules ? JSON.stringify(rules.data) : '';
  const file = countsPath(env);
  let known: CountsFile['logs'] = {};
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as CountsFile;
    if (c.v === VERSION && c.rules === rulesKey && c.logs !== null && typeof c.logs === 'object') known = c.logs;
  } catch {
    // none yet, or unreadable: count every log
  }
  const now: CountsFile['logs'] = {};
  let changed = false;
  const counts = logs.map((log) => {
    const old = known[log.path];
    if (Array.isArray(old) && old[0] === log.size && old[1] === log.mtimeMs && Number.isInteger(old[2])) {
      now[log.path] = old;
      return old[2];
    }
    changed = true;
    try {
      const n = recordCount(log.path, env);
      now[log.path] = [log.size, log.mtimeMs, n];
      return n;
    } catch {
      return undefined;
    }
  });
  if (changed || Object.keys(known).length !== logs.length) {
    try {
      writeFileAtomic(file, JSON.stringify({ v: VERSION, rules: rulesKey, logs: now } satisfies CountsFile), { mode: 0o600, privateDir: true });
    } catch {
      // A read-only data dir only costs speed.
    }
  }
  return counts;
}

/** Drops the cached offsets of a log whose lines were changed in place (salvage). */
export function forgetLogOffsets(logPath: string, env: Env = process.env): void {
  try {
    rmSync(cachePath(logPath, env), { force: true });
  } catch {
    // A cache that cannot be removed is re-validated by its probes; at worst a stale count.
  }
}
