// Brings an IndexDb up to date with every source of the source table, one loop for all of them.
// A source whose fingerprint (what it reads, e.g. the stats of its folders and files) is as the
// last sync left it is not asked at all; otherwise it lists its sessions, and each session says
// whether it is unchanged since its mark, grew (only its new units are read), or is read again.
// Only units whose content changed are rewritten, in batched transactions.
// A search with nothing new (the usual one) is this check and nothing more: every source's
// fingerprint and every file's size and mtime are read in two queries, the folders of agents
// that are not installed are told missing from a listing of the home (PathProbe), and what
// remains is one stat per watched folder and per indexed file — a file that grew changes no
// folder, so nothing cheaper can tell.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { warn } from '../errors.js';
import { home } from '../files.js';
import { PathProbe, type FileStamp } from '../session/file-mark.js';
import { allSources } from '../memory/sources.js';
import { activeCaptureRules } from '../session/capture-rules.js';
import type { IndexPlan, SessionChange, SessionMark, Source } from '../memory/types.js';
import { count } from '../plural.js';
import { unitDoc, type UnitDoc } from './docs.js';
import { bytesRead, packRecordsAsync, packUnitsAsync, type IndexDb, type PackedChunk, type ReplacePlan } from './index-db.js';
import { storesRecords } from './record-chunks.js';
import { SyncHelper, type HelperResult } from './sync-helper.js';

/** What a sync did: tests read it (SIVTR_INDEX_STATS=1) to prove tails are parsed, not files. */
export type SyncStats = {
  filesSeen: number;
  filesUnchanged: number;
  filesAppended: number;
  filesReparsed: number;
  linesParsed: number;
  unitsWritten: number;
  unitsKept: number;
  sessionsRemoved: number;
  /** Sessions the helper thread read (see sync-helper.ts). */
  sessionsHelped: number;
};

export const newSyncStats = (): SyncStats => ({
  filesSeen: 0, filesUnchanged: 0, filesAppended: 0, filesReparsed: 0, linesParsed: 0, unitsWritten: 0, unitsKept: 0, sessionsRemoved: 0, sessionsHelped: 0,
});

export type Progress = { total(n: number): void; step(): void; done(): void };

const watchKey = (source: Pick<Source, 'name'>): string => `watch:${source.name}`;

/** Every file row's size and mtime, by source and then by the key the source gave them. */
function stampsBySource(index: IndexDb): Map<string, Map<string, FileStamp>> {
  const out = new Map<string, Map<string, FileStamp>>();
  for (const { key, size, mtime } of index.fileStamps()) {
    const colon = key.indexOf(':');
    const source = key.slice(0, colon);
    let stamps = out.get(source);
    if (!stamps) out.set(source, (stamps = new Map()));
    stamps.set(key.slice(colon + 1), { size, mtime });
  }
  return out;
}

const NO_STAMPS: ReadonlyMap<string, FileStamp> = new Map();

/** The marks of a source's sessions, by the key the source gave them. */
function marksOf(index: IndexDb, source: Source): Map<string, SessionMark> {
  const prefix = `${source.name}:`;
  const marks = new Map<string, SessionMark>();
  for (const { key, ...mark } of index.filesWithPrefix(prefix).values()) marks.set(key.slice(prefix.length), mark);
  return marks;
}

type Read = Extract<SessionChange, { kind: 'read' }>;
/**
 * `helped`: read by the helper, whose docs carry no part texts (its chunks hold them). `count`:
 * the session's units read (terminal records have chunks but no docs).
 */
type Pending = { change: Read; docs: UnitDoc[]; count: number; packed?: PackedChunk[]; prepared?: { plan: ReplacePlan; packed: PackedChunk[] }; ready: Promise<void>; helped?: boolean };

/** Characters of unit text in flight: reading goes on while they are compressed, up to this much. */
const MAX_PENDING_CHARS = 32 * 1024 * 1024;
/** A batch is written at least this often, so an interrupted build loses at most about this much work. */
const MAX_PENDING_MS = 1000;

/**
 * Sessions read but not yet written: written together, so ten thousand small ones are not ten
 * thousand transactions. Their chunks are compressed on the thread pool while the next sessions are
 * read; a flush waits for them.
 */
class WriteBatch {
  private pending: Pending[] = [];
  private units = 0;
  private chars = 0;
  private since = 0;
  /** Terminal records are packed as records (record-chunks.ts), agent turns as docs. */
  private readonly records: boolean;

  constructor(
    private readonly index: IndexDb,
    private readonly source: string,
    private readonly stats: SyncStats,
  ) {
    this.records = storesRecords(source);
  }

  /** A session read here, or by the helper (its docs and every unit packed already). */
  async add(change: Read, helped?: Required<Omit<HelperResult, 'change'>>): Promise<void> {
    const { records } = this;
    const docs = helped || records ? (helped?.docs ?? []) : change.units.map((u) => unitDoc(u, change.fallbackAt));
    const units = change.units;
    // The docs and chunks hold all that is written: the units (and the entries behind them) can
    // go before the batch is written, instead of surviving every collection until then.
    const entry: Pending = { change: { ...change, units: [] }, docs, count: records && !helped ? units.length : docs.length, ready: Promise.resolve() };
    if (helped) {
      entry.helped = true;
      const packed = helped.packed.map(asBuffers);
      if (records) entry.count = packed.reduce((n, c) => n + c.count, 0);
      for (const c of packed) this.chars += c.nchars;
      if (change.how === 'append' || records) entry.packed = packed;
      else entry.prepared = { plan: { start: -Infinity, written: docs.length, kept: 0 }, packed };
    } else if (records) {
      const { chunks, ready } = packRecordsAsync(units, change.fallbackAt, { persistent: this.index.persistent, sourceBytes: bytesRead(change) });
      for (const c of chunks) this.chars += c.nchars;
      entry.ready = ready.then((packed) => void (entry.packed = packed));
      entry.ready.catch(() => {}); // awaited (and its failure thrown) by flush
    } else {
      entry.ready =
        change.how === 'append'
          ? packUnitsAsync(docs, { persistent: this.index.persistent, sourceBytes: bytesRead(change) }).then((packed) => void (entry.packed = packed))
          : this.index.prepareReplace(this.source, change.session.id, docs, bytesRead(change)).then((prepared) => void (entry.prepared = prepared));
      entry.ready.catch(() => {}); // awaited (and its failure thrown) by flush; not unhandled meanwhile
    }
    if (this.pending.length === 0) this.since = Date.now();
    this.pending.push(entry);
    this.units += entry.count;
    for (const d of docs) for (const p of d.parts) this.chars += p.text.length;
    if (this.pending.length >= 256 || this.units >= 4096 || this.chars >= MAX_PENDING_CHARS || Date.now() - this.since >= MAX_PENDING_MS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    await Promise.all(this.pending.map((p) => p.ready));
    const { index, stats } = this;
    index.writing(() => {
      for (const { change, docs, count, packed, prepared, helped } of this.pending) {
        const key = change.mark ? `${this.source}:${change.mark.key}` : undefined;
        // The helper is given only sessions the index did not hold; if one is there now, another
        // search wrote it meanwhile (and the helper's docs, without their texts, could not be compared).
        if (helped && index.sessionRow(this.source, change.session.id) !== undefined) {
          stats.filesUnchanged++;
          continue;
        }
        if (key !== undefined) {
          // Another search may have indexed this session while we read it: then it is done already.
          const now = index.file(key);
          const since = change.mark!.since;
          if (now?.parsed_bytes !== since?.parsed_bytes || now?.size !== since?.size) {
            stats.filesUnchanged++;
            continue;
          }
        }
        const s = change.session;
        const row = index.upsertSession({ source: this.source, id: s.id, title: s.title ?? null, cwd: s.cwd ?? null, updatedAt: s.updatedAt ?? null, location: s.location });
        if (change.how === 'append') {
          index.writePacked(row, packed!);
          stats.unitsWritten += count;
        } else if (this.records) {
          index.replaceRecords(row, packed!);
          stats.unitsWritten += count;
        } else {
          const { written, kept } = index.replaceUnits(row, docs, prepared);
          stats.unitsWritten += written;
          stats.unitsKept += kept;
        }
        if (change.grew) stats.filesAppended++;
        else stats.filesReparsed++;
        if (key !== undefined) index.setFile({ key, ...change.mark!.now });
      }
    });
    this.pending = [];
    this.units = 0;
    this.chars = 0;
  }
}

/** A chunk that crossed from the helper: its data (its lead's directory, its records) arrive as plain Uint8Arrays. */
function asBuffers(c: PackedChunk): PackedChunk {
  const buffer = (d: Uint8Array): Buffer => (Buffer.isBuffer(d) ? d : Buffer.from(d.buffer, d.byteOffset, d.byteLength));
  const d = c.data as Uint8Array;
  const lead = c.lead && !Buffer.isBuffer(c.lead.dir) ? { ...c.lead, dir: buffer(c.lead.dir) } : c.lead;
  const records = c.records && buffer(c.records);
  return Buffer.isBuffer(d) && lead === c.lead && records === c.records ? c : { ...c, data: buffer(d), lead, ...(records ? { records } : {}) };
}

function removeMissing(index: IndexDb, source: string, present: Set<string>, stats: SyncStats): void {
  const gone = index.sessionsOf(source).filter((s) => !present.has(s.sid));
  if (gone.length === 0) return;
  index.transaction(() => {
    for (const s of gone) {
      index.deleteSession(s.id);
      index.deleteFile(`${source}:${s.location}`);
      stats.sessionsRemoved++;
    }
  });
}

type SourcePlan = { source: Source; plan: IndexPlan; previous: string; marks: Map<string, SessionMark> };

/** A session's turn to be written: what reading it gave, once it has been read (here or by the helper). */
type Slot = { outcome?: { change: SessionChange; helped?: HelperResult }; settled: boolean; wait?: Promise<void> };

/** Sessions read here ahead of one the helper is still reading, at most. */
const MAX_AHEAD = 32;

/**
 * Starts the helper thread once a build has run 300 ms with sessions still to read: a search
 * that finds little to do never pays for a thread. Measured here (instructions, callgrind): on
 * 100 agent sessions (105 MB) and 10,000 terminal records the helper takes the main thread from
 * 7.8 G to 4.7 G (it runs 4.4 G itself); on the 10,000 records alone it saves the main thread 10%
 * and costs the process 35% more, its own start and listing being most of a build that small.
 * A second thread only helps when a core is free: on a machine busy with other work it adds its
 * start, its listing and its share of compiling to what the cores must do (measured here with
 * two cores and a load of 5: slower). So the helper starts only if, over those 300 ms, the
 * cores other than ours were at least half a core idle (read from /proc/stat; where there is
 * none, it starts). SIVTR_INDEX_HELPER_AFTER_MS lets tests start it at once (0, whatever the
 * load) or never (`off`). Started so, the main thread waits until it is ready before reading on:
 * on a busy machine the thread could otherwise be ready only once every session was read, and a
 * test of the helper would then test nothing.
 */
class HelperControl {
  private helper: SyncHelper | undefined;
  private tried = false;
  private readonly started = Date.now();
  private readonly afterMs: number;
  readonly forced: boolean;
  private readonly cpuAtStart: CpuTimes | undefined;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly persistent: boolean,
    private readonly plans: SourcePlan[],
    enabled: boolean,
  ) {
    const setting = process.env.SIVTR_INDEX_HELPER_AFTER_MS;
    this.forced = setting !== undefined && setting !== 'off';
    this.afterMs = !enabled || setting === 'off' ? Infinity : Number(setting ?? 300) || 0;
    // A search with nothing to read (the common case) does not even read /proc/stat.
    this.cpuAtStart = this.afterMs === Infinity || this.forced ? undefined : cpuTimes();
  }

  /** The helper, started now if it is time; undefined when there is none. */
  get(from: SourcePlan, remaining: number): SyncHelper | undefined {
    if (this.tried || remaining < 2 || Date.now() - this.started < this.afterMs) return this.helper;
    this.tried = true;
    if (!this.forced && !coreFree(this.cpuAtStart, cpuTimes())) return undefined;
    const sources = this.plans.slice(this.plans.indexOf(from)).map((p) => ({ name: p.source.name, previous: p.previous, marks: [...p.marks] }));
    this.helper = SyncHelper.start({ env: this.env, persistent: this.persistent, rules: activeCaptureRules()?.data, sources });
    return this.helper;
  }

  stop(): void {
    this.helper?.stop();
  }
}

type CpuTimes = { idle: number; total: number };

/** Idle and total time of all cores since boot, from /proc/stat (Linux); undefined elsewhere. */
function cpuTimes(): CpuTimes | undefined {
  try {
    const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0]!;
    // cpu user nice system idle iowait irq softirq steal …
    const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if (f.length < 5 || f.some((v) => !Number.isFinite(v))) return undefined;
    return { idle: f[3]! + f[4]!, total: f.reduce((a, b) => a + b, 0) };
  } catch {
    return undefined;
  }
}

/** True when, between the two readings, the machine had at least half a core idle (or it cannot tell). */
function coreFree(before: CpuTimes | undefined, now: CpuTimes | undefined): boolean {
  if (!before || !now || now.total - before.total < 10) return true;
  return ((now.idle - before.idle) / (now.total - before.total)) * availableParallelism() >= 0.5;
}

async function readHere(session: IndexPlan['sessions'][number]): Promise<SessionChange> {
  try {
    return await session.update();
  } catch (error) {
    return { kind: 'failed', why: `${session.id} (${(error as { code?: string }).code ?? (error as Error).message})` };
  }
}

async function applyPlan(index: IndexDb, sp: SourcePlan, stats: SyncStats, progress: Progress, helpers: HelperControl, remainingAfter: number): Promise<void> {
  const { source, plan } = sp;
  const present = new Set<string>();
  const failures: string[] = [];
  const batch = new WriteBatch(index, source.name, stats);
  const sessions = plan.sessions;
  const slots: Slot[] = [];
  let next = 0; // the first session not yet given to anyone
  const here = async (i: number): Promise<void> => {
    slots[i] = { settled: false };
    const change = await readHere(sessions[i]!);
    slots[i] = { outcome: { change }, settled: true };
  };
  for (let w = 0; w < sessions.length; w++) {
    for (;;) {
      const helper = helpers.get(sp, sessions.length - next + remainingAfter);
      if (helper && helpers.forced) await helper.started();
      if (helper) await helper.heed();
      while (helper?.hasRoom && next < sessions.length && next - w < MAX_AHEAD && index.sessionRow(source.name, sessions[next]!.id) === undefined) {
        const i = next++;
        const slot: Slot = { settled: false };
        slot.wait = helper.read(source.name, sessions[i]!.id).then((helped) => {
          slot.settled = true;
          if (helped) slot.outcome = { change: helped.change, helped };
        });
        slots[i] = slot;
      }
      const slot = slots[w];
      if (slot === undefined) {
        await here(next++);
        continue;
      }
      if (slot.settled) {
        if (slot.outcome === undefined) await here(w); // the helper could not: read it here
        break;
      }
      // The helper is still reading this one: read the next one here meanwhile, or wait for it.
      if (next < sessions.length && next - w < MAX_AHEAD) await here(next++);
      else await Promise.race([slot.wait, helper?.nextEvent()]);
    }
    const { change, helped } = slots[w]!.outcome!;
    slots[w] = { settled: true }; // written: let it go
    if (helped) stats.sessionsHelped++;
    present.add(sessions[w]!.id);
    stats.filesSeen++;
    if (change.kind === 'unchanged') stats.filesUnchanged++;
    else if (change.kind === 'failed') failures.push(change.why);
    else {
      stats.linesParsed += change.lines ?? 0;
      await batch.add(change, helped?.docs && helped.packed ? { docs: helped.docs, packed: helped.packed } : undefined);
    }
    progress.step();
  }
  await batch.flush();
  if (failures.length > 0) warn(`cannot read ${count(failures.length, `${source.name} session`)}, e.g. ${failures[0]} — they are left out of search`);
  removeMissing(index, source.name, present, stats);
  // Unreadable sessions are retried next time rather than trusted as unchanged.
  if (index.persistent && plan.fingerprint !== undefined) index.setMeta(watchKey(source), failures.length === 0 ? plan.fingerprint : '');
}

/** Updates every source (or the ones given); returns what it did. */
export async function syncIndex(index: IndexDb, env: NodeJS.ProcessEnv, progress: Progress, only?: { sources?: readonly Source[] }): Promise<SyncStats> {
  const stats = newSyncStats();
  const plans: SourcePlan[] = [];
  let helpers: HelperControl | undefined;
  try {
    const fingerprints = index.persistent ? index.metaWithPrefix(watchKey({ name: '' })) : new Map<string, string>();
    const stamps = fingerprints.size > 0 ? stampsBySource(index) : new Map<string, Map<string, FileStamp>>();
    const probe = new PathProbe(home(env));
    for (const source of only?.sources ?? allSources()) {
      const previous = fingerprints.get(watchKey(source)) ?? '';
      const sessions = stamps.get(source.name) ?? NO_STAMPS;
      if (previous !== '' && source.index.unchangedSince(previous, env, sessions, probe)) {
        stats.filesSeen += sessions.size;
        stats.filesUnchanged += sessions.size;
        continue;
      }
      const marks = marksOf(index, source);
      try {
        const plan = await source.index.plan({ env, persistent: index.persistent, previous, mark: (key) => marks.get(key) });
        plans.push({ source, plan, previous, marks });
      } catch (error) {
        warn(`cannot list ${source.name} sessions (${(error as Error).message}) — searching the other sources`);
      }
    }
    // Everything to read is known before the first bar is drawn, so the bar only moves forward.
    const all = plans.reduce((n, p) => n + p.plan.sessions.length, 0);
    progress.total(all);
    // Only the source table's own sources can be planned again in another thread.
    helpers = new HelperControl(env, index.persistent, plans, only?.sources === undefined && all >= 2);
    let remaining = all;
    for (const plan of plans) {
      remaining -= plan.plan.sessions.length;
      await applyPlan(index, plan, stats, progress, helpers, remaining);
    }
  } finally {
    helpers?.stop();
    for (const { plan } of plans) plan.close?.();
  }
  progress.done();
  return stats;
}
