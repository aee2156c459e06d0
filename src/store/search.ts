// Search over an IndexDb (the file cache or its in-memory twin): gram keys narrow the chunks, the
// text confirms every match and BM25 is computed from it, parts weighted by kind, hits holding every query word first and then fewer (by coverage), filters on source,
// part kind, status and time, a regex post-filter, and folding of the caller's own session.
import { allProviders } from '../agents/registry.js';
import { displayIds } from '../memory/display-id.js';
import { formatRef } from '../memory/ref.js';
import { findSource, recordSourceNames } from '../memory/sources.js';
import { isSivtrReadOnly } from '../memory/self-commands.js';
import { decodeChunkText, splitChunk, type ChunkRow, type IndexDb, type PartDir, type StoredChunk, type StoredPart } from './index-db.js';
import { hasTerms, queryTerms, snippet, type QueryTerms } from './query.js';
import { PART_WEIGHT, type StatusName } from './docs.js';
import { termKeys } from './grams.js';

export type SearchField = 'content' | 'command' | 'output' | 'input' | 'title';

export type SearchRequest = {
  /** `all`, `terminal`, `agent`, `history` or a provider name. */
  target: string;
  query: string;
  match?: RegExp;
  field: SearchField;
  status?: StatusName;
  since?: number;
  until?: number;
  limit: number;
  now: number;
  /** Sessions the caller runs inside (from provider env hints): their recent units are folded. */
  current: { source: string; id: string }[];
  /** Keep sivtr's own read-only terminal commands and the caller's echo (left out by default). */
  includeSelf?: boolean;
  /** Only units whose cwd this accepts (`--cwd`, `--scope`); every unit when absent. */
  inScope?: (cwd: string | null) => boolean;
  /** Only parts of these kinds are searched (and shown). */
  kinds?: readonly string[];
  /** Explicit terms, each an exact substring, instead of the words of `query`. */
  terms?: readonly string[];
  /**
   * `and`: a hit holds every term in one part, or across one tool call and its output; `or`:
   * any term. Without it, hits holding every term (anywhere in the unit) come first, then the rest.
   */
  operator?: 'and' | 'or';
  /** `time`: newest first instead of best first. */
  sort?: 'relevance' | 'time';
};

export type Hit = {
  /** The ref with the session's short display id, for people. */
  ref: string;
  /** The same ref with the full session id: what JSON and `--format refs` print, so it keeps resolving. */
  fullRef: string;
  source: string;
  session: string;
  index: number;
  part: number | null;
  kind: string | null;
  title: string;
  snippet: string;
  at: string | null;
  cwd: string | null;
  status: StatusName;
  /** false when the unit holds only some of the query words. */
  all_terms: boolean;
  /** The command that prints the hit's part (or unit): `sivtr show <ref>/pN`, with the short id. */
  open: string;
  /** The same with the full session id (JSON: it keeps working as sessions come and go). */
  fullOpen: string;
};

/**
 * `own`: terminal records of sivtr's own read-only commands left out (their output repeats hits).
 * `coverage`: set when `total` counts only the hits holding at least `least` of the `of` words
 * (a query of several words reads hits holding fewer only when the page needs them).
 */
export type SearchResult = { hits: Hit[]; total: number; folded: number; own: number; coverage?: { least: number; of: number } };

/** Units of the caller's own session newer than this are its own invocation echoing back. */
export const FOLD_WINDOW_MS = 5 * 60_000;

const FIELD_KINDS: Record<Exclude<SearchField, 'title'>, string[] | undefined> = {
  content: undefined,
  command: ['command', 'tool_call'],
  output: ['output', 'tool_output', 'assistant'],
  input: ['prompt', 'command', 'user'],
};

type UnitRow = {
  uid: number; source: string; sid: string; idx: number; at: number | null; at_text: string | null; cwd: string | null;
  status: StatusName; title: string; complete: number; session_title: string | null; last_idx: number;
};

type Candidate = UnitRow & { score: number; bestPart: number | null; allTerms: boolean };

/** The part kinds a search reads: those of `--in`, narrowed to `--kind`. */
function allowedKinds(field: SearchField, only?: readonly string[]): Set<string> | undefined {
  const kinds = field === 'title' ? undefined : FIELD_KINDS[field];
  if (!only) return kinds && new Set(kinds);
  return new Set(kinds ? only.filter((k) => kinds.includes(k)) : only);
}

function sourceFilter(target: string): { sql: string; params: string[] } {
  if (target === 'all') return { sql: '1', params: [] };
  if (target === 'agent') {
    const records = recordSourceNames();
    return { sql: `s.source NOT IN (${records.map(() => '?').join(', ')})`, params: records };
  }
  return { sql: 's.source = ?', params: [target] };
}

/** Occurrences of a term that ranking still tells apart. */
const MAX_TF = 64;

/**
 * Per part of a chunk (of an allowed kind): how often each term occurs in it, or undefined when
 * none does. Each term is looked for once over the whole lower-cased chunk when lower-casing
 * kept every offset (it nearly always does), else part by part.
 */
function countTerms(text: string, dir: PartDir[], terms: string[], kinds: Set<string> | undefined): (number[] | undefined)[] {
  const counts: (number[] | undefined)[] = new Array(dir.length);
  const starts = new Array<number>(dir.length + 1);
  starts[0] = 0;
  for (let p = 0; p < dir.length; p++) starts[p + 1] = starts[p]! + dir[p]![4] + 1;
  const allowed = (p: number): boolean => !kinds || kinds.has(dir[p]![2]);
  const bump = (p: number, t: number): number => {
    const tf = (counts[p] ??= new Array<number>(terms.length).fill(0));
    return ++tf[t]!;
  };
  const lower = text.toLowerCase();
  if (lower.length === text.length) {
    for (let t = 0; t < terms.length; t++) {
      const term = terms[t]!;
      let p = 0;
      for (let at = lower.indexOf(term); at !== -1; ) {
        while (starts[p + 1]! <= at) p++;
        if (!allowed(p)) at = lower.indexOf(term, starts[p + 1]);
        else at = bump(p, t) >= MAX_TF ? lower.indexOf(term, starts[p + 1]) : lower.indexOf(term, at + term.length);
      }
    }
    return counts;
  }
  for (let p = 0; p < dir.length; p++) {
    if (!allowed(p)) continue;
    const part = text.slice(starts[p], starts[p]! + dir[p]![4]).toLowerCase();
    for (let t = 0; t < terms.length; t++) {
      const term = terms[t]!;
      for (let at = part.indexOf(term), k = 0; at !== -1 && k < MAX_TF; at = part.indexOf(term, at + term.length), k++) bump(p, t);
    }
  }
  return counts;
}

type Matched = { n: number; group: number; weight: number; length: number; tf: number[] };

// BM25 with the usual constants, over parts: the gram keys have no positions, so the score is
// computed here from what confirming the matches counted.
const K1 = 1.2;
const B = 0.75;

/**
 * For every unit with a part (of an allowed kind) holding a query term: which terms it holds
 * (a flag per term), its best weighted BM25 (lower is better) and the part that earned it. Ties go
 * to the first part, so the answer never depends on row order.
 */
type UnitMatch = { found: Uint8Array; score: number; part: number; together: boolean };

/** What reading a unit's chunk found: the terms it holds (`found`, `held` of them) and its parts that hold any. */
type UnitScan = { found: Uint8Array; held: number; parts: Matched[] };

/** Decoded chunks kept for showing the hits (each up to ~64 K characters): a common word matches thousands. */
const MAX_KEPT_CHUNKS = 64;

/**
 * Reads chunks and confirms the terms in their text, each chunk once however many times it is
 * asked for (the levels of a default search ask for growing sets of chunks).
 */
class TermScan {
  readonly units = new Map<number, UnitScan>();
  private readonly scanned = new Set<number>();
  private readonly src: { sql: string; params: string[] };
  private readonly kinds: Set<string> | undefined;

  constructor(
    private readonly index: IndexDb,
    req: SearchRequest,
    readonly lowered: string[],
    /** Chunks that held a match, kept so that showing the hits does not inflate them again. */
    private readonly decoded: Map<number, StoredChunk | undefined>,
  ) {
    this.src = sourceFilter(req.target);
    this.kinds = allowedKinds(req.field, req.kinds);
  }

  /** Reads the chunks among `chunkIds` (every chunk of the target when undefined) not read yet. */
  read(chunkIds: number[] | undefined): void {
    let sql = `SELECT c.id, c.session, c.first_unit, c.parts, c.data FROM chunks c JOIN sessions s ON s.id = c.session WHERE ${this.src.sql}`;
    const params: unknown[] = [...this.src.params];
    if (chunkIds) {
      const fresh = chunkIds.filter((id) => !this.scanned.has(id));
      if (fresh.length === 0) return;
      sql += ' AND c.id IN (SELECT value FROM json_each(?))';
      params.push(JSON.stringify(fresh));
    }
    const terms = this.lowered.length;
    for (const row of this.index.stmt(sql).iterate(...params) as Iterable<ChunkRow>) {
      if (this.scanned.has(row.id)) continue;
      this.scanned.add(row.id);
      const chunkText = decodeChunkText(row.parts, row.data);
      const { text, dir } = chunkText;
      const counts = countTerms(text, dir, this.lowered, this.kinds);
      if (this.decoded.size < MAX_KEPT_CHUNKS && counts.some((c) => c !== undefined)) this.decoded.set(row.id, splitChunk(row.id, row.session, row.first_unit, chunkText));
      dir.forEach(([ordinal, n, kind, , length, group], p) => {
        const tf = counts[p];
        if (!tf) return;
        const uid = row.first_unit + ordinal;
        let unit = this.units.get(uid);
        if (!unit) this.units.set(uid, (unit = { found: new Uint8Array(terms), held: 0, parts: [] }));
        for (let t = 0; t < terms; t++) {
          if (tf[t]! > 0 && unit.found[t] === 0) {
            unit.found[t] = 1;
            unit.held++;
          }
        }
        unit.parts.push({ n, group: group ?? n, weight: PART_WEIGHT[kind] ?? 1, length, tf });
      });
    }
  }
}

/**
 * BM25 of `units` (lower is better): the number of parts and their mean length are the index's;
 * a term's document frequency is counted over the parts of `units`.
 */
function rankUnits(totals: { parts: number; chars: number }, units: [number, UnitScan][]): Map<number, UnitMatch> {
  const out = new Map<number, UnitMatch>();
  if (units.length === 0) return out;
  const terms = units[0]![1].found.length;
  const df = new Array<number>(terms).fill(0);
  for (const [, u] of units) for (const m of u.parts) for (let t = 0; t < terms; t++) if (m.tf[t]! > 0) df[t]!++;
  const parts = Math.max(totals.parts, 1);
  const avg = Math.max(totals.chars / parts, 1);
  const idf = df.map((d) => Math.log(1 + (parts - d + 0.5) / (d + 0.5)));
  for (const [uid, u] of units) {
    const seen: UnitMatch = { found: u.found, score: Infinity, part: 0, together: false };
    // Terms found per group: `and` needs one group holding them all.
    const inGroup = new Map<number, Uint8Array>();
    for (const m of u.parts) {
      let bm25 = 0;
      for (let t = 0; t < terms; t++) {
        const tf = m.tf[t]!;
        if (tf > 0) bm25 += (idf[t]! * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * m.length) / avg));
      }
      const score = -bm25 * m.weight;
      let group = inGroup.get(m.group);
      if (!group) inGroup.set(m.group, (group = new Uint8Array(terms)));
      for (let t = 0; t < terms; t++) if (m.tf[t]! > 0) group[t] = 1;
      if (group.every((f) => f === 1)) seen.together = true;
      if (score < seen.score || (score === seen.score && m.n < seen.part)) {
        seen.score = score;
        seen.part = m.n;
      }
    }
    out.set(uid, seen);
  }
  return out;
}

/** Which chunks may hold the terms: every term's keys for `and`, any term's otherwise; undefined when keys cannot narrow. */
function candidateChunks(index: IndexDb, lowered: string[], operator: SearchRequest['operator']): number[] | undefined {
  const alternatives: number[][] = [];
  let unkeyed = false;
  for (const w of lowered) {
    const keys = termKeys(w);
    if (keys) alternatives.push(keys);
    else unkeyed = true;
  }
  if (operator === 'and') return alternatives.length === 0 ? undefined : index.chunksWithKeys([alternatives.flat()]);
  return unkeyed ? undefined : index.chunksWithKeys(alternatives);
}

/**
 * Per chunk, how many of the keyed terms (those long enough to have keys) it holds every key of:
 * one FTS5 query per keyed term, however many levels read them.
 */
type KeyedChunks = { held: Map<number, number>; unkeyed: number };

function keyedChunks(index: IndexDb, lowered: string[]): KeyedChunks {
  const held = new Map<number, number>();
  let unkeyed = 0;
  for (const w of lowered) {
    const keys = termKeys(w);
    if (!keys) {
      unkeyed++;
      continue;
    }
    for (const id of index.chunksWithKeys([keys])) held.set(id, (held.get(id) ?? 0) + 1);
  }
  return { held, unkeyed };
}

/**
 * The chunks that may hold a unit holding `held` of the terms (undefined: every chunk). A unit
 * never spans chunks, so its chunk has every key of at least `held` minus the unkeyed terms of
 * the keyed ones.
 */
function chunksHolding(keyed: KeyedChunks, held: number): number[] | undefined {
  const need = held - keyed.unkeyed;
  if (need <= 0) return undefined;
  const out: number[] = [];
  for (const [id, n] of keyed.held) if (n >= need) out.push(id);
  return out;
}

function unitRows(index: IndexDb, req: SearchRequest, ids: number[] | undefined): UnitRow[] {
  const src = sourceFilter(req.target);
  const where = [src.sql];
  const params: unknown[] = [...src.params];
  if (req.status) {
    where.push('u.status = ?');
    params.push(req.status);
  }
  if (req.since !== undefined) {
    where.push('u.at >= ?');
    params.push(req.since);
  }
  if (req.until !== undefined) {
    where.push('u.at <= ?');
    params.push(req.until);
  }
  let from = 'units u';
  if (ids) {
    // One JSON parameter keeps the statement small whatever the number of candidates (and,
    // unlike a temp table, creates no file).
    from = 'json_each(?) c JOIN units u ON u.id = c.value';
    params.unshift(JSON.stringify(ids));
  }
  const sql = `SELECT u.id AS uid, s.source, s.sid, u.idx, u.at, u.at_text, u.cwd, u.status, u.title, u.complete, s.title AS session_title,
      (SELECT max(idx) FROM units WHERE session = u.session) AS last_idx
    FROM ${from} JOIN sessions s ON s.id = u.session WHERE ${where.join(' AND ')}`;
  return index.stmt(sql).all(...params) as UnitRow[];
}

/** The parts of a unit (of the kinds `field` and `only` search), in order; decoded chunks are kept for the search. */
function partsOf(index: IndexDb, cache: Map<number, StoredChunk | undefined>, uid: number, field: SearchField, only?: readonly string[]): StoredPart[] {
  const chunkId = index.stmt('SELECT chunk FROM units WHERE id = ?').pluck().get(uid) as number | undefined;
  if (chunkId === undefined) return [];
  if (!cache.has(chunkId)) cache.set(chunkId, index.chunk(chunkId));
  const kinds = allowedKinds(field, only);
  return (cache.get(chunkId)?.parts ?? []).filter((p) => p.uid === uid && (!kinds || kinds.has(p.kind))).sort((a, b) => a.n - b.n);
}

/** A terminal record of `sivtr show …`, an earlier `sivtr search …`: its output repeats the hit. */
function isOwnRecord(index: IndexDb, cache: Map<number, StoredChunk | undefined>, row: UnitRow): boolean {
  // A record's title is its command's first line: only those naming sivtr are read.
  if (row.source !== 'terminal' || !/sivtr/i.test(row.title)) return false;
  const command = partsOf(index, cache, row.uid, 'command').find((p) => p.kind === 'command');
  return command !== undefined && isSivtrReadOnly(command.text);
}

function isCurrent(row: UnitRow, req: SearchRequest): boolean {
  return req.current.some((c) => c.source === row.source && (row.sid === c.id || row.sid.startsWith(c.id)));
}

/** The caller's own session, recently: where `sivtr search …` itself was just typed or run. */
function isSelfEcho(row: UnitRow, req: SearchRequest): boolean {
  if (!isCurrent(row, req)) return false;
  if (row.at !== null && row.at >= req.now - FOLD_WINDOW_MS) return true;
  return row.idx === row.last_idx && row.complete === 0;
}

const codeUnitOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function compare(a: Candidate, b: Candidate): number {
  if (a.allTerms !== b.allTerms) return a.allTerms ? -1 : 1;
  if (a.score !== b.score) return a.score - b.score;
  if ((a.at ?? -Infinity) !== (b.at ?? -Infinity)) return (b.at ?? -Infinity) - (a.at ?? -Infinity);
  // Code-unit order, not localeCompare: its first call loads ICU collation (several ms).
  return codeUnitOrder(a.source, b.source) || codeUnitOrder(a.sid, b.sid) || a.idx - b.idx;
}

function sessionDisplayIds(index: IndexDb, sources: Set<string>): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const source of sources) {
    if (findSource(source)?.sessionIsUnit) continue; // refs name these sessions by their full id
    out.set(source, displayIds(index.sessionsOf(source).map((s) => s.sid)));
  }
  return out;
}

/** The request's terms: `--terms` as given (each exact), else the words of the query. */
function requestTerms(req: SearchRequest): QueryTerms {
  if (!req.terms) return queryTerms(req.query);
  const long: string[] = [];
  const short: string[] = [];
  for (const t of new Set(req.terms)) if (t !== '') ([...t].length >= 3 ? long : short).push(t);
  return { long, short };
}

/** Newest first; units without a time last; ties as `compare` orders them. */
function byTime(a: Candidate, b: Candidate): number {
  return (b.at ?? -Infinity) - (a.at ?? -Infinity) || compare(a, b);
}

/** Candidates as the page shows them: filtered, counted out, ordered and without replays. */
function settle(index: IndexDb, chunks: Map<number, StoredChunk | undefined>, req: SearchRequest, candidates: Candidate[]): { unique: Candidate[]; folded: number; own: number } {
  const kept: Candidate[] = [];
  let folded = 0;
  let own = 0;
  for (const c of candidates) {
    if (req.inScope && !req.inScope(c.cwd)) continue;
    if (req.match && !partsOf(index, chunks, c.uid, req.field === 'title' ? 'content' : req.field, req.kinds).some((p) => req.match!.test(p.text))) continue;
    if (!req.includeSelf && isOwnRecord(index, chunks, c)) {
      own++;
      continue;
    }
    if (!req.includeSelf && isSelfEcho(c, req)) {
      folded++;
      continue;
    }
    kept.push(c);
  }
  kept.sort(req.sort === 'time' ? byTime : compare);
  return { unique: withoutReplays(index, chunks, kept), folded, own };
}

function candidatesOf(index: IndexDb, req: SearchRequest, matched: Map<number, UnitMatch>, ids: number[], allTerms: (m: UnitMatch) => boolean): Candidate[] {
  return unitRows(index, req, ids).map((row) => {
    const m = matched.get(row.uid)!;
    return { ...row, score: m.score, bestPart: m.part, allTerms: allTerms(m) };
  });
}

/**
 * A query of several words without an operator, by coverage: the units holding every word, then
 * those holding all but one, and so on, each level ranked on its own (BM25 with each term's
 * frequency counted among the level's units); a level is read only when the ones above it left
 * the page short. A level's units live in the chunks holding the keys of that many terms, so the
 * hits with every word of an error message no longer wait for every chunk holding "to" or
 * "port"; `coverage` says down to which level the total counted.
 */
function byCoverage(index: IndexDb, req: SearchRequest, words: string[], chunks: Map<number, StoredChunk | undefined>): SearchResult & { page: Candidate[] } {
  const lowered = words.map((w) => w.toLowerCase());
  const scan = new TermScan(index, req, lowered, chunks);
  const keyed = keyedChunks(index, lowered);
  const totals = index.totals();
  const page: Candidate[] = [];
  let total = 0;
  let folded = 0;
  let own = 0;
  let held = lowered.length;
  for (; held >= 1; held--) {
    scan.read(chunksHolding(keyed, held));
    const level = [...scan.units].filter(([, u]) => u.held === held);
    const matched = rankUnits(totals, level);
    const settled = settle(index, chunks, req, candidatesOf(index, req, matched, level.map(([uid]) => uid), () => held === lowered.length));
    total += settled.unique.length;
    folded += settled.folded;
    own += settled.own;
    for (const c of settled.unique) if (page.length < req.limit) page.push(c);
    if (page.length >= req.limit) break;
  }
  const coverage = held > 1 ? { least: held, of: lowered.length } : undefined;
  return { hits: [], total, folded, own, page, ...(coverage ? { coverage } : {}) };
}

export function search(index: IndexDb, req: SearchRequest): SearchResult {
  const terms = requestTerms(req);
  const withTerms = hasTerms(terms);
  const words = [...terms.long, ...terms.short];
  const chunks = new Map<number, StoredChunk | undefined>();
  let result: Omit<SearchResult, 'hits'> & { page: Candidate[] };
  if (req.field !== 'title' && withTerms && req.operator === undefined && words.length > 1) {
    result = byCoverage(index, req, words, chunks);
  } else {
    let candidates: Candidate[];
    if (req.field === 'title') {
      candidates = titleCandidates(index, req, terms);
    } else if (withTerms) {
      const lowered = words.map((w) => w.toLowerCase());
      const scan = new TermScan(index, req, lowered, chunks);
      scan.read(candidateChunks(index, lowered, req.operator));
      const matched = rankUnits(index.totals(), [...scan.units]);
      const ids = [...matched.keys()].filter((uid) => req.operator !== 'and' || matched.get(uid)!.together);
      candidates = candidatesOf(index, req, matched, ids, (m) => m.found.every((f) => f === 1));
    } else {
      candidates = unitRows(index, req, undefined).map((row) => ({ ...row, score: 0, bestPart: null, allTerms: true }));
      // Without terms, `--kind` keeps the units that have a part of the kind.
      if (req.kinds) candidates = candidates.filter((c) => partsOf(index, chunks, c.uid, req.field === 'title' ? 'content' : req.field, req.kinds).length > 0);
    }
    const { unique, folded, own } = settle(index, chunks, req, candidates);
    result = { total: unique.length, folded, own, page: unique.slice(0, req.limit) };
  }
  const { page, ...rest } = result;
  const ids = sessionDisplayIds(index, new Set(page.map((c) => c.source)));
  const hits = page.map((c) => toHit(index, chunks, c, req, terms, ids));
  return { ...rest, hits };
}

/**
 * Forks and background handoffs (Claude Code --fork-session, Codex and OpenCode forks, pi
 * --fork) replay their parent's turns with the same text and time: each such turn is one hit,
 * not one per session that carries it. Only units sharing a source and a time are compared.
 */
function withoutReplays(index: IndexDb, chunks: Map<number, StoredChunk | undefined>, sorted: Candidate[]): Candidate[] {
  const sameTime = new Map<string, number>();
  const timeKey = (c: Candidate): string | undefined => (c.at === null || c.source === 'history' || c.source === 'terminal' ? undefined : `${c.source}\0${c.at}`);
  for (const c of sorted) {
    const k = timeKey(c);
    if (k !== undefined) sameTime.set(k, (sameTime.get(k) ?? 0) + 1);
  }
  const seen = new Set<string>();
  return sorted.filter((c) => {
    const k = timeKey(c);
    if (k === undefined || sameTime.get(k)! < 2) return true;
    const content = `${k}\0${partsOf(index, chunks, c.uid, 'content').map((p) => `${p.kind}:${p.text}`).join('\0')}`;
    if (seen.has(content)) return false;
    seen.add(content);
    return true;
  });
}

function titleCandidates(index: IndexDb, req: SearchRequest, terms: QueryTerms): Candidate[] {
  const words = [...terms.long, ...terms.short].map((t) => t.toLowerCase());
  const rows = unitRows(index, req, undefined).filter((r) => {
    const title = (r.session_title ?? r.title).toLowerCase();
    return words.every((w) => title.includes(w));
  });
  // One hit per session: its newest matching unit.
  const newest = new Map<string, UnitRow>();
  for (const r of rows) {
    const key = `${r.source}\0${r.sid}`;
    const seen = newest.get(key);
    if (!seen || r.idx > seen.idx) newest.set(key, r);
  }
  return [...newest.values()].map((r) => ({ ...r, score: 0, bestPart: null, allTerms: true }));
}

function toHit(index: IndexDb, chunks: Map<number, StoredChunk | undefined>, c: Candidate, req: SearchRequest, terms: QueryTerms, ids: Map<string, Map<string, string>>): Hit {
  const parts = partsOf(index, chunks, c.uid, req.field === 'title' ? 'content' : req.field, req.kinds);
  let best = parts.find((p) => p.n === c.bestPart);
  if (!best && req.match) best = parts.find((p) => req.match!.test(p.text));
  if (!best && terms.short.length > 0) best = parts.find((p) => terms.short.some((t) => p.text.toLowerCase().includes(t.toLowerCase())));
  best ??= parts.find((p) => p.kind === 'command' || p.kind === 'user') ?? parts[0];
  const sessionIsUnit = findSource(c.source)?.sessionIsUnit === true;
  const display = sessionIsUnit ? c.sid : ids.get(c.source)?.get(c.sid) ?? c.sid;
  const ref = sessionIsUnit ? formatRef(c.source, c.sid) : formatRef(c.source, display, c.idx);
  const fullRef = sessionIsUnit ? ref : formatRef(c.source, c.sid, c.idx);
  const part = best?.n;
  const open = `sivtr show ${part === undefined ? ref : formatRef(c.source, display, c.idx, part)}`;
  const fullOpen = `sivtr show ${part === undefined ? fullRef : formatRef(c.source, c.sid, c.idx, part)}`;
  let text = best?.text ?? '';
  if (req.match && best && terms.long.length + terms.short.length === 0) {
    const m = req.match.exec(text);
    if (m) text = text.slice(Math.max(0, m.index - 40));
  }
  const hit: Hit = {
    ref,
    fullRef,
    source: c.source,
    session: c.sid,
    index: c.idx,
    part: best?.n ?? null,
    kind: best?.kind ?? null,
    title: c.session_title || c.title,
    snippet: snippet(text, terms),
    at: c.at_text,
    cwd: c.cwd,
    status: c.status,
    all_terms: c.allTerms,
    open,
    fullOpen,
  };
  return hit;
}

/** Sessions the calling process runs inside, from each provider's environment hint. */
export function currentSessions(env: NodeJS.ProcessEnv): { source: string; id: string }[] {
  const out: { source: string; id: string }[] = [];
  for (const p of allProviders()) {
    const id = p.currentSessionHint?.(env);
    if (id) out.push({ source: p.name, id });
  }
  return out;
}
