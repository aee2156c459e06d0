// Brings an IndexDb up to date with the sources: terminal logs, history and every registered
// agent provider. Each source file is fingerprinted (size, mtime, hash of head and tail): an
// unchanged file costs one stat; a terminal log that only grew is parsed from where the last
// run stopped; anything else is re-read, and only units whose content changed are rewritten.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, isAbsolute, sep } from 'node:path';
import { ListingCache } from '../agents/listing-cache.js';
import { allProviders } from '../agents/registry.js';
import type { AgentSession, Provider, SessionSummary, SummaryMemo } from '../agents/types.js';
import { warn } from '../errors.js';
import { sessionUnits } from '../memory/agent-units.js';
import { entryToUnit } from '../memory/terminal-source.js';
import { isRecord, parseEntryLine } from '../session/entry.js';
import { jsonlLines } from '../session/jsonl.js';
import { listTerminalLogs, type TerminalLogInfo } from '../session/log.js';
import { unitDoc, type UnitDoc } from './docs.js';
import { HistoryStore } from './history.js';
import { HISTORY_SOURCE, historyUnit } from './history-source.js';
import { packUnitsAsync, type FileRow, type IndexDb } from './index-db.js';
import { count } from '../plural.js';

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

const EDGE = 4096;

function hashRange(fd: number, start: number, length: number): string {
  const buf = Buffer.alloc(Math.max(0, length));
  const read = length > 0 ? readSync(fd, buf, 0, length, start) : 0;
  return createHash('sha1').update(buf.subarray(0, read)).digest('base64');
}

type Fingerprint = { size: number; mtime: number; head: string; tail: string };

/** Head hash over the first 4 KB, tail hash over the 4 KB that end at `size`. */
function fingerprint(path: string, size: number, mtime: number): Fingerprint {
  const fd = openSync(path, 'r');
  try {
    return { size, mtime, head: hashRange(fd, 0, Math.min(EDGE, size)), tail: hashRange(fd, Math.max(0, size - EDGE), Math.min(EDGE, size)) };
  } finally {
    closeSync(fd);
  }
}

/** True when the file still starts as it did and holds the old bytes before its new ones. */
function onlyGrew(path: string, old: FileRow, size: number): boolean {
  if (size <= old.size) return false;
  const fd = openSync(path, 'r');
  try {
    return hashRange(fd, 0, Math.min(EDGE, old.size)) === old.head && hashRange(fd, Math.max(0, old.size - EDGE), Math.min(EDGE, old.size)) === old.tail;
  } finally {
    closeSync(fd);
  }
}

type Change = 'unchanged' | 'appended' | 'rewritten' | 'new';

function classify(index: IndexDb, key: string, path: string, size: number, mtime: number, known?: Map<string, FileRow>): { change: Change; old?: FileRow } {
  const old = known ? known.get(key) : index.file(key);
  if (!old) return { change: 'new' };
  if (old.size === size && old.mtime === mtime) return { change: 'unchanged', old };
  return { change: onlyGrew(path, old, size) ? 'appended' : 'rewritten', old };
}

// ── terminal logs ───────────────────────────────────────────────────────────

async function syncTerminalLog(index: IndexDb, log: TerminalLogInfo, stats: SyncStats): Promise<void> {
  const key = `terminal:${log.path}`;
  const { change, old } = classify(index, key, log.path, log.size, log.mtimeMs);
  stats.filesSeen++;
  if (change === 'unchanged') {
    stats.filesUnchanged++;
    return;
  }
  const incremental = change === 'appended' && old !== undefined;
  let start = incremental ? old.parsed_bytes : 0;
  let positions = incremental ? old.positions : 0;
  const docs: UnitDoc[] = [];
  // Positions count valid entries only, exactly as loadLog does, so indexes match `show`.
  for await (const { line, terminated, end } of jsonlLines(log.path, { start })) {
    stats.linesParsed++;
    const entry = parseEntryLine(line);
    if (!entry) {
      if (terminated) start = end; // a bad line stays bad; an unterminated one may still be completed
      continue;
    }
    positions++;
    start = end;
    if (isRecord(entry)) docs.push(unitDoc(entryToUnit(entry, positions, log.id)));
  }
  const packed = incremental ? await packUnitsAsync(docs, index.persistent) : undefined;
  const prepared = incremental ? undefined : await index.prepareReplace('terminal', log.id, docs);
  index.transaction(() => {
    // Another search may have indexed this tail while we parsed it: then it is done already.
    const now = index.file(key);
    if (now?.parsed_bytes !== old?.parsed_bytes || now?.size !== old?.size) {
      stats.filesUnchanged++;
      return;
    }
    const session = index.upsertSession({ source: 'terminal', id: log.id, title: null, cwd: null, updatedAt: new Date(log.mtimeMs).toISOString(), location: log.path });
    if (incremental) {
      index.writePacked(session, packed!);
      stats.unitsWritten += docs.length;
      stats.filesAppended++;
    } else {
      const { written, kept } = index.replaceUnits(session, docs, prepared);
      stats.unitsWritten += written;
      stats.unitsKept += kept;
      stats.filesReparsed++;
    }
    index.setFile({ key, ...fingerprint(log.path, log.size, log.mtimeMs), parsed_bytes: start, positions });
  });
}

async function syncTerminal(index: IndexDb, env: NodeJS.ProcessEnv, stats: SyncStats, progress: Progress): Promise<void> {
  const logs = listTerminalLogs(env);
  const present = new Set(logs.map((l) => l.id));
  for (const log of logs) {
    await syncTerminalLog(index, log, stats);
    progress.step();
  }
  removeMissing(index, 'terminal', present, stats, 'terminal:');
}

function removeMissing(index: IndexDb, source: string, present: Set<string>, stats: SyncStats, keyPrefix?: string): void {
  const gone = index.sessionsOf(source).filter((s) => !present.has(s.sid));
  if (gone.length === 0) return;
  index.transaction(() => {
    for (const s of gone) {
      index.deleteSession(s.id);
      if (keyPrefix) index.deleteFile(keyPrefix + s.location);
      stats.sessionsRemoved++;
    }
  });
}

// ── history ────────────────────────────────────────────────────────────────

function syncHistory(index: IndexDb, env: NodeJS.ProcessEnv, stats: SyncStats): void {
  const store = HistoryStore.openForRead(env);
  if (!store) {
    if (index.meta('history')) removeMissing(index, HISTORY_SOURCE, new Set(), stats);
    if (index.meta('history') !== '') index.setMeta('history', '');
    return;
  }
  try {
    const span = store.span();
    const state = `${store.path}\n${span.maxId}\n${span.minId}\n${span.count}`;
    const previous = index.meta('history') ?? '';
    if (previous === state) return; // nothing captured or pruned since the last search
    const [path, maxText] = previous.split('\n');
    let indexedMax = path === store.path ? Number(maxText) || 0 : 0;
    // A database whose newest id went backwards was replaced: start this source over.
    if (span.maxId < indexedMax) indexedMax = 0;
    index.transaction(() => {
      for (const s of index.sessionsOf(HISTORY_SOURCE)) {
        const id = Number(s.sid);
        // Gone: pruned by retention (below minId), deleted by hand, or from a replaced database.
        if (indexedMax === 0 || id < span.minId || id > indexedMax || !store.get(id)) {
          index.deleteSession(s.id);
          stats.sessionsRemoved++;
        }
      }
      for (const entry of store.since(indexedMax)) {
        const unit = historyUnit(entry);
        const session = index.upsertSession({ source: HISTORY_SOURCE, id: String(entry.id), title: unit.title, cwd: entry.cwd ?? null, updatedAt: entry.ended_at ?? null, location: store.path });
        index.appendUnits(session, [unitDoc(unit)]);
        stats.unitsWritten++;
      }
      index.setMeta('history', state);
    });
  } finally {
    store.close();
  }
}

// ── agent providers ────────────────────────────────────────────────────────

function statFile(location: string): { size: number; mtimeMs: number } | undefined {
  try {
    const st = statSync(location);
    return st.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

type SessionContext = { env: NodeJS.ProcessEnv; stats: SyncStats; failures: string[]; known: Map<string, FileRow>; seen: Map<string, { size: number; mtimeMs: number }> };

async function syncSession(index: IndexDb, provider: Provider, summary: SessionSummary, ctx: SessionContext): Promise<void> {
  const { env, stats, failures } = ctx;
  const key = `${provider.name}:${summary.location}`;
  // The provider stat'ed the file while discovering it (through the memo): no second stat.
  // A database row (`opencode:<id>`) has no file of its own, whatever the memo was told.
  const st = isAbsolute(summary.location) ? (ctx.seen.get(summary.location) ?? statFile(summary.location)) : undefined;
  stats.filesSeen++;
  let change: Change;
  let print: Fingerprint;
  if (st) {
    change = classify(index, key, summary.location, st.size, st.mtimeMs, ctx.known).change;
    if (change !== 'unchanged') print = fingerprint(summary.location, st.size, st.mtimeMs);
  } else {
    // A database-backed session (`opencode:<id>`): its last activity is its fingerprint.
    const old = ctx.known.get(key);
    change = old && old.head === summary.updatedAt ? 'unchanged' : 'rewritten';
    print = { size: 0, mtime: 0, head: summary.updatedAt, tail: '' };
  }
  if (change === 'unchanged') {
    stats.filesUnchanged++;
    return;
  }
  let docs: UnitDoc[];
  let session: AgentSession;
  try {
    session = await provider.load(summary, { env });
    docs = sessionUnits(provider.name, summary.id, session).map((u) => unitDoc(u, session.updatedAt ?? summary.updatedAt));
  } catch (error) {
    failures.push(`${summary.location} (${(error as { code?: string }).code ?? (error as Error).message})`);
    return;
  }
  const prepared = await index.prepareReplace(provider.name, summary.id, docs);
  index.transaction(() => {
    const row = index.upsertSession({
      source: provider.name,
      id: summary.id,
      title: session.title ?? summary.title ?? null,
      cwd: session.cwd ?? summary.cwd ?? null,
      updatedAt: summary.updatedAt,
      location: summary.location,
    });
    const { written, kept } = index.replaceUnits(row, docs, prepared);
    stats.unitsWritten += written;
    stats.unitsKept += kept;
    if (change === 'appended') stats.filesAppended++;
    else stats.filesReparsed++;
    index.setFile({ key, ...print!, parsed_bytes: print!.size, positions: docs.length });
  });
}

/** Remembers the (mtime, size) a provider saw for each file while discovering through the memo. */
class RecordingMemo implements SummaryMemo {
  readonly seen = new Map<string, { size: number; mtimeMs: number }>();
  constructor(private readonly inner: SummaryMemo | undefined) {}
  summary(location: string, mtimeMs: number, size: number, compute: () => SessionSummary | undefined): SessionSummary | undefined {
    this.seen.set(location, { size, mtimeMs });
    return this.inner ? this.inner.summary(location, mtimeMs, size, compute) : compute();
  }
}

// ── the warm path: a provider whose files and folders did not change is not asked at all ──

type Watch = { root: string; paths: [string, number, number][] };

function statEntry(path: string): [string, number, number] {
  try {
    const st = statSync(path);
    return [path, st.mtimeMs, st.isDirectory() ? 0 : st.size];
  } catch {
    return [path, -1, -1];
  }
}

/** The provider's root, every folder between it and a session file, and (for a database) its WAL. */
function watchPaths(root: string, locations: string[]): string[] {
  const paths = new Set<string>([root, `${root}-wal`]);
  const prefix = root.endsWith(sep) ? root : root + sep;
  for (const location of locations) {
    if (!location.startsWith(prefix)) continue;
    for (let dir = dirname(location); dir.length >= root.length && dir.startsWith(root); dir = dirname(dir)) {
      if (paths.has(dir)) break;
      paths.add(dir);
      if (dir === root) break;
    }
  }
  return [...paths];
}

function unchangedSinceLastSync(index: IndexDb, provider: Provider, root: string, known: Map<string, FileRow>): boolean {
  const text = index.meta(`watch:${provider.name}`);
  if (!text) return false;
  const watch = JSON.parse(text) as Watch;
  if (watch.root !== root) return false;
  for (const [path, mtime, size] of watch.paths) {
    const [, nowMtime, nowSize] = statEntry(path);
    if (nowMtime !== mtime || nowSize !== size) return false;
  }
  const prefix = `${provider.name}:`;
  for (const row of known.values()) {
    const location = row.key.slice(prefix.length);
    if (!isAbsolute(location)) continue; // a database row (`opencode:<id>`): covered by the database's own stat
    const st = statFile(location);
    if (!st || st.size !== row.size || st.mtimeMs !== row.mtime) return false;
  }
  return true;
}

type ProviderPlan = {
  provider: Provider;
  summaries: SessionSummary[];
  ctx: SessionContext;
  /** Taken right after discovery, so a file created while sessions are parsed is not missed. */
  watch?: Watch;
};

/** Decides whether a provider must be read and, if so, discovers its sessions. */
async function planProvider(index: IndexDb, provider: Provider, env: NodeJS.ProcessEnv, stats: SyncStats): Promise<ProviderPlan | undefined> {
  const root = index.persistent ? provider.dataLocation?.(env) : undefined;
  const known = index.filesWithPrefix(`${provider.name}:`);
  if (root !== undefined && unchangedSinceLastSync(index, provider, root, known)) {
    stats.filesSeen += known.size;
    stats.filesUnchanged += known.size;
    return undefined;
  }
  const cache = index.persistent ? ListingCache.load(provider.name, env) : undefined;
  const memo = new RecordingMemo(cache);
  const summaries: SessionSummary[] = [];
  try {
    for await (const summary of provider.discover({ env, memo })) summaries.push(summary);
  } catch (error) {
    warn(`cannot list ${provider.name} sessions (${(error as Error).message}) — searching the other sources`);
    return undefined; // keep what the index already holds for this provider
  }
  cache?.save(true);
  const watch = root === undefined ? undefined : { root, paths: watchPaths(root, summaries.map((s) => s.location)).map(statEntry) };
  return { provider, summaries, ctx: { env, stats, failures: [], known, seen: memo.seen }, watch };
}

async function applyProvider(index: IndexDb, plan: ProviderPlan, progress: Progress): Promise<void> {
  const { provider, summaries, ctx } = plan;
  for (const summary of summaries) {
    await syncSession(index, provider, summary, ctx);
    progress.step();
  }
  if (ctx.failures.length > 0) warn(`cannot read ${count(ctx.failures.length, `${provider.name} session`)}, e.g. ${ctx.failures[0]} — they are left out of search`);
  removeMissing(index, provider.name, new Set(summaries.map((s) => s.id)), ctx.stats, `${provider.name}:`);
  // Unreadable sessions are retried next time rather than trusted as unchanged.
  if (plan.watch) index.setMeta(`watch:${provider.name}`, ctx.failures.length === 0 ? JSON.stringify(plan.watch) : '');
}

/** Updates every source; returns what it did. */
export async function syncIndex(index: IndexDb, env: NodeJS.ProcessEnv, progress: Progress, sources?: { providers?: readonly Provider[] }): Promise<SyncStats> {
  const stats = newSyncStats();
  const plans: ProviderPlan[] = [];
  for (const provider of sources?.providers ?? allProviders()) {
    const plan = await planProvider(index, provider, env, stats);
    if (plan) plans.push(plan);
  }
  // Everything to read is known before the first bar is drawn, so the bar only moves forward.
  progress.total(listTerminalLogs(env).length + plans.reduce((n, p) => n + p.summaries.length, 0));
  await syncTerminal(index, env, stats, progress);
  syncHistory(index, env, stats);
  for (const plan of plans) await applyProvider(index, plan, progress);
  progress.done();
  return stats;
}
