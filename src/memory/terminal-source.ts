// The terminal as a source: each log is a session, each record a unit with fixed parts
// p1 prompt, p2 command, p3 output.
import { basename } from 'node:path';
import { SivtrError } from '../errors.js';
import { isEntryShape, isRecord, MAY_NEED_NORMALISING, normalAsIs, normaliseRaw, parseRawEntryLine, recordTitle, type RawEntry, type SessionEntry } from '../session/entry.js';
import { activeCaptureRules, applyCaptureRules } from '../session/capture-rules.js';
import { compareFile, edgesOf, filesUnchanged, pathsFingerprint, pathsUnchanged, type FileMark } from '../session/file-mark.js';
import { jsonlWindowsSync, parseWholeLines } from '../session/jsonl.js';
import { currentTerminalLog, listTerminalLogs, scanLogSpans, type TerminalLogInfo } from '../session/log.js';
import { readSpan, recordCounts, spanCount, spanIsRecord, type LogScan } from '../session/log-offsets.js';
import { terminalsDir } from '../session/paths.js';
import { displayIds, matchId } from './display-id.js';
import { formatRef } from './ref.js';
import type { IndexContext, IndexPlan, ListOptions, OpenedSession, Part, RecordVisitor, SessionChange, SessionInfo, Source, SourceIndex, Unit } from './types.js';

const logId = (path: string): string => basename(path).replace(/\.jsonl$/, '');

function partsOf(entry: SessionEntry): Part[] {
  return [
    { n: 1, kind: 'prompt', text: entry.prompt, ansi: entry.prompt_ansi },
    entry.command_shown !== undefined ? { n: 2, kind: 'command', text: entry.command, shown: entry.command_shown } : { n: 2, kind: 'command', text: entry.command },
    { n: 3, kind: 'output', text: entry.output, ansi: entry.output_ansi },
  ];
}

const titleOf = recordTitle;

function withMetadata(unit: Unit, entry: Pick<SessionEntry, 'ended_at' | 'cwd' | 'exit_code' | 'duration_ms'>): Unit {
  if (entry.ended_at !== undefined) unit.at = entry.ended_at;
  if (entry.cwd !== undefined) unit.cwd = entry.cwd;
  if (entry.exit_code !== undefined) unit.exitCode = entry.exit_code;
  if (entry.duration_ms !== undefined) unit.durationMs = entry.duration_ms;
  return unit;
}

export function entryToUnit(entry: SessionEntry, index: number, session: string): Unit {
  const unit: Unit = { ref: formatRef('terminal', session, index), source: 'terminal', session, index, parts: partsOf(entry), title: titleOf(entry) };
  return withMetadata(unit, entry);
}

/** A record whose parts, title and ref are made from its entry when asked for. */
abstract class EntryUnit implements Unit {
  constructor(
    readonly session: string,
    readonly index: number,
  ) {}
  protected abstract get entry(): SessionEntry;
  get source(): string {
    return 'terminal';
  }
  get ref(): string {
    return formatRef('terminal', this.session, this.index);
  }
  get parts(): Part[] {
    return partsOf(this.entry);
  }
  get title(): string {
    return titleOf(this.entry);
  }
  get at(): string | undefined {
    return this.entry.ended_at;
  }
  get cwd(): string | undefined {
    return this.entry.cwd;
  }
  get exitCode(): number | undefined {
    return this.entry.exit_code;
  }
  get durationMs(): number | undefined {
    return this.entry.duration_ms;
  }
}

/** A record read from its log only when its text or metadata is asked for. */
class LazyTerminalUnit extends EntryUnit {
  // `declare`: no per-instance field definitions; a 10,000-record log builds 10,000 of these.
  declare private cached: SessionEntry | undefined;
  constructor(
    session: string,
    index: number,
    private readonly path: string,
    private readonly scan: LogScan,
  ) {
    super(session, index);
  }
  protected get entry(): SessionEntry {
    return (this.cached ??= normaliseRaw(readSpan(this.path, this.scan, this.index - 1)));
  }
}

/**
 * A record the index has just read: it packs each one once, so its parts and title are made
 * then and dropped, rather than kept (with a ref) for every record of a log until it is written.
 */
class ReadTerminalUnit extends EntryUnit {
  constructor(
    session: string,
    index: number,
    protected readonly entry: SessionEntry,
  ) {
    super(session, index);
  }
}

/** Units of a log file, reading only the records that are used. */
export function logUnits(path: string, session: string, env: NodeJS.ProcessEnv): Unit[] {
  const scan = scanLogSpans(path, env);
  const count = spanCount(scan);
  const records = new Int32Array(count);
  let n = 0;
  for (let i = 0; i < count; i++) if (spanIsRecord(scan, i)) records[n++] = i;
  return lazyArray(n, (k) => new LazyTerminalUnit(session, records[k]! + 1, path, scan));
}

/**
 * An array whose elements are made on first access. `copy out` on a 10,000-record log reads one
 * element; building all of them up front was a tenth of the command's run time.
 */
function lazyArray<T extends object>(length: number, make: (index: number) => T): T[] {
  const made: T[] = new Array<T>(length);
  const index = (key: string | symbol): number | undefined => {
    if (typeof key !== 'string' || !/^(0|[1-9]\d*)$/.test(key)) return undefined;
    const i = Number(key);
    return i < length ? i : undefined;
  };
  return new Proxy(made, {
    get(target, key, receiver) {
      const i = index(key);
      if (i === undefined) return Reflect.get(target, key, receiver);
      return (target[i] ??= make(i));
    },
    has(target, key) {
      return index(key) !== undefined || Reflect.has(target, key);
    },
    getOwnPropertyDescriptor(target, key) {
      const i = index(key);
      if (i === undefined) return Reflect.getOwnPropertyDescriptor(target, key);
      return { value: (target[i] ??= make(i)), writable: true, enumerable: true, configurable: true };
    },
  });
}

function infoFor(log: { id: string; path: string; mtimeMs?: number }, displayId: string, units?: number): SessionInfo {
  const info: SessionInfo = { source: 'terminal', id: log.id, displayId, location: log.path };
  if (log.mtimeMs !== undefined) info.updatedAt = new Date(log.mtimeMs).toISOString();
  if (units !== undefined) info.units = units;
  return info;
}

/** A log brought up to date: unchanged, its appended lines only, or read again whole. */
async function updateLog(log: TerminalLogInfo, old: FileMark | undefined, visit?: RecordVisitor): Promise<SessionChange> {
  const change = compareFile(log.path, log.size, log.mtimeMs, old);
  if (change === 'unchanged') return { kind: 'unchanged' };
  const grew = change === 'appended' && old !== undefined;
  let start = grew ? old.parsed_bytes : 0;
  let positions = grew ? old.positions : 0;
  let lines = 0;
  const rules = activeCaptureRules();
  const units: Unit[] = [];
  // A record handed to `visit` whose line holds nothing normalising would change (tested once
  // for many lines) is handed over as parsed: most records, and normalising each field of each was a
  // seventh of a cold build. With capture rules every record goes through them and normalising.
  const hint = visit && !rules ? MAY_NEED_NORMALISING : undefined;
  // Positions count valid entries only, exactly as `show` numbers records.
  const take = (raw: RawEntry | undefined, terminated: boolean, end: number, hinted: boolean | undefined): void => {
    lines++;
    if (visit && hint && !hinted && raw && normalAsIs(raw)) {
      positions++;
      start = end;
      if (isRecord(raw)) visit(raw, positions);
      return;
    }
    // The rules' verdict, as the log spans give it: an ignored command holds no position.
    const allowed = raw && applyCaptureRules(raw, rules);
    const entry = allowed && normaliseRaw(allowed);
    if (!entry) {
      if (raw || terminated) start = end; // a bad line stays bad; an unterminated one may still be completed
      return;
    }
    positions++;
    start = end;
    if (!isRecord(entry)) return;
    if (visit) visit(entry, positions);
    else units.push(new ReadTerminalUnit(log.id, positions, entry));
  };
  for (const w of jsonlWindowsSync(log.path, { start, hint })) {
    if (!w.lines) {
      take(parseRawEntryLine(w.text), w.terminated, w.end, w.hinted);
      continue;
    }
    const { text } = w;
    // A window the hint found nothing in, whose lines are plain entries, is parsed in one call.
    const values = visit && hint && !w.hinted ? parseWholeLines(text) : undefined;
    if (values) {
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        take(isEntryShape(v) ? v : undefined, true, w.end, false);
      }
      continue;
    }
    // Every line of a window is terminated, so the log is read to its end once its last line is taken.
    for (let at = 0; at < text.length; ) {
      const nl = text.indexOf('\n', at);
      const line = text.slice(at, nl);
      take(parseRawEntryLine(line), true, w.end, w.hinted && hint!.test(line));
      at = nl + 1;
    }
  }
  return {
    kind: 'read',
    session: { id: log.id, updatedAt: new Date(log.mtimeMs).toISOString(), location: log.path },
    units,
    how: grew ? 'append' : 'replace',
    grew,
    mark: { key: log.path, now: { ...edgesOf(log.path, log.size, log.mtimeMs), parsed_bytes: start, positions }, since: old },
    lines,
  };
}

/** The terminals folder and every log in it: a new log changes the folder, a new line its log. */
const terminalIndex: SourceIndex = {
  unchangedSince: (fingerprint, env, stamps, probe) => pathsUnchanged(fingerprint, terminalsDir(env), probe) && filesUnchanged(stamps),
  async plan(ctx: IndexContext): Promise<IndexPlan> {
    const dir = terminalsDir(ctx.env);
    const logs = listTerminalLogs(ctx.env);
    return {
      fingerprint: pathsFingerprint(dir, [dir]),
      sessions: logs.map((log) => ({ id: log.id, update: (visit?: RecordVisitor) => updateLog(log, ctx.mark(log.path), visit) })),
    };
  },
};

export const terminalSource: Source = {
  name: 'terminal',
  unitKind: 'record',
  index: terminalIndex,

  /** This terminal's records. */
  async recentRecords(opts: ListOptions): Promise<Unit[]> {
    return (await terminalSource.open('current', opts)).units;
  },

  async list(opts: ListOptions): Promise<SessionInfo[]> {
    const logs = listTerminalLogs(opts.env);
    const ids = displayIds(logs.map((l) => l.id));
    // An unreadable log is listed without a count.
    const counts = recordCounts(logs, opts.env);
    return logs.map((log, i) => infoFor(log, ids.get(log.id)!, counts[i]));
  },

  async open(key: string, opts: ListOptions): Promise<OpenedSession> {
    const logs = listTerminalLogs(opts.env);
    let log: Pick<TerminalLogInfo, 'id' | 'path'> & { mtimeMs?: number };
    if (key === 'current') {
      const path = currentTerminalLog(opts.env, logs);
      log = logs.find((l) => l.path === path) ?? { id: logId(path), path };
    } else {
      const matches = matchId(logs, key);
      if (matches.length === 0) {
        throw new SivtrError(`no terminal session "${key}"`, 'list them with `sivtr sessions terminal --global`');
      }
      if (matches.length > 1) {
        const names = matches.slice(0, 10).map((m) => m.id).join(', ');
        throw new SivtrError(`terminal session "${key}" is ambiguous (${names})`, 'type more characters of the id');
      }
      log = matches[0]!;
    }
    const ids = displayIds([...logs.map((l) => l.id), log.id]);
    const displayId = ids.get(log.id)!;
    const units = logUnits(log.path, displayId, opts.env);
    return { info: infoFor(log, displayId, units.length), units };
  },
};
