// The picker's list: terminal records (this terminal's log, and captured history), agent turns
// (of each agent's current session here) and agent sessions, newest first. Records are read from
// their log only when a row, the preview or the query needs them, so the first screen of a
// 10,000-record log reads about a screenful.
import { isOwnCommand } from '../../memory/recent.js';
import { renderParts, replyParts, unitText, type Aspect } from '../../memory/render.js';
import { allSources, findSource } from '../../memory/sources.js';
import { entryToUnit, terminalSource } from '../../memory/terminal-source.js';
import type { ListOptions, OpenedSession, SessionInfo, Source, Unit } from '../../memory/types.js';
import { isRecord, parseEntryLine } from '../../session/entry.js';
import { jsonlLines } from '../../session/jsonl.js';
import { oneLine } from '../output.js';
import type { AspectName, PickEntry } from './types.js';

/** How much of a text the query looks into: search as you type, not a full-text search (that is `sivtr search`). */
const HAY_CHARS = 4096;
const TITLE_CHARS = 300;
/** Sessions listed per agent. */
const SESSIONS_PER_AGENT = 50;

const RECORD_ASPECTS: readonly AspectName[] = ['block', 'input', 'output', 'command'];
const TURN_ASPECTS: readonly AspectName[] = ['turn', 'user', 'reply', 'tool'];
const RECORD_TEXT: Partial<Record<AspectName, Aspect>> = { block: 'block', input: 'input', output: 'output', command: 'command' };

const hay = (...texts: (string | undefined)[]): string => texts.map((t) => (t ?? '').slice(0, HAY_CHARS)).join('\n').toLowerCase();

/** `05-02 09:04` in local time: a row has little room, and the year is rarely in doubt. */
function shortTime(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

function timeMs(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
}

/** A terminal or history record. Everything is read through the unit's own (lazy) getters, once. */
class RecordEntry implements PickEntry {
  readonly kind = 'record';
  readonly tag: string;
  readonly aspects = RECORD_ASPECTS;
  declare private cachedHay: string | undefined;
  declare private cachedTitle: string | undefined;
  constructor(readonly unit: Unit) {
    this.tag = unit.source === 'terminal' ? '$' : unit.source;
  }
  get key(): string {
    return this.unit.ref;
  }
  get ref(): string {
    return this.unit.ref;
  }
  get title(): string {
    return (this.cachedTitle ??= oneLine(this.unit.parts[1]?.shown ?? this.unit.parts[1]?.text ?? this.unit.title, TITLE_CHARS));
  }
  get meta(): string {
    const code = this.unit.exitCode;
    const status = code === undefined || code === 0 ? '' : ` exit ${code}`;
    return `${shortTime(this.unit.at)}${status}`.trim();
  }
  get failed(): boolean {
    return this.unit.exitCode !== undefined && this.unit.exitCode !== 0;
  }
  get haystack(): string {
    return (this.cachedHay ??= hay(this.unit.parts[1]?.text, this.unit.parts[2]?.text));
  }
  get what(): string {
    return this.unit.source === 'terminal' ? `#${this.unit.index} ${oneLine(this.unit.title, 60)}` : this.unit.ref;
  }
  text(aspect: AspectName, ansi: boolean): string {
    return unitText(this.unit, RECORD_TEXT[aspect] ?? 'block', { ansi });
  }
}

function turnText(unit: Unit, aspect: AspectName): string {
  switch (aspect) {
    case 'user':
      return unit.parts.filter((p) => p.kind === 'user').map((p) => p.text).join('\n\n');
    case 'reply':
      return replyParts(unit).map((p) => p.text).join('\n\n');
    case 'tool':
      return renderParts(unit.parts.filter((p) => p.kind === 'tool_output'));
    default:
      // As `sivtr copy claude` copies a turn: the user's message and the reply.
      return renderParts([...unit.parts.filter((p) => p.kind === 'user'), ...replyParts(unit)]);
  }
}

class TurnEntry implements PickEntry {
  readonly kind = 'turn';
  readonly aspects = TURN_ASPECTS;
  readonly key: string;
  readonly title: string;
  readonly meta: string;
  readonly failed = false;
  readonly at: number | undefined;
  declare private cachedHay: string | undefined;
  constructor(readonly unit: Unit) {
    this.key = unit.ref;
    const user = unit.parts.find((p) => p.kind === 'user')?.text ?? unit.title;
    this.title = oneLine(user || unit.title, TITLE_CHARS);
    this.meta = `${shortTime(unit.at)}${unit.complete === false ? ' running' : ''}`.trim();
    this.at = timeMs(unit.at);
  }
  get tag(): string {
    return this.unit.source;
  }
  get ref(): string {
    return this.unit.ref;
  }
  get what(): string {
    return this.unit.ref;
  }
  get haystack(): string {
    return (this.cachedHay ??= hay(this.unit.source, ...this.unit.parts.filter((p) => p.kind === 'user' || p.kind === 'assistant').map((p) => p.text)));
  }
  text(aspect: AspectName): string {
    return turnText(this.unit, aspect);
  }
}

/** An agent session: its text (every turn) is read when it is first previewed or chosen. */
class SessionEntry implements PickEntry {
  readonly kind = 'session';
  readonly aspects: readonly AspectName[] = ['all'];
  readonly key: string;
  readonly ref: string;
  readonly title: string;
  readonly meta: string;
  readonly failed = false;
  readonly haystack: string;
  readonly at: number | undefined;
  declare private loaded: string | undefined;
  constructor(
    private readonly source: Source,
    private readonly info: SessionInfo,
    private readonly opts: ListOptions,
  ) {
    this.ref = `${info.source}/${info.displayId}`;
    this.key = `session:${this.ref}`;
    const turns = info.units === undefined ? '' : ` (${info.units} turn${info.units === 1 ? '' : 's'})`;
    this.title = oneLine(info.title || info.cwd || info.id, TITLE_CHARS) + turns;
    this.meta = shortTime(info.updatedAt);
    this.haystack = hay(info.source, info.title, info.cwd, info.id, 'session');
    this.at = timeMs(info.updatedAt);
  }
  get tag(): string {
    return this.info.source;
  }
  get what(): string {
    return this.ref;
  }
  /** Reads the session; `text` is its whole transcript afterwards. */
  async load(): Promise<void> {
    if (this.loaded !== undefined) return;
    const session = await this.source.open(this.info.id, { ...this.opts, global: true });
    this.loaded = session.units.map((u) => `══ ${u.ref} ══\n${renderParts(u.parts)}`).join('\n\n');
  }
  text(): string {
    return this.loaded ?? `${this.ref}: ${this.title}\n(reading the session…)`;
  }
}

/** Records read for the first paint: a screenful and some, whatever the log's length. */
const FIRST_RECORDS = 200;

/**
 * The newest records of this terminal's log, through its lazy units: each is read on its own,
 * so the first paint of a 10,000-record log reads a couple of hundred.
 */
function terminalFirst(session: OpenedSession, includeSelf: boolean): RecordEntry[] {
  const out: RecordEntry[] = [];
  const units = session.units;
  for (let i = units.length - 1; i >= 0 && out.length < FIRST_RECORDS; i--) {
    const unit = units[i]!;
    if (includeSelf || !isOwnCommand(unit)) out.push(new RecordEntry(unit));
  }
  return out;
}

/** Lines parsed between two turns of the event loop while the whole log is read. */
const LINES_PER_TURN = 200;

/**
 * Every record of the log, newest first, read in one pass (one read per MiB rather than one per
 * record). Records are numbered as `show` numbers them: by their place among the log's valid
 * lines. Keys typed meanwhile are answered every LINES_PER_TURN lines: the lines of one read
 * come through promises alone, which let no key in before the whole MiB (~1,000 records) is parsed.
 */
async function terminalAll(session: OpenedSession, includeSelf: boolean): Promise<RecordEntry[]> {
  const out: RecordEntry[] = [];
  let position = 0;
  let lines = 0;
  for await (const { line } of jsonlLines(session.info.location)) {
    if (++lines % LINES_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const entry = parseEntryLine(line);
    if (!entry) continue;
    position++;
    if (!isRecord(entry)) continue;
    const unit = entryToUnit(entry, position, session.info.displayId);
    if (!includeSelf && isOwnCommand(unit)) continue;
    const record = new RecordEntry(unit);
    // Lower-cased now, while the log is read in the background, rather than by the first key
    // typed after the list is complete, which would otherwise pay for 10,000 of them at once.
    void record.haystack;
    out.push(record);
  }
  return out.reverse();
}

async function openTerminal(opts: ListOptions): Promise<OpenedSession | undefined> {
  try {
    return await terminalSource.open('current', opts);
  } catch {
    return undefined; // no log yet: the picker still shows the agents
  }
}

/** Records of a record source, newest first, sivtr's own read-only commands left out unless asked. */
async function recordEntries(source: Source, opts: ListOptions, includeSelf: boolean): Promise<RecordEntry[]> {
  let units: Unit[];
  try {
    units = (await source.recentRecords?.(opts)) ?? [];
  } catch {
    return []; // no log yet: the picker still shows the agents
  }
  const out: RecordEntry[] = [];
  for (let i = units.length - 1; i >= 0; i--) {
    const unit = units[i]!;
    if (includeSelf || !isOwnCommand(unit)) out.push(new RecordEntry(unit));
  }
  return out;
}

/** Turns of the agent's current session here, and its sessions; nothing when it has none. */
async function agentEntries(source: Source, opts: ListOptions): Promise<PickEntry[]> {
  let sessions: SessionInfo[];
  try {
    sessions = await source.list({ ...opts, limit: SESSIONS_PER_AGENT });
  } catch {
    return [];
  }
  if (sessions.length === 0) return [];
  const out: PickEntry[] = sessions.map((info) => new SessionEntry(source, info, opts));
  try {
    const current = await source.open('current', opts);
    for (const unit of current.units) if (unit.parts.length > 0) out.push(new TurnEntry(unit));
  } catch {
    // an unreadable session: its listing still shows
  }
  return out;
}

const entryTime = (e: PickEntry): number | undefined => (e as { at?: number }).at ?? (e instanceof RecordEntry ? timeMs(e.unit.at) : undefined);

/**
 * Agents' entries (sorted newest first) placed among the records by time. Records of one log
 * are in time order already, so each agent entry finds its place by a binary search that reads
 * a dozen records, not all of them.
 */
export function mergeByTime(records: readonly PickEntry[], others: readonly PickEntry[]): PickEntry[] {
  const sorted = [...others].sort((a, b) => (entryTime(b) ?? 0) - (entryTime(a) ?? 0));
  const out: PickEntry[] = [];
  let r = 0;
  for (const entry of sorted) {
    const t = entryTime(entry) ?? 0;
    // first record (from r on) older than t
    let lo = r;
    let hi = records.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const rt = entryTime(records[mid]!);
      if (rt !== undefined && rt < t) hi = mid;
      else lo = mid + 1;
    }
    for (; r < lo; r++) out.push(records[r]!);
    out.push(entry);
  }
  for (; r < records.length; r++) out.push(records[r]!);
  return out;
}

export type EntrySet = {
  /** Ready for the first paint: this terminal's records (or the named source's). */
  first: PickEntry[];
  /** Everything, agents included: started after the first paint, so reading them does not delay it. */
  later?: () => Promise<PickEntry[]>;
};

/** `source` undefined: everything; a record source: its records; an agent: its turns and sessions. */
export async function pickerEntries(source: string | undefined, opts: ListOptions, includeSelf: boolean): Promise<EntrySet> {
  if (source !== undefined && source !== 'terminal') {
    const s = findSource(source)!;
    if (s.unitKind === 'record') return { first: await recordEntries(s, opts, includeSelf) };
    return { first: mergeByTime([], await agentEntries(s, opts)) };
  }
  const session = await openTerminal(opts);
  const first = session ? terminalFirst(session, includeSelf) : [];
  const allRecords = async (): Promise<PickEntry[]> => (session ? terminalAll(session, includeSelf) : []);
  if (source === 'terminal') return { first, later: allRecords };
  const later = async (): Promise<PickEntry[]> => {
    const terminal = await allRecords();
    const others: PickEntry[] = [];
    for (const s of allSources()) {
      if (s.name === 'terminal') continue;
      others.push(...(s.unitKind === 'record' ? await recordEntries(s, opts, includeSelf) : await agentEntries(s, opts)));
    }
    return others.length === 0 ? terminal : mergeByTime(terminal, others);
  };
  return { first, later };
}
