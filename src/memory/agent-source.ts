// One agent provider as a Source: sessions listed newest first (workspace-filtered unless
// global), opened by `current`, a 1-based index, a full id or a unique prefix; turns as units.
import { ListingCache } from '../agents/listing-cache.js';
import { assembleTurns } from '../agents/turns.js';
import { dirname, sep } from 'node:path';
import type { Transcript, Provider, TranscriptSummary, SummaryMemo } from '../agents/types.js';
import { scopeMatcher } from '../agents/workspace.js';
import { SivtrError } from '../errors.js';
import { sessionUnits } from './agent-units.js';
import { compareFile, edgesOf, filesUnchanged, missingPathsFingerprint, pathsFingerprint, pathsUnchanged, statFile, type FileMark } from '../session/file-mark.js';
import { displayIds } from './display-id.js';
import { inputStats, keepListing, keptListing, keptView, keepView, listingKey, type Snapshot } from './listing-snapshot.js';
import type { IndexContext, IndexPlan, ListingView, ListOptions, OpenedSession, SessionChange, SessionInfo, Source, SourceIndex, SourceView, Unit } from './types.js';

type Listing = { summaries: TranscriptSummary[]; ids: Map<string, string>; cache: ListingCache };

/** Every summary a provider discovers, in a plain loop when its discovery never waits (see `Provider.discover`). */
async function eachSummary(found: Iterable<TranscriptSummary> | AsyncIterable<TranscriptSummary>, visit: (s: TranscriptSummary) => void): Promise<void> {
  if (Symbol.iterator in found) {
    for (const s of found) visit(s);
    return;
  }
  for await (const s of found) visit(s);
}

/** Every session of a provider, newest first, one per id (the newest copy wins). */
async function discoverAll(provider: Provider, env: NodeJS.ProcessEnv): Promise<Listing> {
  const cache = ListingCache.load(provider.name, env);
  const byId = new Map<string, TranscriptSummary>();
  await eachSummary(provider.discover({ env, memo: cache }), (s) => {
    const seen = byId.get(s.id);
    if (!seen || s.updatedAt > seen.updatedAt) byId.set(s.id, s);
  });
  cache.save(true);
  const sorted = [...byId.values()].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0)); // not localeCompare: its first call loads ICU (ms)
  const summaries = childrenUnderParents(sorted);
  return { summaries, ids: displayIds(summaries.map((s) => s.id)), cache };
}

/** Newest first, except that a session run inside another (a subagent) follows its parent. */
function childrenUnderParents(sorted: TranscriptSummary[]): TranscriptSummary[] {
  const ids = new Set(sorted.map((s) => s.id));
  const children = new Map<string, TranscriptSummary[]>();
  for (const s of sorted) if (s.parent !== undefined && ids.has(s.parent) && s.parent !== s.id) children.set(s.parent, [...(children.get(s.parent) ?? []), s]);
  if (children.size === 0) return sorted;
  const out: TranscriptSummary[] = [];
  const placed = new Set<string>();
  const place = (s: TranscriptSummary): void => {
    if (placed.has(s.id)) return;
    placed.add(s.id);
    out.push(s);
    for (const c of children.get(s.id) ?? []) place(c);
  };
  for (const s of sorted) if (s.parent === undefined || !ids.has(s.parent)) place(s);
  for (const s of sorted) place(s); // a cycle of parents: still listed once
  return out;
}

function infoOf(provider: Provider, s: TranscriptSummary, listing: Listing): SessionInfo {
  const info: SessionInfo = { source: provider.name, id: s.id, displayId: listing.ids.get(s.id) ?? s.id.slice(0, 8), location: s.location, updatedAt: s.updatedAt };
  if (s.cwd !== undefined) info.cwd = s.cwd;
  // Only the workspace filter reads cwds, and it takes a lone cwd for [cwd]: a listing kept is that much smaller.
  if (s.cwds && s.cwds.length > 0 && !(s.cwds.length === 1 && s.cwds[0] === s.cwd)) info.cwds = s.cwds;
  if (s.title !== undefined) info.title = s.title;
  if (s.parent !== undefined) info.parent = s.parent;
  const turns = listing.cache.turns(s.location);
  if (turns !== undefined) info.units = turns;
  return info;
}

function inWorkspace<T extends Pick<TranscriptSummary, 'cwd' | 'cwds'>>(summaries: T[], opts: ListOptions): T[] {
  const matches = scopeMatcher({ cwd: opts.cwd, subtree: opts.scope });
  return summaries.filter((s) => matches(s.cwds && s.cwds.length > 0 ? s.cwds : s.cwd ? [s.cwd] : undefined));
}

function noSessions(provider: Provider, env: NodeJS.ProcessEnv): SivtrError {
  const where = provider.dataLocation?.(env);
  return new SivtrError(`no ${provider.name} sessions found${where ? ` in ${where}` : ''}`, `run ${provider.name} once, or point its home override at the right place`);
}

function describeCandidate(s: TranscriptSummary): string {
  return `${s.id}${s.title ? ` (${s.title})` : ''}`;
}

/**
 * The sessions `current` and `--session N` count in, one rule for both: this workspace's,
 * newest first, or every session when the workspace has none (or with --global).
 */
function countedSessions(all: TranscriptSummary[], opts: ListOptions): TranscriptSummary[] {
  if (opts.global) return all;
  const here = inWorkspace(all, opts);
  // an explicit subtree (--scope) never falls back to sessions outside it
  return here.length > 0 || opts.scope !== undefined ? here : all;
}

/** `current`, an index, an id or a unique prefix → the session summary it names. */
function choose(provider: Provider, listing: Listing, key: string, opts: ListOptions): TranscriptSummary {
  const all = listing.summaries;
  if (key === 'current') {
    const hint = provider.currentSessionHint?.(opts.env);
    if (hint) {
      const hinted = all.find((s) => s.id === hint || s.aliases?.includes(hint)) ?? all.find((s) => s.location.includes(hint));
      if (hinted) return hinted;
    }
  }
  // Subagent sessions are listed (under their parent) and open by id, but `current` and
  // `--session N` count only the sessions a user ran.
  const ran = all.filter((s) => s.parent === undefined);
  const listed = countedSessions(ran, opts);
  if (key === 'current') {
    if (!listed[0]) throw noSessions(provider, opts.env);
    return listed[0];
  }
  // A small number is the Nth newest (`--session 2`); ids are hex, so a number that is not a
  // valid index may still be an id prefix (`0196`), tried below.
  const asIndex = /^\d{1,4}$/.test(key) ? Number(key) : undefined;
  if (asIndex !== undefined && !key.startsWith('0') && asIndex <= listed.length) return listed[asIndex - 1]!;
  const exact = all.filter((s) => s.id === key || s.aliases?.includes(key));
  if (exact.length > 0) return exact[0]!;
  const prefixed = all.filter((s) => s.id.startsWith(key));
  if (prefixed.length === 1) return prefixed[0]!;
  if (prefixed.length > 1) {
    const shown = prefixed.slice(0, 10).map(describeCandidate).join(', ');
    throw new SivtrError(`${provider.name} session "${key}" is ambiguous: ${shown}${prefixed.length > 10 ? ', …' : ''}`, 'type more characters of the id');
  }
  if (all.length === 0) throw noSessions(provider, opts.env);
  if (asIndex !== undefined) {
    if (asIndex < 1) throw new SivtrError(`session index ${key} is out of range`, 'indices start at 1 (1 = newest)');
    const here = listed === ran ? '' : ' in this workspace';
    const noun = `${provider.name} session${listed.length === 1 ? '' : 's'}`;
    throw new SivtrError(`only ${listed.length} ${noun}${here}, not ${asIndex}`, `list them with \`sivtr sessions ${provider.name}${listed === ran ? ' --global' : ''}\``);
  }
  throw new SivtrError(`no ${provider.name} session "${key}"`, `list them with \`sivtr sessions ${provider.name} --global\``);
}

export type AgentOpened = { info: SessionInfo; session: Transcript; units: Unit[] };

/** A whole session, parsed: what `import PROVIDER/<session>` and refs need. */
export async function openTranscript(provider: Provider, key: string, opts: ListOptions): Promise<AgentOpened> {
  const listing = await discoverAll(provider, opts.env);
  const summary = choose(provider, listing, key, opts);
  const session = await provider.load(summary, { env: opts.env });
  const info = infoOf(provider, summary, listing);
  if (session.title) info.title = session.title;
  if (session.cwd && !info.cwd) info.cwd = session.cwd;
  const units = sessionUnits(provider.name, info.displayId, session);
  info.units = units.length;
  // Kept under the version discovery saw: if the file grew meanwhile, the next run sees a newer
  // version and counts again, so a count is never served for content it was not taken from.
  listing.cache.setTurns(summary.location, units.length);
  listing.cache.save(false);
  return { info, session, units };
}

/** Sessions of a provider as `sessions` lists them, with turn counts filled in (parsing what the cache lacks). */
export async function listWithTurns(provider: Provider, opts: ListOptions & { limit?: number }): Promise<SessionInfo[]> {
  const { sessions } = await listedWithTurns(provider, opts);
  return sessions;
}

/**
 * listWithTurns, and the snapshot its listing was kept as or checked against (none when it
 * could not be kept): what a view of the whole listing is kept with.
 */
async function listedWithTurns(provider: Provider, opts: ListOptions & { limit?: number }): Promise<{ sessions: SessionInfo[]; snapshot?: Snapshot }> {
  const inputs = provider.listingInputs?.(opts.env);
  const key = inputs && listingKey(inputs);
  if (inputs && key) {
    const kept = keptListing(provider.name, opts.env, key);
    if (kept) return { sessions: (opts.global ? kept.sessions : inWorkspace(kept.sessions, opts)).slice(0, opts.limit ?? Infinity), snapshot: kept };
  }
  const listedAt = Date.now();
  const stats = inputs && inputStats(inputs);
  const listing = await discoverAll(provider, opts.env);
  const chosen = (opts.global ? listing.summaries : inWorkspace(listing.summaries, opts)).slice(0, opts.limit ?? Infinity);
  const infos: SessionInfo[] = [];
  for (const s of chosen) {
    const info = infoOf(provider, s, listing);
    if (info.units === undefined) {
      try {
        const session = await provider.load(s, { env: opts.env, warn: () => {} }); // damage is reported when the session is opened
        info.units = assembleTurns(session).length;
        listing.cache.setTurns(s.location, info.units);
      } catch {
        // unreadable right now: listed without a turn count
      }
    }
    infos.push(info);
  }
  listing.cache.save(false);
  let snapshot: Snapshot | undefined;
  if (inputs && key && stats) {
    const all = chosen.length === listing.summaries.length ? infos : listing.summaries.map((s) => infoOf(provider, s, listing));
    snapshot = keepListing(provider.name, opts.env, key, inputs, stats, listing.cache.seenFiles(), all, listedAt);
  }
  return { sessions: infos, snapshot };
}

/**
 * Every session of a provider as `view` prints them, kept beside its listing (see
 * listing-snapshot): the kept text while nothing the listing was made from changed, else made
 * from the listing (kept or listed afresh) and kept. The sessions themselves when the view
 * cannot hold them or the provider names no listing inputs. With the stamps the text answers by.
 */
export async function viewWithTurns(provider: Provider, env: NodeJS.ProcessEnv, view: ListingView): Promise<SourceView> {
  const inputs = provider.listingInputs?.(env);
  // Global: the workspace (cwd) is not asked.
  const opts = { env, cwd: '/', global: true };
  if (!inputs) return { sessions: await listWithTurns(provider, opts) };
  const shown = keptView(provider.name, env, listingKey(inputs), view.name, view.key);
  if (shown !== undefined) return { view: shown.text, stamps: shown.stamps };
  const { sessions, snapshot } = await listedWithTurns(provider, opts);
  const text = view.render(sessions);
  if (text === undefined) return { sessions };
  if (!snapshot) return { view: text, made: true };
  return { view: text, made: true, stamps: keepView(provider.name, env, snapshot, view.name, view.key, text) };
}

/**
 * Every session of the scope, parsed, from one discovery (opening them one by one would
 * discover the provider's sessions again for each). Subagents are included: their work is the
 * session's. An unreadable session is passed to `failed` and skipped.
 */
export async function* scopedSessions(provider: Provider, opts: ListOptions, failed: (info: SessionInfo, error: unknown) => void): AsyncGenerator<AgentOpened> {
  const listing = await discoverAll(provider, opts.env);
  const chosen = opts.global ? listing.summaries : inWorkspace(listing.summaries, opts);
  for (const summary of chosen) {
    const info = infoOf(provider, summary, listing);
    let session: Transcript;
    try {
      session = await provider.load(summary, { env: opts.env, warn: () => {} });
    } catch (error) {
      failed(info, error);
      continue;
    }
    if (session.cwd && !info.cwd) info.cwd = session.cwd;
    yield { info, session, units: sessionUnits(provider.name, info.displayId, session) };
  }
}

/** Every session's listing summary, no session parsed: what `projects` needs (cwds and times). */
export async function agentSummaries(provider: Provider, env: NodeJS.ProcessEnv): Promise<readonly TranscriptSummary[]> {
  return (await discoverAll(provider, env)).summaries;
}

/** Remembers the (mtime, size) a provider saw for each file while discovering through the memo. */
class RecordingMemo implements SummaryMemo {
  readonly seen = new Map<string, { size: number; mtimeMs: number }>();
  constructor(private readonly inner: SummaryMemo | undefined) {}
  summary(location: string, mtimeMs: number, size: number, compute: () => TranscriptSummary | undefined): TranscriptSummary | undefined {
    this.seen.set(location, { size, mtimeMs });
    return this.inner ? this.inner.summary(location, mtimeMs, size, compute) : compute();
  }
}

/**
 * What tells that a provider's sessions may have changed: its data folder, every folder between
 * it and a session file, and its own watched paths (a database); the session files themselves
 * are compared with their marks.
 */
function watchPaths(provider: Provider, env: NodeJS.ProcessEnv, root: string, summaries: readonly TranscriptSummary[]): string[] {
  const paths = new Set<string>([root, ...(provider.watchedPaths?.(env) ?? [])]);
  const prefix = root.endsWith(sep) ? root : root + sep;
  for (const s of summaries) {
    if (s.version !== undefined || !s.location.startsWith(prefix)) continue; // a database row: covered by the database's own paths
    for (let dir = dirname(s.location); dir.length >= root.length && dir.startsWith(root); dir = dirname(dir)) {
      if (paths.has(dir)) break;
      paths.add(dir);
      if (dir === root) break;
    }
  }
  return [...paths];
}

const failure = (summary: TranscriptSummary, error: unknown): SessionChange => ({
  kind: 'failed',
  why: `${summary.location} (${(error as { code?: string }).code ?? (error as Error).message})`,
});

/** A session brought up to date: compared by its version or its file's bytes, parsed when changed. */
async function updateSession(provider: Provider, summary: TranscriptSummary, ctx: IndexContext, seen: Map<string, { size: number; mtimeMs: number }>): Promise<SessionChange> {
  const old = ctx.mark(summary.location);
  let now: FileMark;
  let grew = false;
  if (summary.version !== undefined) {
    if (old && old.head === summary.version) return { kind: 'unchanged' };
    now = { size: -1, mtime: 0, head: summary.version, tail: '', parsed_bytes: 0, positions: 0 };
  } else {
    // The provider stat'ed the file while discovering it (through the memo): no second stat.
    const st = seen.get(summary.location) ?? statFile(summary.location);
    if (!st) return failure(summary, Object.assign(new Error('gone'), { code: 'ENOENT' }));
    const change = compareFile(summary.location, st.size, st.mtimeMs, old);
    if (change === 'unchanged') return { kind: 'unchanged' };
    grew = change === 'appended';
    now = { ...edgesOf(summary.location, st.size, st.mtimeMs), parsed_bytes: st.size, positions: 0 };
  }
  let session: Transcript;
  try {
    session = await provider.load(summary, { env: ctx.env });
  } catch (error) {
    return failure(summary, error);
  }
  const units = sessionUnits(provider.name, summary.id, session);
  return {
    kind: 'read',
    session: { id: summary.id, title: session.title ?? summary.title, cwd: session.cwd ?? summary.cwd, updatedAt: summary.updatedAt, location: summary.location },
    units,
    how: 'replace',
    grew,
    fallbackAt: session.updatedAt ?? summary.updatedAt,
    mark: { key: summary.location, now: { ...now, positions: units.length }, since: old },
  };
}

function agentIndex(provider: Provider): SourceIndex {
  return {
    unchangedSince: (fingerprint, env, stamps, probe) => {
      const root = provider.dataLocation?.(env);
      return root !== undefined && pathsUnchanged(fingerprint, root, probe) && filesUnchanged(stamps);
    },
    async plan(ctx: IndexContext): Promise<IndexPlan> {
      // An agent none of whose paths is there (its folder, the files it watches) has nothing to
      // list: the freshness check trusts these same paths, and skips a listing for as long as
      // they stay missing. So a first build skips it too. Listing every registered agent that is
      // not installed was ~25 M instructions of a cold build of terminal logs alone, most of it
      // compiling their listing code.
      const home = provider.dataLocation?.(ctx.env);
      const nothing = home !== undefined && ctx.probe ? missingPathsFingerprint(home, watchPaths(provider, ctx.env, home, []), ctx.probe) : undefined;
      if (nothing !== undefined) return { fingerprint: nothing, sessions: [] };
      const cache = ctx.persistent ? ListingCache.load(provider.name, ctx.env) : undefined;
      const memo = new RecordingMemo(cache);
      const summaries: TranscriptSummary[] = [];
      await eachSummary(provider.discover({ env: ctx.env, memo }), (summary) => summaries.push(summary));
      cache?.save(true);
      const root = provider.dataLocation?.(ctx.env);
      // Taken right after discovery, so a file created while sessions are parsed is not missed.
      const fingerprint = root === undefined ? undefined : pathsFingerprint(root, watchPaths(provider, ctx.env, root, summaries));
      return { fingerprint, sessions: summaries.map((s) => ({ id: s.id, update: () => updateSession(provider, s, ctx, memo.seen) })) };
    },
  };
}

export function agentSource(provider: Provider): Source {
  return {
    name: provider.name,
    unitKind: 'turn',
    index: agentIndex(provider),
    list: (opts: ListOptions & { limit?: number }): Promise<SessionInfo[]> => listWithTurns(provider, opts),
    view: (env: NodeJS.ProcessEnv, view: ListingView) => viewWithTurns(provider, env, view),
    pageKey(env: NodeJS.ProcessEnv): string | undefined {
      const inputs = provider.listingInputs?.(env);
      return inputs && listingKey(inputs);
    },
    async open(key: string, opts: ListOptions): Promise<OpenedSession> {
      const { info, session, units } = await openTranscript(provider, key, opts);
      return session.usage ? { info, units, usage: session.usage } : { info, units };
    },
  };
}

export type ListedTranscript = { info: SessionInfo; units(): Promise<Unit[]> };

/**
 * Every session of a provider, subagents included, newest first (this workspace's unless
 * `global`), each parsed into units only when asked: what a stream over many sessions reads
 * one at a time, newest first, until it has enough.
 */
export async function agentSessionsNewestFirst(provider: Provider, opts: ListOptions): Promise<ListedTranscript[]> {
  const listing = await discoverAll(provider, opts.env);
  const chosen = opts.global ? listing.summaries : inWorkspace(listing.summaries, opts);
  return chosen.map((s) => {
    const info = infoOf(provider, s, listing);
    return { info, units: async () => sessionUnits(provider.name, info.displayId, await provider.load(s, { env: opts.env, warn: () => {} })) };
  });
}
