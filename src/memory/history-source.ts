// History as a memory source: each capture is a session of one record, addressed `history/<id>`
// (also `history/<id>/1[/pN]`), with the fixed parts of a terminal record (p1 prompt, p2
// command, p3 output) so copy, show, diff and search treat it exactly like a recorded command;
// `copy history [in|out|cmd] N` counts back through the captures, newest first.
import { SivtrError } from '../errors.js';
import { pathsFingerprint, pathsUnchanged } from '../session/file-mark.js';
import { HistoryStore, type HistoryEntry } from '../session/history-db.js';
import { historyDbForRead } from '../session/paths.js';
import type { IndexContext, IndexPlan, ListOptions, OpenedSession, SessionChange, SessionInfo, Source, SourceIndex, Unit } from './types.js';

export const HISTORY_SOURCE = 'history';

export function historyRef(id: number): string {
  return `${HISTORY_SOURCE}/${id}`;
}

export function historyTitle(entry: HistoryEntry): string {
  if (entry.command !== '') return entry.command;
  const firstLine = entry.output.split('\n').find((l) => l.trim() !== '') ?? '';
  return `(piped) ${firstLine.trim().slice(0, 80)}`;
}

export function historyUnit(entry: HistoryEntry): Unit {
  const unit: Unit = {
    ref: historyRef(entry.id),
    source: HISTORY_SOURCE,
    session: String(entry.id),
    index: 1,
    parts: [
      { n: 1, kind: 'prompt', text: '' },
      { n: 2, kind: 'command', text: entry.command },
      entry.output_ansi !== undefined ? { n: 3, kind: 'output', text: entry.output, ansi: entry.output_ansi } : { n: 3, kind: 'output', text: entry.output },
    ],
    title: historyTitle(entry),
  };
  if (entry.ended_at) unit.at = entry.ended_at;
  if (entry.cwd) unit.cwd = entry.cwd;
  if (entry.exit_code !== undefined) unit.exitCode = entry.exit_code;
  if (entry.duration_ms !== undefined) unit.durationMs = entry.duration_ms;
  return unit;
}

function sessionInfo(entry: HistoryEntry, location: string): SessionInfo {
  const info: SessionInfo = { source: HISTORY_SOURCE, id: String(entry.id), displayId: String(entry.id), title: historyTitle(entry), units: 1, location };
  if (entry.cwd) info.cwd = entry.cwd;
  if (entry.ended_at) info.updatedAt = entry.ended_at;
  return info;
}

const nothingKept = (): SivtrError => new SivtrError('nothing kept in history yet', 'capture an output with `sivtr run CMD` or `CMD | sivtr pipe`');

/** The history entry a ref's session part names: `current` (newest) or an id. */
export function findHistoryEntry(store: HistoryStore, key: string): HistoryEntry {
  const entry = key === 'current' ? store.newest() : /^\d+$/.test(key) ? store.get(Number(key)) : undefined;
  if (entry) return entry;
  if (key === 'current') throw nothingKept();
  throw new SivtrError(`no history entry ${key}`, 'list them with `sivtr history`');
}

function withStore<T>(env: NodeJS.ProcessEnv, use: (store: HistoryStore) => T): T {
  const store = HistoryStore.openForRead(env);
  if (!store) throw nothingKept();
  try {
    return use(store);
  } finally {
    store.close();
  }
}

/** The database file and its WAL: any capture or pruning changes one of them. */
const watched = (path: string): string[] => [path, `${path}-wal`];

/** The newest id the last sync indexed, when it read this same database. */
function indexedUpTo(previous: string, path: string): number {
  try {
    const taken = JSON.parse(previous) as { scope?: string; maxId?: number };
    return taken.scope === path && typeof taken.maxId === 'number' ? taken.maxId : 0;
  } catch {
    return 0;
  }
}

/**
 * Captures are never changed once kept and ids are never reused: every id up to the newest one
 * the last sync saw is unchanged, every later one is new. A database whose newest id went
 * backwards was replaced, and is read again whole.
 */
const historyIndex: SourceIndex = {
  unchangedSince: (fingerprint, env, _stamps, probe) => pathsUnchanged(fingerprint, historyDbForRead(env), probe),
  async plan(ctx: IndexContext): Promise<IndexPlan> {
    const store = HistoryStore.openForRead(ctx.env);
    // Nothing kept yet: the place it will be is the fingerprint, so the next search is not planned again.
    if (!store) return { fingerprint: pathsFingerprint(historyDbForRead(ctx.env), watched(historyDbForRead(ctx.env))), sessions: [] };
    const maxId = store.span().maxId;
    let upTo = indexedUpTo(ctx.previous, store.path);
    if (maxId < upTo) upTo = 0;
    const fingerprint = JSON.stringify({ ...(JSON.parse(pathsFingerprint(store.path, watched(store.path))) as object), maxId });
    const update = async (id: number): Promise<SessionChange> => {
      if (id <= upTo) return { kind: 'unchanged' };
      const entry = store.get(id);
      if (!entry) return { kind: 'failed', why: `${historyRef(id)} (gone while indexing)` };
      const unit = historyUnit(entry);
      return {
        kind: 'read',
        session: { id: String(id), title: unit.title, cwd: entry.cwd, updatedAt: entry.ended_at, location: store.path },
        units: [unit],
        // Replace, not append: a sync cut short before its fingerprint was kept reads these again.
        how: 'replace',
        grew: false,
      };
    };
    return { fingerprint, sessions: store.ids().map((id) => ({ id: String(id), update: () => update(id) })), close: () => store.close() };
  },
};

export const historySource: Source = {
  index: historyIndex,
  name: HISTORY_SOURCE,
  unitKind: 'record',
  sessionIsUnit: true,
  async recentRecords(opts: ListOptions): Promise<Unit[]> {
    const units = withStore(opts.env, (store) => [...store.since(0)].map(historyUnit));
    if (units.length === 0) throw nothingKept();
    return units;
  },
  // Captures are not tied to a workspace the way sessions are: every one is listed.
  async list(opts: ListOptions): Promise<SessionInfo[]> {
    const store = HistoryStore.openForRead(opts.env);
    if (!store) return [];
    try {
      return store.list(Number.MAX_SAFE_INTEGER).map((e) => sessionInfo(e, store.path));
    } finally {
      store.close();
    }
  },
  async open(key: string, opts: ListOptions): Promise<OpenedSession> {
    return withStore(opts.env, (store) => {
      const entry = findHistoryEntry(store, key);
      return { info: sessionInfo(entry, store.path), units: [historyUnit(entry)] };
    });
  },
};
