// Brings an IndexDb up to date with every source of the source table, one loop for all of them.
// A source whose fingerprint (what it reads, e.g. the stats of its folders and files) is as the
// last sync left it is not asked at all; otherwise it lists its sessions, and each session says
// whether it is unchanged since its mark, grew (only its new units are read), or is read again.
// Only units whose content changed are rewritten, in batched transactions.
// A search with nothing new (the usual one) is this check and nothing more: every source's
// fingerprint and the sizes and mtimes of its files (kept as one value per source beside the
// fingerprint, see IndexDb.saveStamps) are read in one query, the folders of agents that are not
// installed are told missing from a listing of the home (PathProbe), and what remains is one
// stat per watched folder and per indexed file — a file that grew changes no folder, so nothing
// cheaper can tell.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { warn } from '../errors.js';
import { home } from '../files.js';
import { PathProbe } from '../session/file-mark.js';
import { allSources } from '../memory/sources.js';
import { activeCaptureRules } from '../session/capture-rules.js';
import type { IndexPlan, SessionChange, SessionMark, Source } from '../memory/types.js';
import { count } from '../plural.js';
import { unitDoc, type UnitDoc } from './docs.js';
import { bytesRead, IndexDb, packUnitsAsync, stampsKey, type PackedChunk, type ReplacePlan } from './index-db.js';
import { storesRecords } from './record-chunks.js';
import { encodeRecords, RecordPacker, type PackedRecords } from './record-pack.js';
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
  /** The file index held nothing before this sync (a first build, or a rebuild): what this process ran is a build's code, not a warm search's. */
  fromEmpty: boolean;
};

export const newSyncStats = (): SyncStats => ({
  filesSeen: 0, filesUnchanged: 0, filesAppended: 0, filesReparsed: 0, linesParsed: 0, unitsWritten: 0, unitsKept: 0, sessionsRemoved: 0, sessionsHelped: 0, fromEmpty: false,
});

/**
 * What a sync tells about its work. `begin` is called once, when the first source that changed is
 * listed again (nothing was written before it; a sync that finds nothing new never calls it).
 */
export type Progress = { begin?(): void; total(n: number): void; step(): void; done(): void };

const watchKey = (source: Pick<Source, 'name'>): string => `watch:${source.name}`;

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
 * read; a flush waits for them. (A terminal log's chunks, small, are compressed at once: record-pack.ts.)
 */
class WriteBatch {
  private pending: Pending[] = [];
  private units = 0;
  private chars = 0;
  private since = 0;
  /** Terminal records are packed as records (record-chunks.ts), agent turns as docs. */
  readonly records: boolean;

  constructor(
    private readonly index: IndexDb,
    private readonly source: string,
    private readonly stats: SyncStats,
  ) {
    this.records = storesRecords(source);
  }

  /**
   * A session read here, or by the helper (its docs and every unit packed already). A log of
   * records read here comes packed as it was read (`streamed`), or as units.
   */
  async add(change: Read, helped?: Required<Omit<HelperResult, 'change'>>, streamed?: PackedRecords): Promise<void> {
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
      let packed = streamed;
      if (packed === undefined) {
        const packer = new RecordPacker(change.fallbackAt);
        for (const unit of units) packer.addUnit(unit);
        packed = packer.finish();
      }
      entry.count = packed.count;
      for (const c of packed.chunks) this.chars += c.nchars;
      entry.packed = encodeRecords(packed, { persistent: this.index.persistent, sourceBytes: bytesRead(change) });
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

/**
 * A session's turn to be written: what reading it gave, once it has been read (here or by the
 * helper); `streamed`: a log's records, packed as they were read here.
 */
type Slot = { outcome?: { change: SessionChange; helped?: HelperResult; streamed?: PackedRecords }; settled: boolean; wait?: Promise<void>; seq?: number; bytes?: number };

/** The bytes of a session's chunks as the helper packed them. */
const packedBytes = (helped: HelperResult): number => (helped.packed ?? []).reduce((n, c) => n + (c.data as Uint8Array).byteLength + (c.records?.byteLength ?? 0) + (c.lead?.text.length ?? 0), 0);

/** Sessions read here ahead of the one to be written next, at most (their units are large). */
const MAX_AHEAD = 32;

/**
 * Sessions given to the helper ahead of the one to be written next, at most, and the bytes of
 * what it gave back for them meanwhile: it reads on while the main thread writes a batch, and
 * what it gives back is packed, far smaller than units.
 */
const HELPER_AHEAD = 256;
const HELPER_AHEAD_BYTES = 64 * 1024 * 1024;

/** A first build that has listed this many sessions starts the helper thread before listing the rest. */
const EARLY_SESSIONS = 32;
/** Sessions the helper has left when the main thread first writes its batch ahead of the end, and the fewest (see applyPlans). */
const END_JOBS = 24;
const END_JOBS_LAST = 4;

/** Milliseconds of listing over which the idle cores are sampled before a thread started early is used (ten ticks of /proc/stat a core). */
const EARLY_DECIDE_MS = 100;

/**
 * Starts the helper thread once a build has run 300 ms (from the start of its listing) with
 * sessions still to read: a search that finds little to do never pays for a thread. Measured
 * here (instructions, callgrind): on
 * 100 agent sessions (105 MB) and 10,000 terminal records the helper takes the main thread from
 * 7.8 G to 4.7 G (it runs 4.4 G itself); on the 10,000 records alone it saves the main thread 10%
 * and costs the process 35% more, its own start and listing being most of a build that small.
 * A second thread only helps when a core is free: on a machine busy with other work it adds its
 * start, its listing and its share of compiling to what the cores must do (measured here with
 * two cores and a load of 5: slower). So the helper is used only if, over those 300 ms, other
 * processes left at least half a core beside our main thread (read from /proc/stat, our own
 * threads' time taken out; where there is none, it is). An index that holds nothing yet (a first build, which reads every source) starts
 * the thread as soon as the listing has found EARLY_SESSIONS sessions, so that loading and
 * compiling its code (a few hundred ms) overlaps the rest of the listing; it is told what to read
 * once the cores have been sampled for EARLY_DECIDE_MS and found free, and ended unused otherwise. SIVTR_INDEX_HELPER_AFTER_MS lets tests start it at once
 * (0, whatever the load) or never (`off`). Started so, the main thread waits until it is ready
 * before reading on: on a busy machine the thread could otherwise be ready only once every
 * session was read, and a test of the helper would then test nothing; and it takes back no
 * session it gave the helper unless SIVTR_INDEX_HELPER_TAKE_BACK=1, so that what the helper read
 * does not depend on how fast each thread ran.
 */
class HelperControl {
  private helper: SyncHelper | undefined;
  private tried = false;
  private started = 0;
  private readonly afterMs: number;
  readonly forced: boolean;
  /** The main thread may take back a session given to the helper that it has not started. */
  readonly takesBack: boolean;
  private cpuAtStart: CpuTimes | undefined;
  private plans: SourcePlan[] = [];
  private enabled = false;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly persistent: boolean,
    allowed: boolean,
  ) {
    const setting = process.env.SIVTR_INDEX_HELPER_AFTER_MS;
    this.forced = setting !== undefined && setting !== 'off';
    this.takesBack = !this.forced || process.env.SIVTR_INDEX_HELPER_TAKE_BACK === '1';
    this.afterMs = !allowed || setting === 'off' ? Infinity : Number(setting ?? 300) || 0;
  }

  /** The listing starts (called only when some source is to be listed: a search with nothing new never reads /proc/stat). */
  listing(): void {
    if (this.started !== 0 || this.afterMs === Infinity) return;
    this.started = Date.now();
    if (!this.forced) this.cpuAtStart = cpuTimes();
  }

  /** A source is listed, `sessions` found so far: a first build large enough starts the thread now. */
  listedSome(emptyIndex: boolean, sessions: number): void {
    if (this.helper || this.forced || this.afterMs === Infinity || !emptyIndex || !this.persistent || sessions < EARLY_SESSIONS || availableParallelism() < 2) return;
    this.helper = SyncHelper.start(this.env);
  }

  /**
   * Everything to read is known: the helper may read these plans' sessions, `helpable` of them
   * (agent sessions; terminal logs stay on the main thread). With fewer than two there is
   * nothing to give it: a build of terminal logs alone that ran past its 300 ms (a loaded
   * machine) started a thread that listed every agent again and read nothing.
   */
  listed(plans: SourcePlan[], helpable: number): void {
    this.plans = plans;
    this.enabled = this.afterMs !== Infinity && helpable >= 2;
    if (!this.enabled) this.stop();
  }

  /** The helper, told what to read now if it is time; undefined when there is none. */
  get(from: SourcePlan, remaining: number): SyncHelper | undefined {
    // A thread started early is paid for: it is put to work once the cores could be sampled.
    const after = this.helper && !this.forced ? Math.min(this.afterMs, EARLY_DECIDE_MS) : this.afterMs;
    if (this.tried || !this.enabled || remaining < 2 || Date.now() - this.started < after) return this.tried ? this.helper : undefined;
    this.tried = true;
    if (!this.forced && !coreFree(this.cpuAtStart, cpuTimes())) {
      this.stop();
      return undefined;
    }
    const sources = this.plans.slice(this.plans.indexOf(from)).filter((p) => !storesRecords(p.source.name)).map((p) => ({ name: p.source.name, previous: p.previous, marks: [...p.marks] }));
    this.helper ??= SyncHelper.start(this.env);
    this.helper?.plan({ persistent: this.persistent, rules: activeCaptureRules()?.data, sources });
    return this.helper;
  }

  /** The helper at work, if there is one. */
  get active(): SyncHelper | undefined {
    return this.tried ? this.helper : undefined;
  }

  stop(): void {
    this.helper?.stop();
    this.helper = undefined;
  }
}

/** `ours`: this process's CPU time (all its threads), in the ticks of /proc/stat (USER_HZ, 100 a second). */
export type CpuTimes = { idle: number; total: number; ours: number };

/** Idle and total time of all cores since boot, from /proc/stat (Linux), and this process's; undefined elsewhere. */
function cpuTimes(): CpuTimes | undefined {
  try {
    const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0]!;
    // cpu user nice system idle iowait irq softirq steal …
    const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if (f.length < 5 || f.some((v) => !Number.isFinite(v))) return undefined;
    const own = process.cpuUsage();
    return { idle: f[3]! + f[4]!, total: f.reduce((a, b) => a + b, 0), ours: (own.user + own.system) / 10_000 };
  } catch {
    return undefined;
  }
}

/**
 * True when, between the two readings, other processes left at least half a core beside the one
 * our main thread takes (or it cannot tell). Our own threads are not counted against it: a helper
 * started early keeps the other core busy loading its code, and would otherwise always find it
 * taken (so there is never a core free on a machine with one).
 */
export function coreFree(before: CpuTimes | undefined, now: CpuTimes | undefined, cores = availableParallelism()): boolean {
  if (!before || !now || now.total - before.total < 10) return true;
  const total = now.total - before.total;
  const others = Math.max(0, total - (now.idle - before.idle) - (now.ours - before.ours));
  return cores - 1 - others / (total / cores) >= 0.5;
}

async function readHere(session: IndexPlan['sessions'][number], packer?: RecordPacker): Promise<SessionChange> {
  try {
    return await session.update(packer?.visit);
  } catch (error) {
    return { kind: 'failed', why: `${session.id} (${(error as { code?: string }).code ?? (error as Error).message})` };
  }
}

/** What writing one source's sessions keeps until its last session is written. */
type SourceWrite = { present: Set<string>; failures: string[]; batch: WriteBatch };

/** Writes the rest of a source's batch and what its listing said: the sessions gone, its fingerprint. */
async function finishSource(index: IndexDb, sp: SourcePlan, w: SourceWrite, stats: SyncStats): Promise<void> {
  const { source, plan } = sp;
  await w.batch.flush();
  if (w.failures.length > 0) warn(`cannot read ${count(w.failures.length, `${source.name} session`)}, e.g. ${w.failures[0]} — they are left out of search`);
  removeMissing(index, source.name, w.present, stats);
  // Unreadable sessions are retried next time rather than trusted as unchanged.
  if (index.persistent && plan.fingerprint !== undefined) {
    const fingerprint = plan.fingerprint;
    index.transaction(() => {
      index.setMeta(watchKey(source), w.failures.length === 0 ? fingerprint : '');
      if (w.failures.length === 0) index.saveStamps(source.name);
    });
  }
}

/**
 * Reads and writes every planned session, source after source, in the order they were listed.
 * One loop over all sources' sessions, so the helper is given the next source's sessions while
 * the main thread writes the last of this one's.
 */
async function applyPlans(index: IndexDb, plans: SourcePlan[], stats: SyncStats, progress: Progress, helpers: HelperControl): Promise<void> {
  const items: { sp: SourcePlan; session: IndexPlan['sessions'][number] }[] = [];
  for (const sp of plans) for (const session of sp.plan.sessions) items.push({ sp, session });
  const slots: Slot[] = [];
  let next = 0; // the first session not yet given to anyone (every one before it was)
  let offered = 0; // where the helper's next session is looked for: it is given agent sessions only
  let aheadBytes = 0; // of what the helper gave back for sessions not yet written
  // Terminal logs stay on this thread, which packs them hot anyway: a helper that read some of
  // them ran the record packer before its optimiser had compiled it there, and each thread
  // compiling both paths took the cores from reading. The helper is given the agent sessions
  // after them from the start.
  // (Nor is it given a session the index holds: its docs cross without their texts, which a
  // rewrite would compare.)
  const helperMay = (i: number): boolean => {
    const { sp, session } = items[i]!;
    return !storesRecords(sp.source.name) && index.sessionRow(sp.source.name, session.id) === undefined;
  };
  const here = async (i: number): Promise<void> => {
    slots[i] = { settled: false };
    while (next < items.length && slots[next] !== undefined) next++;
    // A log of records is packed as it is read: no unit is made per record.
    const packer = storesRecords(items[i]!.sp.source.name) ? new RecordPacker() : undefined;
    const change = await readHere(items[i]!.session, packer);
    slots[i] = { outcome: { change, streamed: packer && change.kind === 'read' ? packer.finish() : undefined }, settled: true };
  };
  /** The first session after `w` (within MAX_AHEAD) the helper was given and has not started, taken back; -1 when there is none. */
  const takeBackAfter = (helper: SyncHelper, w: number): number => {
    for (let k = w + 1; k < items.length && k - w < MAX_AHEAD; k++) {
      const s = slots[k];
      if (s && !s.settled && s.seq !== undefined && helper.takeBack(s.seq)) return k;
    }
    return -1;
  };
  // Sources are finished in their order, those with no session to read included.
  const newWrite = (sp: SourcePlan): SourceWrite => ({ present: new Set(), failures: [], batch: new WriteBatch(index, sp.source.name, stats) });
  let finished = 0;
  const finishUpTo = async (end: number, last?: SourceWrite): Promise<void> => {
    for (; finished < end; finished++) await finishSource(index, plans[finished]!, finished === end - 1 && last ? last : newWrite(plans[finished]!), stats);
  };
  let current: { sp: SourcePlan; write: SourceWrite } | undefined;
  let endJobs = END_JOBS;
  for (let w = 0; w < items.length; w++) {
    const { sp } = items[w]!;
    if (current?.sp !== sp) {
      if (current) await finishUpTo(plans.indexOf(current.sp) + 1, current.write);
      await finishUpTo(plans.indexOf(sp));
      current = { sp, write: newWrite(sp) };
    }
    for (;;) {
      const helper = helpers.get(sp, items.length - next);
      if (helper && helpers.forced) await helper.started();
      if (helper) await helper.heed();
      while (helper?.hasRoom && aheadBytes < HELPER_AHEAD_BYTES) {
        while (offered < items.length && (slots[offered] !== undefined || !helperMay(offered))) offered++;
        if (offered >= items.length || offered - w >= HELPER_AHEAD) break;
        const i = offered++;
        const slot: Slot = { settled: false };
        const { seq, result } = helper.read(items[i]!.sp.source.name, items[i]!.session.id);
        slot.seq = seq;
        slot.wait = result.then((helped) => {
          slot.settled = true;
          if (!helped) return;
          slot.outcome = { change: helped.change, helped };
          slot.bytes = packedBytes(helped);
          aheadBytes += slot.bytes;
        });
        slots[i] = slot;
        while (next < items.length && slots[next] !== undefined) next++;
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
      // Given to the helper, which has not started it: this one is needed next, read it here.
      if (helper && helpers.takesBack && helper.takeBack(slot.seq!)) {
        await here(w);
        break;
      }
      // The helper is reading this one: meanwhile read here one it has not started, or the next
      // one nobody was given, or wait for it.
      const spare = helper && helpers.takesBack ? takeBackAfter(helper, w) : -1;
      if (spare >= 0) await here(spare);
      else if (next < items.length && next - w < MAX_AHEAD) await here(next++);
      else await Promise.race([slot.wait, helper?.nextEvent()]);
    }
    const { change, helped, streamed } = slots[w]!.outcome!;
    aheadBytes -= slots[w]!.bytes ?? 0;
    slots[w] = { settled: true }; // written: let it go
    if (helped) stats.sessionsHelped++;
    current.write.present.add(items[w]!.session.id);
    stats.filesSeen++;
    if (change.kind === 'unchanged') stats.filesUnchanged++;
    else if (change.kind === 'failed') current.write.failures.push(change.why);
    else {
      stats.linesParsed += change.lines ?? 0;
      await current.write.batch.add(change, helped?.docs && helped.packed ? { docs: helped.docs, packed: helped.packed } : undefined, streamed);
    }
    // The end of the build: every session is given out, and each time the helper's share left
    // has halved, what the batch holds is written while it reads on — rather than after its last
    // session, when the main thread alone would write up to a second of both threads' reading.
    const active = helpers.active;
    if (endJobs >= END_JOBS_LAST && active && next === items.length && active.outstanding > 0 && active.outstanding <= endJobs) {
      endJobs = active.outstanding >> 1;
      await current.write.batch.flush();
    }
    progress.step();
  }
  if (current) await finishUpTo(plans.indexOf(current.sp) + 1, current.write);
  await finishUpTo(plans.length);
}

/** Updates every source (or the ones given); returns what it did. */
export async function syncIndex(index: IndexDb, env: NodeJS.ProcessEnv, progress: Progress, only?: { sources?: readonly Source[] }): Promise<SyncStats> {
  const stats = newSyncStats();
  const plans: SourcePlan[] = [];
  let helpers: HelperControl | undefined;
  try {
    const fingerprints = index.persistent ? index.freshnessMeta() : new Map<string, string>();
    const probe = new PathProbe(home(env));
    // Only the source table's own sources can be planned again in another thread.
    helpers = new HelperControl(env, index.persistent, only?.sources === undefined);
    let listed = 0;
    let begun = false;
    for (const source of only?.sources ?? allSources()) {
      const previous = fingerprints.get(watchKey(source)) ?? '';
      if (previous !== '') {
        const kept = IndexDb.parseStamps(fingerprints.get(stampsKey(source.name)));
        const stamps = kept ?? index.stampsOf(source.name);
        if (source.index.unchangedSince(previous, env, stamps, probe)) {
          // An index written before stamps were kept gets them once, so later checks read no file
          // rows; one that cannot be written now (a read-only file) is checked from its rows again.
          if (kept === undefined) {
            try {
              index.saveStamps(source.name);
            } catch {
              // nothing was written: the next check reads the rows
            }
          }
          stats.filesSeen += stamps.paths.length;
          stats.filesUnchanged += stamps.paths.length;
          continue;
        }
      }
      if (!begun) progress.begin?.();
      begun = true;
      helpers.listing();
      const marks = marksOf(index, source);
      try {
        const plan = await source.index.plan({ env, persistent: index.persistent, previous, mark: (key) => marks.get(key), probe });
        plans.push({ source, plan, previous, marks });
        // Terminal logs do not count toward starting the helper early: each is packed on the main
        // thread as it is read, in a few milliseconds, so their number says nothing of the work a
        // thread could take (100 logs of 10,000 records in all: the thread was started, helped
        // with none and cost ~70 ms of CPU). A long build still starts it after its first 300 ms.
        if (!storesRecords(source.name)) listed += plan.sessions.length;
        helpers.listedSome(fingerprints.size === 0, listed);
      } catch (error) {
        warn(`cannot list ${source.name} sessions (${(error as Error).message}) — searching the other sources`);
      }
    }
    // Everything to read is known before the first bar is drawn, so the bar only moves forward.
    const all = plans.reduce((n, p) => n + p.plan.sessions.length, 0);
    stats.fromEmpty = index.persistent && fingerprints.size === 0 && all > 0;
    progress.total(all);
    helpers.listed(plans, plans.reduce((n, p) => (storesRecords(p.source.name) ? n : n + p.plan.sessions.length), 0));
    await applyPlans(index, plans, stats, progress, helpers);
    if (stats.unitsWritten > 0) index.listCommonLeadTerms();
  } finally {
    helpers?.stop();
    for (const { plan } of plans) plan.close?.();
  }
  progress.done();
  return stats;
}
