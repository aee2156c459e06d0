// Brings an IndexDb up to date with every source of the source table, one loop for all of them.
// A source whose fingerprint (what it reads, e.g. the stats of its folders and files) is as the
// last sync left it is not asked at all; otherwise it lists its sessions, and each session says
// whether it is unchanged since its mark, grew (only its new units are read), or is read again.
// Only units whose content changed are rewritten, in batched transactions.
import { warn } from '../errors.js';
import { allSources } from '../memory/sources.js';
import type { IndexPlan, SessionChange, SessionMark, Source } from '../memory/types.js';
import { count } from '../plural.js';
import { unitDoc, type UnitDoc } from './docs.js';
import { packUnitsAsync, type IndexDb, type PackedChunk, type ReplacePlan } from './index-db.js';

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
};

export const newSyncStats = (): SyncStats => ({
  filesSeen: 0, filesUnchanged: 0, filesAppended: 0, filesReparsed: 0, linesParsed: 0, unitsWritten: 0, unitsKept: 0, sessionsRemoved: 0,
});

export type Progress = { total(n: number): void; step(): void; done(): void };

const watchKey = (source: Source): string => `watch:${source.name}`;

/** The marks of a source's sessions, by the key the source gave them. */
function marksOf(index: IndexDb, source: Source): Map<string, SessionMark> {
  const prefix = `${source.name}:`;
  const marks = new Map<string, SessionMark>();
  for (const { key, ...mark } of index.filesWithPrefix(prefix).values()) marks.set(key.slice(prefix.length), mark);
  return marks;
}

type Read = Extract<SessionChange, { kind: 'read' }>;
type Pending = { change: Read; docs: UnitDoc[]; packed?: PackedChunk[]; prepared?: { plan: ReplacePlan; packed: PackedChunk[] }; ready: Promise<void> };

/** Characters of unit text in flight: reading goes on while they are deflated, up to this much. */
const MAX_PENDING_CHARS = 32 * 1024 * 1024;
/** A batch is written at least this often, so an interrupted build loses at most about this much work. */
const MAX_PENDING_MS = 1000;

/**
 * Sessions read but not yet written: written together, so ten thousand small ones are not ten
 * thousand transactions. Their chunks are deflated on the thread pool while the next sessions are
 * read; a flush waits for them.
 */
class WriteBatch {
  private pending: Pending[] = [];
  private units = 0;
  private chars = 0;
  private since = 0;

  constructor(
    private readonly index: IndexDb,
    private readonly source: string,
    private readonly stats: SyncStats,
  ) {}

  async add(change: Read): Promise<void> {
    const docs = change.units.map((u) => unitDoc(u, change.fallbackAt));
    const entry = { change, docs } as Pending;
    entry.ready =
      change.how === 'append'
        ? packUnitsAsync(docs, this.index.persistent).then((packed) => void (entry.packed = packed))
        : this.index.prepareReplace(this.source, change.session.id, docs).then((prepared) => void (entry.prepared = prepared));
    entry.ready.catch(() => {}); // awaited (and its failure thrown) by flush; not unhandled meanwhile
    if (this.pending.length === 0) this.since = Date.now();
    this.pending.push(entry);
    this.units += docs.length;
    for (const d of docs) for (const p of d.parts) this.chars += p.text.length;
    if (this.pending.length >= 256 || this.units >= 4096 || this.chars >= MAX_PENDING_CHARS || Date.now() - this.since >= MAX_PENDING_MS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    await Promise.all(this.pending.map((p) => p.ready));
    const { index, stats } = this;
    index.writing(() => {
      for (const { change, docs, packed, prepared } of this.pending) {
        const key = change.mark ? `${this.source}:${change.mark.key}` : undefined;
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
          stats.unitsWritten += docs.length;
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

type SourcePlan = { source: Source; plan: IndexPlan };

async function applyPlan(index: IndexDb, { source, plan }: SourcePlan, stats: SyncStats, progress: Progress): Promise<void> {
  const present = new Set<string>();
  const failures: string[] = [];
  const batch = new WriteBatch(index, source.name, stats);
  for (const session of plan.sessions) {
    present.add(session.id);
    stats.filesSeen++;
    let change: SessionChange;
    try {
      change = await session.update();
    } catch (error) {
      change = { kind: 'failed', why: `${session.id} (${(error as { code?: string }).code ?? (error as Error).message})` };
    }
    if (change.kind === 'unchanged') stats.filesUnchanged++;
    else if (change.kind === 'failed') failures.push(change.why);
    else {
      stats.linesParsed += change.lines ?? 0;
      await batch.add(change);
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
  try {
    for (const source of only?.sources ?? allSources()) {
      const marks = marksOf(index, source);
      const previous = index.persistent ? (index.meta(watchKey(source)) ?? '') : '';
      if (previous !== '' && source.index.unchangedSince(previous, env, marks)) {
        stats.filesSeen += marks.size;
        stats.filesUnchanged += marks.size;
        continue;
      }
      try {
        const plan = await source.index.plan({ env, persistent: index.persistent, previous, mark: (key) => marks.get(key) });
        plans.push({ source, plan });
      } catch (error) {
        warn(`cannot list ${source.name} sessions (${(error as Error).message}) — searching the other sources`);
      }
    }
    // Everything to read is known before the first bar is drawn, so the bar only moves forward.
    progress.total(plans.reduce((n, p) => n + p.plan.sessions.length, 0));
    for (const plan of plans) await applyPlan(index, plan, stats, progress);
  } finally {
    for (const { plan } of plans) plan.close?.();
  }
  progress.done();
  return stats;
}
