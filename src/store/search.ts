// Search over an IndexDb (the file cache or its in-memory twin): trigram FTS5 with BM25, parts
// weighted by kind, every query word required first and then any of them, filters on source,
// part kind, status and time, a regex post-filter, and folding of the caller's own session.
import { allProviders } from '../agents/registry.js';
import { displayIds } from '../memory/display-id.js';
import { formatRef } from '../memory/ref.js';
import { HISTORY_SOURCE } from './history-source.js';
import type { IndexDb } from './index-db.js';
import { ftsExpression, hasTerms, queryTerms, snippet, type QueryTerms } from './query.js';
import type { StatusName } from './docs.js';

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
};

export type Hit = {
  ref: string;
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
};

export type SearchResult = { hits: Hit[]; total: number; folded: number };

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

function kindFilter(field: SearchField, alias: string): { sql: string; params: string[] } {
  const kinds = field === 'title' ? undefined : FIELD_KINDS[field];
  if (!kinds) return { sql: '1', params: [] };
  return { sql: `${alias}.kind IN (${kinds.map(() => '?').join(', ')})`, params: kinds };
}

function sourceFilter(target: string): { sql: string; params: string[] } {
  if (target === 'all') return { sql: '1', params: [] };
  if (target === 'agent') return { sql: "s.source NOT IN ('terminal', ?)", params: [HISTORY_SOURCE] };
  return { sql: 's.source = ?', params: [target] };
}

/** Unit ids holding `term` (as a substring, any case) in a part of an allowed kind. */
function unitsWithTerm(index: IndexDb, term: string, long: boolean, field: SearchField): Set<number> {
  const kinds = kindFilter(field, 'p');
  // A quoted term is a phrase of consecutive trigrams: exactly the rows holding the substring.
  const rows = long
    ? index.db
        .prepare(`SELECT DISTINCT p.unit FROM parts_fts JOIN parts p ON p.id = parts_fts.rowid WHERE parts_fts MATCH ? AND ${kinds.sql}`)
        .pluck()
        .all(ftsExpression({ long: [term], short: [] }, 'all'), ...kinds.params)
    : index.db.prepare(`SELECT DISTINCT p.unit FROM parts p WHERE instr(lower(p.text), ?) > 0 AND ${kinds.sql}`).pluck().all(term.toLowerCase(), ...kinds.params);
  return new Set(rows as number[]);
}

/**
 * Best (lowest) weighted BM25 per unit over the parts holding any long term, and the part that
 * earned it; ties go to the first part, so the answer never depends on row order.
 */
function scores(index: IndexDb, terms: QueryTerms, field: SearchField): Map<number, { score: number; part: number }> {
  const out = new Map<number, { score: number; part: number }>();
  const expr = ftsExpression(terms, 'any');
  if (!expr) return out;
  const kinds = kindFilter(field, 'p');
  const rows = index.db
    .prepare(
      `WITH m AS MATERIALIZED (
         SELECT p.unit AS unit, bm25(parts_fts) * p.weight AS score, p.n AS n
         FROM parts_fts JOIN parts p ON p.id = parts_fts.rowid WHERE parts_fts MATCH ? AND ${kinds.sql}
       )
       SELECT unit, score, n FROM (
         SELECT unit, score, n, row_number() OVER (PARTITION BY unit ORDER BY score, n) AS rn FROM m
       ) WHERE rn = 1`,
    )
    .all(expr, ...kinds.params) as { unit: number; score: number; n: number }[];
  for (const r of rows) out.set(r.unit, { score: r.score, part: r.n });
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
    // A temp table keeps the statement small whatever the number of candidates.
    index.db.exec('CREATE TEMP TABLE IF NOT EXISTS search_ids (id INTEGER PRIMARY KEY); DELETE FROM search_ids;');
    const insert = index.db.prepare('INSERT OR IGNORE INTO search_ids (id) VALUES (?)');
    index.transaction(() => {
      for (const id of ids) insert.run(id);
    });
    from = 'search_ids c JOIN units u ON u.id = c.id';
  }
  const sql = `SELECT u.id AS uid, s.source, s.sid, u.idx, u.at, u.at_text, u.cwd, u.status, u.title, u.complete, s.title AS session_title,
      (SELECT max(idx) FROM units WHERE session = u.session) AS last_idx
    FROM ${from} JOIN sessions s ON s.id = u.session WHERE ${where.join(' AND ')}`;
  return index.db.prepare(sql).all(...params) as UnitRow[];
}

function partsOf(index: IndexDb, uid: number, field: SearchField): { n: number; kind: string; text: string }[] {
  const kinds = kindFilter(field, 'parts');
  return index.db.prepare(`SELECT n, kind, text FROM parts WHERE unit = ? AND ${kinds.sql} ORDER BY n`).all(uid, ...kinds.params) as {
    n: number; kind: string; text: string;
  }[];
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

function compare(a: Candidate, b: Candidate): number {
  if (a.allTerms !== b.allTerms) return a.allTerms ? -1 : 1;
  if (a.score !== b.score) return a.score - b.score;
  if ((a.at ?? -Infinity) !== (b.at ?? -Infinity)) return (b.at ?? -Infinity) - (a.at ?? -Infinity);
  return a.source.localeCompare(b.source) || a.sid.localeCompare(b.sid) || a.idx - b.idx;
}

function sessionDisplayIds(index: IndexDb, sources: Set<string>): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const source of sources) {
    if (source === HISTORY_SOURCE) continue;
    out.set(source, displayIds(index.sessionsOf(source).map((s) => s.sid)));
  }
  return out;
}

export function search(index: IndexDb, req: SearchRequest): SearchResult {
  const terms = queryTerms(req.query);
  const withTerms = hasTerms(terms);
  let candidates: Candidate[];
  if (req.field === 'title') {
    candidates = titleCandidates(index, req, terms);
  } else if (withTerms) {
    const perTerm = [...terms.long.map((t) => unitsWithTerm(index, t, true, req.field)), ...terms.short.map((t) => unitsWithTerm(index, t, false, req.field))];
    const any = new Set<number>();
    for (const set of perTerm) for (const id of set) any.add(id);
    const scored = scores(index, terms, req.field);
    candidates = unitRows(index, req, [...any]).map((row) => {
      const s = scored.get(row.uid);
      return { ...row, score: s?.score ?? 0, bestPart: s?.part ?? null, allTerms: perTerm.every((set) => set.has(row.uid)) };
    });
  } else {
    candidates = unitRows(index, req, undefined).map((row) => ({ ...row, score: 0, bestPart: null, allTerms: true }));
  }
  const kept: Candidate[] = [];
  let folded = 0;
  for (const c of candidates) {
    if (req.match && !partsOf(index, c.uid, req.field === 'title' ? 'content' : req.field).some((p) => req.match!.test(p.text))) continue;
    if (isSelfEcho(c, req)) {
      folded++;
      continue;
    }
    kept.push(c);
  }
  kept.sort(compare);
  const page = kept.slice(0, req.limit);
  const ids = sessionDisplayIds(index, new Set(page.map((c) => c.source)));
  const hits = page.map((c) => toHit(index, c, req, terms, ids));
  return { hits, total: kept.length, folded };
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

function toHit(index: IndexDb, c: Candidate, req: SearchRequest, terms: QueryTerms, ids: Map<string, Map<string, string>>): Hit {
  const parts = partsOf(index, c.uid, req.field === 'title' ? 'content' : req.field);
  let best = parts.find((p) => p.n === c.bestPart);
  if (!best && req.match) best = parts.find((p) => req.match!.test(p.text));
  if (!best && terms.short.length > 0) best = parts.find((p) => terms.short.some((t) => p.text.toLowerCase().includes(t.toLowerCase())));
  best ??= parts.find((p) => p.kind === 'command' || p.kind === 'user') ?? parts[0];
  const display = c.source === HISTORY_SOURCE ? c.sid : ids.get(c.source)?.get(c.sid) ?? c.sid;
  const ref = c.source === HISTORY_SOURCE ? `${HISTORY_SOURCE}/${c.sid}` : formatRef(c.source, display, c.idx);
  let text = best?.text ?? '';
  if (req.match && best && terms.long.length + terms.short.length === 0) {
    const m = req.match.exec(text);
    if (m) text = text.slice(Math.max(0, m.index - 40));
  }
  const hit: Hit = {
    ref,
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
