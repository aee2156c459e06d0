// Search over an IndexDb (the file cache or its in-memory twin): gram keys narrow the chunks, the
// text confirms every match and BM25 is computed from it, parts weighted by kind, hits holding every query word first and then fewer (by coverage), filters on source,
// part kind, status and time, a regex post-filter, and folding of the caller's own session.
// Terms' weights come from the chunks' leads (their messages, commands and tool calls, kept
// raw), and a chunk is inflated only while one of its units could still reach the page
// (docs/cli.md, "How search ranks").
import { allProviders } from '../agents/registry.js';
import { displayIdBetween, displayIds } from '../memory/display-id.js';
import { formatRef } from '../memory/ref.js';
import { findSource, recordSourceNames } from '../memory/sources.js';
import { isSivtrReadOnly } from '../memory/self-commands.js';
import { decodeChunkText, decodeLeadDir, decodeRecordChunk, isLeadKind, LEAD_WEIGHT, recordChunk, unitChunk, type ChunkRow, type IndexDb, type CachedLead, type LeadCache, type PartDir, type StoredChunk, type StoredPart } from './index-db.js';
import { hasTerms, queryTerms, snippet, type QueryTerms } from './query.js';
import { PART_WEIGHT, type StatusName } from './docs.js';
import { termKeys } from './grams.js';
import { MAX_MASK_TERMS, popcount, type LeadUnits } from './lead-postings.js';
import { bytesCountable, LazyLead, LEAD_MERGE, LeadBytes, listedUnits } from './lead-bytes.js';
import { denseMasks, LevelInWasm, scoreUnits as scoreInWasm } from './lead-rank-wasm.js';
import { chunkOfRecord, decodeRecords, isRecordUnit, RECORD_KINDS, recordMeta, type RecordList } from './record-chunks.js';

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
 * `totalAtLeast`: `total` counts the hits known without reading every chunk that holds the words
 * (units that could not reach the page were left unread), so there may be more.
 */
export type SearchResult = { hits: Hit[]; total: number; folded: number; own: number; coverage?: { least: number; of: number }; totalAtLeast?: true };

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
  /** Set on an agent unit's row read without at_text, title and session_title (rowsOfUnits with ids): withTexts reads them for the rows a page shows. */
  textsUnread?: true;
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

/** What sourceFilter says in SQL, as a test of a session's source. */
function sourceTest(target: string): (source: string | undefined) => boolean {
  if (target === 'all') return (s) => s !== undefined;
  if (target === 'agent') {
    const records = new Set(recordSourceNames());
    return (s) => s !== undefined && !records.has(s);
  }
  return (s) => s === target;
}

/** Occurrences of a term that ranking still tells apart. */
const MAX_TF = 64;


/**
 * Per part of a chunk (of an allowed kind): how often each term occurs in it, or undefined when
 * none does. Each term is looked for once over the whole lower-cased chunk when lower-casing
 * kept every offset (it nearly always does), else part by part.
 */
/** Where each part starts in a chunk's text, reused from chunk to chunk. */
let startsBuffer = new Int32Array(256);

function countTerms(text: string, dir: PartDir[], terms: string[], kinds: Set<string> | undefined, lowered?: string): (number[] | undefined)[] {
  const counts: (number[] | undefined)[] = new Array(dir.length);
  if (startsBuffer.length < dir.length + 1) startsBuffer = new Int32Array(2 * (dir.length + 1));
  const starts = startsBuffer;
  starts[0] = 0;
  for (let p = 0; p < dir.length; p++) starts[p + 1] = starts[p]! + dir[p]![4] + 1;
  const allowed = (p: number): boolean => !kinds || kinds.has(dir[p]![2]);
  const bump = (p: number, t: number): number => {
    const tf = (counts[p] ??= new Array<number>(terms.length).fill(0));
    return ++tf[t]!;
  };
  const lower = lowered ?? text.toLowerCase();
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

/**
 * countTerms for a chunk of terminal records: each match's part is found from its offset
 * (RecordList.recordAt) rather than by a walk over the chunk's thousands of parts, and only the
 * parts holding a term are returned, as a directory of their own (in the chunk's part order)
 * with their counts. A warm search runs this in the interpreter, once per chunk: a walk over
 * every part, building an entry for each, was most of the search and made V8 compile the loops.
 */
function countRecordTerms(text: string, list: RecordList, terms: string[], kinds: Set<string> | undefined): { dir: PartDir[]; counts: number[][] } {
  const found = new Map<number, number[]>(); // by part key k·3 + i
  const tfOf = (key: number): number[] => {
    let tf = found.get(key);
    if (!tf) found.set(key, (tf = new Array<number>(terms.length).fill(0)));
    return tf;
  };
  const lower = text.toLowerCase();
  if (lower.length === text.length) {
    for (let t = 0; t < terms.length; t++) {
      const term = terms[t]!;
      for (let at = lower.indexOf(term); at !== -1; ) {
        const k = list.recordAt(at);
        let start = list.start(k);
        let i = 0;
        let length = -1;
        for (; i < 3; i++) {
          length = list.partLength(k, i);
          if (length < 0) continue;
          if (at < start + length + 1) break;
          start += length + 1;
        }
        const next = start + length + 1;
        if (i === 3 || (kinds && !kinds.has(RECORD_KINDS[i]!))) {
          at = lower.indexOf(term, next);
          continue;
        }
        const tf = tfOf(k * 3 + i);
        at = ++tf[t]! >= MAX_TF ? lower.indexOf(term, next) : lower.indexOf(term, at + term.length);
      }
    }
  } else {
    // Lower-casing moved offsets (rare): part by part, as countTerms does.
    for (let k = 0; k < list.count; k++) {
      let start = list.start(k);
      for (let i = 0; i < 3; i++) {
        const length = list.partLength(k, i);
        if (length < 0) continue;
        const part = text.slice(start, start + length).toLowerCase();
        start += length + 1;
        if (kinds && !kinds.has(RECORD_KINDS[i]!)) continue;
        for (let t = 0; t < terms.length; t++) {
          const term = terms[t]!;
          for (let at = part.indexOf(term), n = 0; at !== -1 && n < MAX_TF; at = part.indexOf(term, at + term.length), n++) tfOf(k * 3 + i)[t]!++;
        }
      }
    }
  }
  const keys = [...found.keys()].sort((a, b) => a - b);
  const dir: PartDir[] = new Array(keys.length);
  const counts: number[][] = new Array(keys.length);
  for (let j = 0; j < keys.length; j++) {
    const key = keys[j]!;
    const k = (key / 3) | 0;
    const i = key - 3 * k;
    dir[j] = [k, i + 1, RECORD_KINDS[i]!, null, list.partLength(k, i), i + 1];
    counts[j] = found.get(key)!;
  }
  return { dir, counts };
}

function anyCount(counts: (number[] | undefined)[]): boolean {
  for (let p = 0; p < counts.length; p++) if (counts[p] !== undefined) return true;
  return false;
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
type UnitMatch = { found: number[]; score: number; part: number; together: boolean };

/**
 * What reading a unit's text found: the terms it holds (`found`, `held` of them) and its parts
 * that hold any. `full` is false while only its chunk's lead (see index-db.ts) was read: the
 * parts are then its lead parts alone.
 */
type UnitScan = { uid: number; found: number[]; held: number; leadFound: number[]; leadHeld: number; parts: Matched[]; chunk: number; full: boolean };

/** Decoded chunks kept for showing the hits (each up to ~64 K characters): a common word matches thousands. */
const MAX_KEPT_CHUNKS = 64;

/** A lead row as `raw()` reads it: chunk, first unit, directory, text. */
type LeadRow = [chunk: number, firstUnit: number, dir: Buffer, text: string];

/**
 * Reads chunks and confirms the terms in their text, each chunk once however many times it is
 * asked for (the levels of a default search ask for growing sets of chunks). `readLead` reads
 * only the chunks' lead parts, and counts each term's document frequency among them.
 */
class TermScan {
  readonly units = new Map<number, UnitScan>();
  /** Chunks whose whole text was read. */
  readonly scanned = new Set<number>();
  private readonly leadScanned = new Set<number>();
  /** Units found in a chunk's lead, replaced when the whole chunk is read. */
  private readonly leadUnits = new Map<number, number[]>();
  /** The leads read, by chunk: a hit whose best part is in its lead is shown from there. */
  readonly leads = new Map<number, { firstUnit: number; dir: PartDir[]; text: string }>();
  private readonly src: { sql: string; params: string[] };
  private readonly target: string;
  readonly kinds: Set<string> | undefined;

  constructor(
    private readonly index: IndexDb,
    req: SearchRequest,
    readonly lowered: string[],
    /** Chunks that held a match, kept so that showing the hits does not inflate them again. */
    private readonly decoded: Map<number, StoredChunk | undefined>,
  ) {
    this.src = sourceFilter(req.target);
    this.target = req.target;
    this.kinds = allowedKinds(req.field, req.kinds);
  }

  private query(from: string, id: string, chunkIds: number[] | undefined, seen: Set<number>): { sql: string; params: unknown[] } | undefined {
    let sql = `SELECT ${from} JOIN sessions s ON s.id = c.session WHERE ${this.src.sql}`;
    const params: unknown[] = [...this.src.params];
    if (chunkIds) {
      const fresh = chunkIds.filter((c) => !seen.has(c));
      if (fresh.length === 0) return undefined;
      sql += ` AND ${id} IN (SELECT value FROM json_each(?))`;
      params.push(JSON.stringify(fresh));
    }
    return { sql, params };
  }

  /** Reads the chunks among `chunkIds` (every chunk of the target when undefined) not read yet. */
  read(chunkIds: number[] | undefined): void {
    const q = this.query('c.id, c.session, c.first_unit, c.parts, c.data, c.records FROM chunks c', 'c.id', chunkIds, this.scanned);
    if (!q) return;
    // A chunk asked for and not of the target is read too: it holds nothing the search wants.
    for (const id of chunkIds ?? []) this.scanned.add(id);
    for (const row of this.index.stmt(q.sql).iterate(...q.params) as Iterable<ChunkRow>) {
      if (chunkIds === undefined && this.scanned.has(row.id)) continue;
      this.scanned.add(row.id);
      for (const uid of this.leadUnits.get(row.id) ?? []) this.units.delete(uid);
      this.leadUnits.delete(row.id);
      if (row.records) {
        const { text, records } = decodeRecordChunk({ data: row.data, records: row.records });
        const hits = countRecordTerms(text, records, this.lowered, this.kinds);
        if (this.decoded.size < MAX_KEPT_CHUNKS && hits.dir.length > 0) this.decoded.set(row.id, recordChunk(row.id, row.session, row.first_unit, text, records));
        this.add(row.id, row.first_unit, hits.dir, hits.counts, true);
        continue;
      }
      const chunkText = decodeChunkText(row);
      const { text, dir } = chunkText;
      const counts = countTerms(text, dir, this.lowered, this.kinds);
      if (this.decoded.size < MAX_KEPT_CHUNKS && anyCount(counts)) this.decoded.set(row.id, unitChunk(row.id, row.session, row.first_unit, chunkText));
      this.add(row.id, row.first_unit, dir, counts, true);
    }
  }

  /** Reads the leads of the chunks among `chunkIds` (every chunk of the target when undefined) not read yet. */
  readLead(chunkIds: number[] | undefined): void {
    const cache = this.index.cachedLeads();
    if (cache) {
      this.readCachedLeads(cache, chunkIds);
      return;
    }
    if (leadBytesPath.enabled && bytesCountable(this.lowered)) {
      const q = this.query(`${LeadBytes.columns(this.lowered)} FROM leads c`, 'c.chunk', chunkIds, this.leadScanned);
      if (q) this.readLeadBytes(LeadBytes.read(this.index, q.sql, q.params));
      return;
    }
    const q = this.query('c.chunk, c.first_unit, c.dir, c.text FROM leads c', 'c.chunk', chunkIds, this.leadScanned);
    if (!q) return;
    // raw(): arrays instead of an object per row, about half the cost of reading them.
    for (const [chunk, firstUnit, dirData, text] of this.index.stmt(q.sql).raw(true).all(...q.params) as LeadRow[]) {
      if (!this.leadScanned.has(chunk)) this.leadRead(chunk, firstUnit, decodeLeadDir(dirData), text);
    }
  }

  /** readLead from leads read as bytes (lead-bytes.ts): a lead the byte path cannot count is walked. */
  private readLeadBytes(leads: LeadBytes): void {
    leadBytesPath.used++;
    const hits = leads.hits(this.lowered, this.kinds, MAX_TF);
    for (let i = 0; i < leads.count; i++) {
      const chunk = leads.chunk(i);
      if (this.leadScanned.has(chunk)) continue;
      const found = hits[i];
      const lead = leads.lead(i);
      if (found === undefined) {
        this.leadRead(chunk, lead.firstUnit, lead.dir, lead.text);
        continue;
      }
      this.leadScanned.add(chunk);
      this.leads.set(chunk, lead);
      // A lead holding no term adds no unit (the walk records an empty list for it).
      if (found && !this.scanned.has(chunk)) this.leadUnits.set(chunk, this.add(chunk, lead.firstUnit, found.dir, found.counts, false));
    }
  }

  /**
   * readLead from the leads a long-lived process keeps: the terms' lead parts come from the
   * postings of the leads' words (lead-postings.ts) rather than a walk over every lead's text;
   * a term holding a character no word holds is still walked for. Leads are taken in the order
   * the walk takes them, so the units are met in the same order.
   */
  private readCachedLeads(cache: LeadCache, chunkIds: number[] | undefined): void {
    const wantedSource = sourceTest(this.target);
    const order: number[] = [];
    const wanted = new Set<number>();
    const pick = (li: number | undefined): void => {
      if (li === undefined) return;
      const l = cache.leads[li]!;
      if (wanted.has(l.chunk) || this.leadScanned.has(l.chunk) || !wantedSource(cache.sourceOf.get(l.session))) return;
      wanted.add(l.chunk);
      order.push(li);
    };
    if (chunkIds) for (const id of chunkIds) pick(cache.leadOf.get(id));
    else for (let li = 0; li < cache.leads.length; li++) pick(li);
    const counts = cache.postings?.termCounts(this.lowered, this.kinds, wanted, MAX_TF);
    for (const li of order) {
      const l = cache.leads[li]!;
      if (!counts) {
        this.leadRead(l.chunk, l.firstUnit, l.dir, l.text, l.lower);
        continue;
      }
      this.leadScanned.add(l.chunk);
      const found = counts.get(l.chunk);
      // A lead holding no term adds no unit (the walk records an empty list for it).
      if (!found) continue;
      this.leads.set(l.chunk, l);
      if (!this.scanned.has(l.chunk)) this.leadUnits.set(l.chunk, this.add(l.chunk, l.firstUnit, l.dir, found, false));
    }
  }

  private leadRead(chunk: number, firstUnit: number, dir: PartDir[], text: string, lower?: string): void {
    this.leadScanned.add(chunk);
    const counts = countTerms(text, dir, this.lowered, this.kinds, lower);
    this.leads.set(chunk, { firstUnit, dir, text });
    if (this.scanned.has(chunk)) return;
    this.leadUnits.set(chunk, this.add(chunk, firstUnit, dir, counts, false));
  }

  /**
   * Per term, how many lead parts (of the searched kinds) hold it among the units whose lead
   * holds at least `held` of the terms; every lead that may hold such a unit must have been read.
   */
  leadDf(held: number): number[] {
    const terms = this.lowered.length;
    const df = new Array<number>(terms).fill(0);
    for (const u of this.units.values()) {
      if (u.leadHeld < held) continue;
      for (const m of u.parts) if (m.weight >= LEAD_WEIGHT) for (let t = 0; t < terms; t++) if (m.tf[t]! > 0) df[t]!++;
    }
    return df;
  }

  /** Part `n` of unit `uid` when it is in a lead read, without inflating its chunk. */
  leadPart(uid: number, n: number): StoredPart | undefined {
    const unit = this.units.get(uid);
    const lead = unit && this.leads.get(unit.chunk);
    if (!lead) return undefined;
    // A part of a kind below the lead's is not in it: the best part of most terminal hits (their output).
    for (let i = 0; i < unit.parts.length; i++) if (unit.parts[i]!.n === n && unit.parts[i]!.weight < LEAD_WEIGHT) return undefined;
    return lead instanceof LazyLead ? lead.part(uid, n) : partInLead(lead, uid, n);
  }

  /** Records the parts of a chunk that hold a term; returns the units they belong to. */
  private add(chunk: number, firstUnit: number, dir: PartDir[], counts: (number[] | undefined)[], full: boolean): number[] {
    const terms = this.lowered.length;
    const uids: number[] = [];
    // An indexed loop, not forEach with a destructuring callback: a warm search runs it in the interpreter.
    for (let p = 0; p < dir.length; p++) {
      const tf = counts[p];
      if (!tf) continue;
      const d = dir[p]!;
      const uid = firstUnit + d[0];
      let unit = this.units.get(uid);
      if (!unit) {
        // Flags in plain arrays: a warm search of common words makes thousands, and a typed array costs several times as much to make.
        this.units.set(uid, (unit = { uid, found: new Array<number>(terms).fill(0), held: 0, leadFound: new Array<number>(terms).fill(0), leadHeld: 0, parts: [], chunk, full }));
        uids.push(uid);
      }
      const weight = PART_WEIGHT[d[2]] ?? 1;
      const lead = weight >= LEAD_WEIGHT;
      for (let t = 0; t < terms; t++) {
        if (tf[t]! === 0) continue;
        if (unit.found[t] === 0) {
          unit.found[t] = 1;
          unit.held++;
        }
        if (lead && unit.leadFound[t] === 0) {
          unit.leadFound[t] = 1;
          unit.leadHeld++;
        }
      }
      unit.parts.push({ n: d[1], group: d[5] ?? d[1], weight, length: d[4], tf });
    }
    return uids;
  }
}

/** Each term's inverse document frequency, BM25's: `df` of `parts` documents hold it. */
function inverseFrequencies(df: number[], parts: number): number[] {
  const n = Math.max(parts, 1);
  return df.map((d) => Math.log(1 + (n - d + 0.5) / (d + 0.5)));
}

/**
 * BM25 of `units` (lower is better): the mean part length is the index's; without `idf`, the
 * number of parts is the index's and a term's document frequency is counted over the parts of `units`.
 */
function rankUnits(totals: { parts: number; chars: number }, units: [number, UnitScan][], idf?: number[], together = false): Map<number, UnitMatch> {
  const out = new Map<number, UnitMatch>();
  if (units.length === 0) return out;
  const terms = units[0]![1].found.length;
  if (!idf) {
    const df = new Array<number>(terms).fill(0);
    for (const [, u] of units) for (const m of u.parts) for (let t = 0; t < terms; t++) if (m.tf[t]! > 0) df[t]!++;
    idf = inverseFrequencies(df, totals.parts);
  }
  const avg = Math.max(totals.chars / Math.max(totals.parts, 1), 1);
  for (const [uid, u] of units) out.set(uid, scoreUnit(u, idf, avg, together));
  return out;
}

/** A unit's best part and its score; with `together`, also whether one group holds every term (`and`). */
function scoreUnit(u: UnitScan, idf: number[], avg: number, together = false): UnitMatch {
  const terms = idf.length;
  const seen: UnitMatch = { found: u.found, score: Infinity, part: 0, together: false };
  // Terms found per group: `and` needs one group holding them all.
  const inGroup = together ? new Map<number, Uint8Array>() : undefined;
  for (const m of u.parts) {
    let bm25 = 0;
    for (let t = 0; t < terms; t++) {
      const tf = m.tf[t]!;
      if (tf > 0) bm25 += (idf[t]! * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * m.length) / avg));
    }
    const score = -bm25 * m.weight;
    if (inGroup) {
      let group = inGroup.get(m.group);
      if (!group) inGroup.set(m.group, (group = new Uint8Array(terms)));
      for (let t = 0; t < terms; t++) if (m.tf[t]! > 0) group[t] = 1;
      if (group.every((f) => f === 1)) seen.together = true;
    }
    if (score < seen.score || (score === seen.score && m.n < seen.part)) {
      seen.score = score;
      seen.part = m.n;
    }
  }
  return seen;
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
 * Per chunk, which of the keyed terms (those long enough to have keys) it holds every key of
 * (`held` counts them, `terms` lists them): one FTS5 query per keyed term, however many levels
 * read them. `unkeyed` lists the terms no key narrows.
 */
class KeyedChunks {
  readonly unkeyedTerms: number[] = [];
  readonly unkeyed: number;
  /** Per term, the chunks holding every key of it, as FTS5 lists them (undefined: an unkeyed term). */
  private readonly lists: (number[] | undefined)[];
  private maps: { held: Map<number, number>; terms: Map<number, number[]> } | undefined;
  private bits: ChunkMasks | undefined;

  constructor(index: IndexDb, lowered: string[]) {
    this.lists = lowered.map((w, t) => {
      const keys = termKeys(w);
      if (!keys) {
        this.unkeyedTerms.push(t);
        return undefined;
      }
      return index.chunksWithKeys([keys]);
    });
    this.unkeyed = this.unkeyedTerms.length;
  }

  /** Per chunk, how many of the keyed terms it holds every key of. */
  get held(): Map<number, number> {
    return this.byChunk().held;
  }

  /** Per chunk, which keyed terms it holds every key of, in term order. */
  get terms(): Map<number, number[]> {
    return this.byChunk().terms;
  }

  private byChunk(): { held: Map<number, number>; terms: Map<number, number[]> } {
    if (this.maps) return this.maps;
    const held = new Map<number, number>();
    const terms = new Map<number, number[]>();
    this.lists.forEach((ids, t) => {
      for (const id of ids ?? []) {
        held.set(id, (held.get(id) ?? 0) + 1);
        const list = terms.get(id);
        if (list) list.push(t);
        else terms.set(id, [t]);
      }
    });
    return (this.maps = { held, terms });
  }

  /**
   * Whether every term has keys and at most `limit` chunks hold the keys of any of them (their
   * lists' lengths summed). Then reading those chunks whole (leadLevel) costs less than ranking
   * from the leads: LeadRanker.ofBytes reads the same chunks' leads and builds its masks in
   * WebAssembly first, and still reads the chunks when a hit is outside a lead (an error in a
   * command's output, the usual terminal hit).
   */
  few(limit: number): boolean {
    if (this.unkeyed > 0) return false;
    let n = 0;
    for (const ids of this.lists) n += ids!.length;
    return n <= limit;
  }

  /** The keyed terms of the first MAX_MASK_TERMS each chunk holds, as bits: what LeadRanker reads. */
  masks(): ChunkMasks {
    return (this.bits ??= new ChunkMasks(this.lists));
  }
}

/**
 * Per chunk, the keyed terms (of the first MAX_MASK_TERMS) it holds every key of, as bits (term
 * t: 1 << t), and the distinct sets the chunks hold. By chunk id in one typed array while the ids
 * are dense enough (a Map per chunk was most of a common-word search's own work), else in a Map:
 * ids only grow, and an index rewritten for months holds few chunks with large ids.
 */
class ChunkMasks {
  readonly distinct: readonly number[];
  /** The chunks holding the keys of any of the terms, as chunksHolding(keyed, 1) lists them when every term is keyed. */
  readonly ids: readonly number[];
  /** The bits by chunk id (beyond its end: 0), while the ids are dense enough. */
  readonly dense: Int32Array | undefined;
  private readonly sparse: Map<number, number> | undefined;

  constructor(lists: readonly (number[] | undefined)[]) {
    // In WebAssembly where it runs: V8 optimised these loops over a common word's thousands of chunks on other threads (~10 M instructions of a one-shot search).
    const fast = LEAD_MERGE.wasm ? denseMasks(lists, MAX_MASK_TERMS) : undefined;
    if (fast) {
      this.dense = fast.dense;
      this.ids = fast.met;
      this.distinct = fast.distinct;
      return;
    }
    let size = 0;
    let count = 0;
    for (const ids of lists) {
      if (!ids) continue;
      count += ids.length;
      for (let i = 0; i < ids.length; i++) if (ids[i]! >= size) size = ids[i]! + 1;
    }
    const met: number[] = [];
    if (size <= 8 * count + 1024) {
      const of = (this.dense = new Int32Array(size));
      lists.forEach((ids, t) => {
        if (!ids || t >= MAX_MASK_TERMS) return;
        const bit = 1 << t;
        for (let i = 0; i < ids.length; i++) {
          const id = ids[i]!;
          if (of[id] === 0) met.push(id);
          of[id]! |= bit;
        }
      });
    } else {
      const of = (this.sparse = new Map<number, number>());
      lists.forEach((ids, t) => {
        if (!ids || t >= MAX_MASK_TERMS) return;
        const bit = 1 << t;
        for (const id of ids) {
          const mask = of.get(id);
          if (mask === undefined) met.push(id);
          of.set(id, (mask ?? 0) | bit);
        }
      });
    }
    const distinct = new Set<number>();
    for (let i = 0; i < met.length; i++) distinct.add(this.get(met[i]!));
    this.distinct = [...distinct];
    this.ids = met;
  }

  /** The bits of chunk `id` (0: it holds the keys of none of the terms). */
  get(id: number): number {
    if (this.dense) return id < this.dense.length ? this.dense[id]! : 0;
    return this.sparse!.get(id) ?? 0;
  }
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

/** Rows of the units `ids` (every unit when undefined) that pass the request's source, status and time filters, in no order. */
function unitRows(index: IndexDb, req: SearchRequest, ids: number[] | undefined, decoded?: Map<number, StoredChunk | undefined>): UnitRow[] {
  if (!ids) return [...rowsOfUnits(index, req, undefined), ...recordRows(index, req, undefined)];
  const units: number[] = [];
  const records: number[] = [];
  for (const id of ids) (isRecordUnit(id) ? records : units).push(id);
  const rows = units.length > 0 ? rowsOfUnits(index, req, units) : [];
  if (records.length > 0) for (const r of recordRows(index, req, records, decoded)) rows.push(r);
  return rows;
}

// A unit's last_idx is read only for an incomplete unit (isSelfEcho): one lookup per such row rather than per row.
const UNIT_COLUMNS = `u.id AS uid, s.source, s.sid, u.idx, u.at, u.at_text, u.cwd, u.status, u.title, u.complete, s.title AS session_title,
      CASE WHEN u.complete = 0 THEN (SELECT max(idx) FROM units WHERE session = u.session) ELSE -1 END AS last_idx`;

function rowsOfUnits(index: IndexDb, req: SearchRequest, ids: number[] | undefined): UnitRow[] {
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
    return slimRowsOfUnits(index, `SELECT ${SLIM_UNIT_JSON} FROM ${from} JOIN sessions s ON s.id = u.session WHERE ${where.join(' AND ')}`, params);
  }
  const sql = `SELECT ${UNIT_COLUMNS} FROM ${from} JOIN sessions s ON s.id = u.session WHERE ${where.join(' AND ')}`;
  // raw(): arrays, each made into a row here — better-sqlite3 makes an object through V8's API per row.
  const rows = index.stmt(sql).raw(true).all(...params) as UnitRowValues[];
  const out: UnitRow[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const [uid, source, sid, idx, at, at_text, cwd, status, title, complete, session_title, last_idx] = rows[i]!;
    out[i] = { uid, source, sid, idx, at, at_text, cwd, status, title, complete, session_title, last_idx };
  }
  return out;
}

/** UNIT_COLUMNS as raw() reads them. */
type UnitRowValues = [number, string, string, number, number | null, string | null, string | null, StatusName, string, number, string | null, number];

// The candidates' rows without the texts only a shown hit needs (its time as written, its title
// and its session's), as one JSON array SQLite makes and one JSON.parse reads: better-sqlite3
// makes every value of a row through V8's API (~15 K instructions a row of twelve, and a common
// word settles hundreds of rows to show ten; a title holding CJK is decoded to two-byte text).
// A terminal record's title is read too (an index that gives records rows of their own): isOwnRecord reads it.
const SLIM_UNIT_JSON = `json_group_array(json_array(u.id, s.source, s.sid, u.idx, u.at, u.cwd, u.status, u.complete,
      CASE WHEN u.complete = 0 THEN (SELECT max(idx) FROM units WHERE session = u.session) ELSE -1 END,
      CASE WHEN s.source = 'terminal' THEN u.title END))`;

type SlimUnitValues = [number, string, string, number, number | null, string | null, StatusName, number, number, string | null];

function slimRowsOfUnits(index: IndexDb, sql: string, params: unknown[]): UnitRow[] {
  const rows = JSON.parse(index.stmt(sql).pluck().get(...params) as string) as SlimUnitValues[];
  const out: UnitRow[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const [uid, source, sid, idx, at, cwd, status, complete, last_idx, title] = rows[i]!;
    out[i] = { uid, source, sid, idx, at, at_text: null, cwd, status, title: title ?? '', complete, session_title: null, last_idx, textsUnread: true };
  }
  return out;
}

/** `rows` with the texts slimRowsOfUnits left unread read in, in place. */
function withTexts<T extends UnitRow>(index: IndexDb, rows: T[]): T[] {
  const unread = rows.filter((r) => r.textsUnread);
  if (unread.length === 0) return rows;
  const byUid = new Map(unread.map((r) => [r.uid, r]));
  const sql = 'SELECT u.id, u.at_text, u.title, s.title FROM json_each(?) c JOIN units u ON u.id = c.value JOIN sessions s ON s.id = u.session';
  for (const [uid, atText, title, sessionTitle] of index.stmt(sql).raw(true).all(JSON.stringify([...byUid.keys()])) as [number, string | null, string, string | null][]) {
    const r = byUid.get(uid)!;
    r.at_text = atText;
    r.title = title;
    r.session_title = sessionTitle;
    delete r.textsUnread;
  }
  return rows;
}

type RecordChunkRow = { id: number; first_unit: number; records: Buffer; source: string; sid: string; session_title: string | null };

/**
 * Rows of terminal records (`ids`, or all of them), read from their chunks' record lists (those
 * the search decoded already, else from the row) with the filters rowsOfUnits puts in SQL: a
 * time compared as SQL compares NULL (never passes).
 */
function recordRows(index: IndexDb, req: SearchRequest, ids: number[] | undefined, decoded?: Map<number, StoredChunk | undefined>): UnitRow[] {
  const src = sourceFilter(req.target);
  const params: unknown[] = [...src.params];
  let wanted: Map<number, number[]> | undefined;
  let chunks = 'c.records IS NOT NULL';
  if (ids) {
    wanted = new Map();
    for (const id of ids) {
      const chunk = chunkOfRecord(id);
      const list = wanted.get(chunk);
      if (list) list.push(id);
      else wanted.set(chunk, [id]);
    }
    chunks = 'c.id IN (SELECT value FROM json_each(?)) AND c.records IS NOT NULL';
    params.unshift(JSON.stringify([...wanted.keys()]));
  }
  const sql = `SELECT c.id, c.first_unit, c.records, s.source, s.sid, s.title AS session_title FROM chunks c JOIN sessions s ON s.id = c.session WHERE ${chunks} AND ${src.sql}`;
  const out: UnitRow[] = [];
  for (const c of index.stmt(sql).all(...params) as RecordChunkRow[]) {
    const records = decoded?.get(c.id)?.records ?? decodeRecords(c.records);
    const uids = wanted?.get(c.id);
    const n = uids ? uids.length : records.count;
    for (let j = 0; j < n; j++) {
      const k = uids ? uids[j]! - c.first_unit : j;
      if (k < 0 || k >= records.count) continue;
      const m = recordMeta(records.entry(k));
      if (req.status && m.status !== req.status) continue;
      if (req.since !== undefined && !(m.at !== null && m.at >= req.since)) continue;
      if (req.until !== undefined && !(m.at !== null && m.at <= req.until)) continue;
      // Records are never incomplete (only an agent turn runs on), so last_idx, read only for an
      // incomplete unit, is left unknown rather than looked up.
      out.push({ uid: c.first_unit + k, source: c.source, sid: c.sid, idx: m.idx, at: m.at, at_text: m.atText, cwd: m.cwd, status: m.status, title: m.title, complete: 1, session_title: c.session_title, last_idx: -1 });
    }
  }
  return out;
}

/** The parts of a unit (of the kinds `field` and `only` search), in order; decoded chunks are kept for the search. */
function partsOf(index: IndexDb, cache: Map<number, StoredChunk | undefined>, uid: number, field: SearchField, only?: readonly string[]): StoredPart[] {
  const chunkId = isRecordUnit(uid) ? chunkOfRecord(uid) : (index.stmt('SELECT chunk FROM units WHERE id = ?').pluck().get(uid) as number | undefined);
  if (chunkId === undefined) return [];
  if (!cache.has(chunkId)) cache.set(chunkId, index.chunk(chunkId));
  const parts = cache.get(chunkId)?.partsOf(uid) ?? [];
  const kinds = allowedKinds(field, only);
  if (!kinds) return parts;
  const out: StoredPart[] = [];
  for (let i = 0; i < parts.length; i++) if (kinds.has(parts[i]!.kind)) out.push(parts[i]!);
  return out;
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

/** The display ids of the sessions of `page`, by source (displayIds over each source's session ids). */
function sessionDisplayIds(index: IndexDb, page: Candidate[]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const source of new Set(page.map((c) => c.source))) {
    if (findSource(source)?.sessionIsUnit) continue; // refs name these sessions by their full id
    const sids = page.filter((c) => c.source === source).map((c) => c.sid);
    out.set(source, index.keepLeads ? index.keptWhileUnchanged(`display-ids:${source}`, () => displayIds(index.sidsOf(source))) : (neighbourDisplayIds(index, source, sids) ?? displayIds(index.sidsOf(source))));
  }
  return out;
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * The display ids of `sids` alone, each from its neighbours among the source's ids, which is all
 * displayIds reads of them: a one-shot search shows a few sessions of sources holding hundreds
 * (reading, sorting and prefixing 333 ids each of two sources was ~2 M instructions of a search
 * of 会话 at 1 GB). SQLite orders the ids by their UTF-8 bytes, the order of code points, which
 * is JavaScript's wherever the first difference holds an ASCII character: undefined (every id
 * read) unless an id and its neighbours are ASCII.
 */
function neighbourDisplayIds(index: IndexDb, source: string, sids: string[]): Map<string, string> | undefined {
  const before = index.stmt('SELECT max(sid) FROM sessions WHERE source = ? AND sid < ?').pluck();
  const after = index.stmt('SELECT min(sid) FROM sessions WHERE source = ? AND sid > ?').pluck();
  const out = new Map<string, string>();
  for (const sid of sids) {
    if (out.has(sid)) continue;
    const b = (before.get(source, sid) as string | null) ?? undefined;
    const a = (after.get(source, sid) as string | null) ?? undefined;
    if (!ASCII.test(sid) || (b !== undefined && !ASCII.test(b)) || (a !== undefined && !ASCII.test(a))) return undefined;
    out.set(sid, displayIdBetween(sid, b, a));
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

function candidatesOf(index: IndexDb, req: SearchRequest, matched: Map<number, UnitMatch>, ids: number[], allTerms: (m: UnitMatch) => boolean, decoded: Map<number, StoredChunk | undefined>): Candidate[] {
  // The rows are made for this call: each becomes its candidate in place (a copy of each was a tenth of a common-word search).
  const rows = unitRows(index, req, ids, decoded) as Candidate[];
  for (let i = 0; i < rows.length; i++) {
    const c = rows[i]!;
    const m = matched.get(c.uid)!;
    c.score = m.score;
    c.bestPart = m.part;
    c.allTerms = allTerms(m);
  }
  return rows;
}

/**
 * How a search with terms ranks (see docs/cli.md "How search ranks"). `lead`: a searched kind is
 * a lead kind, so a term's document frequency counts lead parts (read from the leads alone, a few
 * percent of the text) against the index's `leadParts`. `weight` is the heaviest searched kind
 * that is not a lead kind (0: none is searched); a part of it scores below weight × (k1 + 1) × the
 * idf of its terms, which lets a level leave unread every chunk whose units cannot reach the page.
 */
type Ranking = { lead: boolean; leadParts: number; avg: number; weight: number; totals: { parts: number; chars: number } };

function ranking(index: IndexDb, scan: TermScan): Ranking {
  const totals = index.totals();
  const avg = Math.max(totals.chars / Math.max(totals.parts, 1), 1);
  const kinds = scan.kinds ? [...scan.kinds] : undefined;
  if (kinds && !kinds.some(isLeadKind)) return { lead: false, leadParts: 0, avg, weight: 0, totals };
  let weight = kinds ? 0 : 1;
  for (const k of kinds ?? Object.keys(PART_WEIGHT)) if (!isLeadKind(k)) weight = Math.max(weight, PART_WEIGHT[k] ?? 1);
  return { lead: true, leadParts: index.leadParts(), avg, weight, totals };
}

/** The terms' idf for a level of `held` terms: their leads read, the frequencies counted among them. */
function levelIdf(scan: TermScan, keyed: KeyedChunks, rank: Ranking, held: number): number[] {
  scan.readLead(chunksHolding(keyed, held));
  return inverseFrequencies(scan.leadDf(held), rank.leadParts);
}

/** Every chunk of the target, for a level whose terms no key narrows. */
function targetChunks(index: IndexDb, req: SearchRequest): number[] {
  const src = sourceFilter(req.target);
  return index.stmt(`SELECT c.id FROM chunks c JOIN sessions s ON s.id = c.session WHERE ${src.sql}`).pluck().all(...src.params) as number[];
}

type Level = { unique: Candidate[]; folded: number; own: number; exact: boolean };

/** Members settled first (their rows read, the filters run): at least this many, and four times the page. */
const SETTLE_FIRST = 256;

/**
 * Settles the best of `members` (by score; all of them for `--sort time`): rows are read, and the
 * filters run, for a prefix that grows until it holds `need` hits, and always ends between two
 * scores, so a member left out scores below every hit of the page. `complete`: every member was settled.
 */
function settleBest(index: IndexDb, chunks: Map<number, StoredChunk | undefined>, req: SearchRequest, members: [number, UnitMatch][], need: number, allTerms: (m: UnitMatch) => boolean): { settled: { unique: Candidate[]; folded: number; own: number }; complete: boolean } {
  // The prefix is every member scoring at most the take-th score, so only that score is needed:
  // from a sorted copy of the scores (a numeric sort in native code; a comparator called
  // thousands of times ran in the interpreter), the members kept in their order (settle orders them).
  const len = members.length;
  const sorted = new Float64Array(len);
  for (let i = 0; i < len; i++) sorted[i] = members[i]![1].score;
  sorted.sort();
  let take = req.sort === 'time' ? len : Math.min(len, Math.max(need * 4, SETTLE_FIRST));
  for (;;) {
    while (take < len && sorted[take] === sorted[take - 1]) take++;
    let prefix = members;
    if (take < len) {
      const last = take === 0 ? -Infinity : sorted[take - 1]!;
      prefix = [];
      for (let i = 0; i < len; i++) if (members[i]![1].score <= last) prefix.push(members[i]!);
    }
    const ids = new Array<number>(prefix.length);
    for (let i = 0; i < prefix.length; i++) ids[i] = prefix[i]![0];
    const settled = settle(index, chunks, req, candidatesOf(index, req, new Map(prefix), ids, allTerms, chunks));
    if (settled.unique.length >= need || take === len) return { settled, complete: take === len };
    take = Math.min(len, take * 4);
  }
}

/**
 * The units holding exactly `held` of the terms, settled, as far as the page needs them: with
 * `need` hits to fill, a chunk is read whole only while one of its units could still reach the
 * page — its lead's best part, or a part outside the lead (at most `bound`), scoring at least the
 * `need`th hit so far. A unit whose lead holds every term its chunk may hold, with a lead part
 * scoring above `bound`, is known from the lead. `exact`: every unit of the level was known, so
 * the level's count is its size, not a lower bound.
 */
function leadLevel(index: IndexDb, req: SearchRequest, scan: TermScan, chunks: Map<number, StoredChunk | undefined>, rank: Ranking, keyed: KeyedChunks, held: number, need: number): Level {
  const idf = levelIdf(scan, keyed, rank, held);
  const terms = scan.lowered.length;
  const candidates = chunksHolding(keyed, held) ?? targetChunks(index, req);
  const possible = (chunk: number): number => (keyed.held.get(chunk) ?? 0) + keyed.unkeyed;
  // A part outside the lead of a unit holding `held` terms, all of them among those its chunk
  // may hold, scores below this (BM25's term factor stays below K1 + 1).
  const bounds = new Map<number, number>();
  // Chunks that may hold the same terms share their bound (most chunks may hold every word of a common query).
  const byTerms = new Map<string, number>();
  const boundOf = (chunk: number): number => {
    let b = bounds.get(chunk);
    if (b === undefined) {
      const list = keyed.terms.get(chunk) ?? [];
      const key = list.join(',');
      b = byTerms.get(key);
      if (b === undefined) {
        const mine = [...list, ...keyed.unkeyedTerms].map((t) => idf[t]!).sort((x, y) => y - x);
        b = rank.weight * (K1 + 1) * mine.slice(0, held).reduce((x, y) => x + y, 0);
        byTerms.set(key, b);
      }
      bounds.set(chunk, b);
    }
    return b;
  };
  for (;;) {
    const members: [number, UnitMatch][] = [];
    // Per chunk not read whole: the best score one of its units could still have at this level.
    const open = new Map<number, number>();
    if (rank.weight > 0) for (const c of candidates) if (!scan.scanned.has(c) && possible(c) >= held) open.set(c, -boundOf(c));
    for (const u of scan.units.values()) {
      const uid = u.uid;
      if (u.full) {
        if (u.held === held) members.push([uid, scoreUnit(u, idf, rank.avg)]);
        continue;
      }
      const top = rank.weight === 0 ? u.held : possible(u.chunk);
      if (u.held > held || top < held) continue;
      const m = scoreUnit(u, idf, rank.avg);
      const bound = rank.weight === 0 ? 0 : boundOf(u.chunk);
      if (u.held === top && m.score <= -bound) members.push([uid, m]);
      else open.set(u.chunk, Math.min(open.get(u.chunk) ?? Infinity, m.score, -bound));
    }
    const { settled, complete } = settleBest(index, chunks, req, members, need, () => held === terms);
    let read: number[];
    if (req.sort === 'time' || settled.unique.length < need) read = [...open.keys()];
    else {
      const last = settled.unique[need - 1]!.score;
      read = [];
      for (const [c, best] of open) if (best <= last) read.push(c);
    }
    if (read.length === 0) return { ...settled, exact: open.size === 0 && complete };
    scan.read(read);
  }
}

/**
 * A query of words without an operator, by coverage: the units holding every word, then those
 * holding all but one, and so on, each level ranked on its own; a level is read only when the
 * ones above it left the page short. A level's units live in the chunks holding the keys of that
 * many terms, so the hits with every word of an error message no longer wait for every chunk
 * holding "to" or "port"; `coverage` says down to which level the total counted. When the kinds
 * searched include a lead kind, a level reads only what can reach the page (see leadLevel).
 */
type Ranked = Omit<SearchResult, 'hits'> & { page: Candidate[]; leadPart?: (uid: number, n: number) => StoredPart | undefined };

function byCoverage(index: IndexDb, req: SearchRequest, words: string[], chunks: Map<number, StoredChunk | undefined>): Ranked {
  const lowered = words.map((w) => w.toLowerCase());
  const scan = new TermScan(index, req, lowered, chunks);
  const keyed = new KeyedChunks(index, lowered);
  const rank = ranking(index, scan);
  if (rank.lead) {
    const kept = LeadRanker.of(index, req, lowered, scan.kinds, keyed, rank, chunks);
    const ranker = kept ?? (index.cachedLeads() || keyed.few(leadBytesPath.fewChunks) ? undefined : LeadRanker.ofBytes(index, req, lowered, scan.kinds, keyed, rank, chunks));
    const ranked = ranker && coverageLevels(req, lowered.length, (held, need) => ranker.level(held, need));
    const stats = kept ? leadRankStats : leadBytesPath;
    if (ranked) {
      stats.ranked++;
      return { ...ranked, leadPart: (uid, n) => ranker!.leadPart(uid, n) };
    }
    if (ranker) stats.readOn++;
  }
  const ranked = coverageLevels(req, lowered.length, (held, need) => {
    if (rank.lead) return leadLevel(index, req, scan, chunks, rank, keyed, held, need);
    scan.read(chunksHolding(keyed, held));
    const units = [...scan.units].filter(([, u]) => u.held === held);
    const matched = rankUnits(rank.totals, units);
    return { ...settle(index, chunks, req, candidatesOf(index, req, matched, units.map(([uid]) => uid), () => held === lowered.length, chunks)), exact: true };
  })!;
  return { ...ranked, leadPart: (uid, n) => scan.leadPart(uid, n) };
}

/** The levels of byCoverage, from `terms` words held down, each from `level`; undefined when a level is. */
function coverageLevels(req: SearchRequest, terms: number, level: (held: number, need: number) => Level | undefined): Ranked | undefined {
  const page: Candidate[] = [];
  let total = 0;
  let folded = 0;
  let own = 0;
  let exact = true;
  let held = terms;
  for (; held >= 1; held--) {
    const got = level(held, req.limit - page.length);
    if (!got) return undefined;
    total += got.unique.length;
    folded += got.folded;
    own += got.own;
    if (!got.exact) exact = false;
    for (const c of got.unique) if (page.length < req.limit) page.push(c);
    if (page.length >= req.limit) break;
  }
  const coverage = held > 1 ? { least: held, of: terms } : undefined;
  return { total, folded, own, page, ...(coverage ? { coverage } : {}), ...(exact ? {} : { totalAtLeast: true as const }) };
}

/**
 * Whether a process that does not keep the leads reads them as bytes (lead-bytes.ts), how often
 * it did, and how often a search was ranked from them alone (LeadRanker) or read on (for tests).
 * A search whose terms' keys are in at most `fewChunks` chunks reads those chunks instead
 * (KeyedChunks.few): a warm search "connection refused" over the bench's 300 MB, 3 chunks,
 * ran ~3 M instructions fewer so.
 */
export const leadBytesPath = { enabled: true, listed: true, fewChunks: 8, used: 0, fromLists: 0, ranked: 0, readOn: 0 };

/** Whether a target holds a session (by its row id), as sourceFilter says in SQL; undefined for every target. */
function sessionTest(index: IndexDb, target: string): ((session: number) => boolean) | undefined {
  if (target === 'all') return undefined;
  const wanted = sourceTest(target);
  const sourceOf = new Map(index.stmt('SELECT id, source FROM sessions').raw(true).all() as [number, string][]);
  return (session) => wanted(sourceOf.get(session));
}

/** How often the server's searches were ranked from the leads' postings alone, and how often they went on to read chunks (for tests). */
export const leadRankStats = { ranked: 0, readOn: 0 };

const NO_FLAGS: number[] = [];

/** The leads of the sessions of a target (sourceFilter's test), as LeadPostings.matchUnits asks for them. */
class LeadsOfTarget {
  private readonly records: Set<string> | undefined;

  constructor(
    private readonly target: string,
    private readonly sourceOf: Map<number, string>,
  ) {
    if (target === 'agent') this.records = new Set(recordSourceNames());
  }

  wants(lead: CachedLead): boolean {
    const source = this.sourceOf.get(lead.session);
    if (source === undefined) return false;
    if (this.target === 'all') return true;
    if (this.records) return !this.records.has(source);
    return source === this.target;
  }
}

/**
 * leadLevel over the postings of the leads a long-lived process keeps (lead-postings.ts), with
 * the units in flat arrays (LeadUnits) rather than an object each: a search of common words
 * meets thousands of units and shows ten. It answers a level as leadLevel answers it when no
 * chunk need be read whole — every unit that could reach the page is known from its lead, the
 * case of common words — and says undefined otherwise (byCoverage then ranks as before), so
 * the page, order, totals and snippets are leadLevel's. A unit's leads are visible at a level
 * as leadLevel reads them: those of the chunks holding the keys of enough of the terms.
 */
class LeadRanker {
  /** Per unit: the keyed terms its chunk holds (count and bits), for the JavaScript loops (see keyedArrays). */
  private keyedHeld = new Int32Array(0);
  private keyedMask = new Int32Array(0);
  private keyedDone = false;
  private readonly scores: Float64Array;
  private readonly parts: Int32Array;
  /** The units settled so far, by uid: the page's hits are among them. */
  private readonly settledUnits = new Map<number, number>();

  private constructor(
    private readonly index: IndexDb,
    private readonly req: SearchRequest,
    private readonly units: LeadUnits,
    private readonly keyed: KeyedChunks,
    private readonly rank: Ranking,
    private readonly chunks: Map<number, StoredChunk | undefined>,
  ) {
    const n = units.count;
    this.scores = new Float64Array(n);
    this.parts = new Int32Array(n);
  }

  /** keyedHeld and keyedMask, made when a level is ranked in JavaScript (WebAssembly finds them itself). */
  private keyedArrays(): void {
    if (this.keyedDone) return;
    this.keyedDone = true;
    const { units } = this;
    const n = units.count;
    this.keyedHeld = new Int32Array(n);
    this.keyedMask = new Int32Array(n);
    const masks = this.keyed.masks();
    let chunk = -1;
    let held = 0;
    let mask = 0;
    for (let u = 0; u < n; u++) {
      if (units.chunk[u] !== chunk) {
        chunk = units.chunk[u]!;
        mask = masks.get(chunk);
        held = popcount(mask);
      }
      this.keyedHeld[u] = held;
      this.keyedMask[u] = mask;
    }
  }

  /**
   * A ranker over the leads read as bytes (lead-bytes.ts), for a process that keeps none: those of
   * every chunk a level may see (holding the keys of one of the terms, or every chunk of the
   * target when a term has none). A level it cannot answer reads them again, as TermScan.
   */
  static ofBytes(index: IndexDb, req: SearchRequest, lowered: string[], kinds: Set<string> | undefined, keyed: KeyedChunks, rank: Ranking, chunks: Map<number, StoredChunk | undefined>): LeadRanker | undefined {
    if (!leadBytesPath.enabled || lowered.length > MAX_MASK_TERMS) return undefined;
    // The lists of the index's common lead terms, when every term has one and keys: the leads they were counted from are left unread.
    if (leadBytesPath.listed && keyed.unkeyed === 0) {
      const masks = keyed.masks();
      const units = listedUnits(index, lowered, kinds, MAX_TF, (chunk) => masks.get(chunk) !== 0, sessionTest(index, req.target), masks.dense);
      if (units) {
        leadBytesPath.fromLists++;
        return new LeadRanker(index, req, units, keyed, rank, chunks);
      }
    }
    if (!bytesCountable(lowered)) return undefined;
    const src = sourceFilter(req.target);
    let sql = `SELECT ${LeadBytes.columns(lowered)} FROM leads c JOIN sessions s ON s.id = c.session WHERE ${src.sql}`;
    const params: unknown[] = [...src.params];
    // chunksHolding(keyed, 1) from the masks the ranker reads anyway: the per-chunk maps it builds cost a common-word search several milliseconds.
    const ids = keyed.unkeyed > 0 ? undefined : keyed.masks().ids;
    if (ids) {
      sql += ' AND c.chunk IN (SELECT value FROM json_each(?))';
      params.push(JSON.stringify(ids));
    }
    leadBytesPath.used++;
    const units = LeadBytes.read(index, sql, params).units(lowered, kinds, MAX_TF);
    return units && new LeadRanker(index, req, units, keyed, rank, chunks);
  }

  static of(index: IndexDb, req: SearchRequest, lowered: string[], kinds: Set<string> | undefined, keyed: KeyedChunks, rank: Ranking, chunks: Map<number, StoredChunk | undefined>): LeadRanker | undefined {
    const cache = index.cachedLeads();
    if (!cache?.postings) return undefined;
    const units = cache.postings.matchUnits(lowered, kinds, new LeadsOfTarget(req.target, cache.sourceOf), MAX_TF);
    return units && new LeadRanker(index, req, units, keyed, rank, chunks);
  }

  // The level being ranked, for the methods below: methods rather than closures made per level,
  // which V8 would inline and then throw away at the next search (a closure is a new call target).
  private held = 0;
  private keyedNeed = 0;
  private idf: number[] = [];
  private readonly bounds = new Map<number, number>();
  private anyOpen = false;
  private bestOpen = Infinity;

  level(held: number, need: number): Level | undefined {
    if (need <= 0) return undefined;
    this.held = held;
    this.keyedNeed = held - this.keyed.unkeyed;
    // The level's loops over every unit in WebAssembly where it runs: V8 optimised them in JavaScript on other threads, ~20 M instructions of a "parser config" search.
    const dense = LEAD_MERGE.wasm ? this.keyed.masks().dense : undefined;
    const wasm = dense && LevelInWasm.place(this.units, dense, this.keyed.masks().distinct);
    if (wasm) LEAD_MERGE.levels++;
    else this.keyedArrays();
    this.idf = inverseFrequencies(wasm ? wasm.leadDf(held, this.keyedNeed, LEAD_WEIGHT) : this.leadDf(), this.rank.leadParts);
    this.bounds.clear();
    this.anyOpen = false;
    this.bestOpen = Infinity;
    if (this.rank.weight > 0) this.openChunks();
    const members = wasm ? this.selectInWasm(wasm) : this.scoreUnits();
    const { settled, complete } = this.settleBest(members, need, held === this.units.terms);
    if (this.req.sort === 'time' || settled.unique.length < need) {
      if (this.anyOpen) return undefined;
    } else if (this.anyOpen && this.bestOpen <= settled.unique[need - 1]!.score) return undefined;
    return { ...settled, exact: !this.anyOpen && complete };
  }

  /** leadDf: the lead parts holding each term, among the units whose lead holds at least `held` terms. */
  private leadDf(): number[] {
    const { units, held, keyedNeed, keyedHeld } = this;
    const terms = units.terms;
    const df = new Array<number>(terms).fill(0);
    for (let u = 0; u < units.count; u++) {
      if (units.held[u]! < held || (keyedNeed > 0 && keyedHeld[u]! < keyedNeed)) continue;
      for (let r = units.start[u]!; r < units.start[u + 1]!; r++) {
        if (units.weight[r]! < LEAD_WEIGHT) continue;
        for (let t = 0; t < terms; t++) if (units.tf[r * terms + t]! > 0) df[t]!++;
      }
    }
    return df;
  }

  /** leadLevel's boundOf, for a chunk holding the keyed terms `mask`. */
  private boundOf(mask: number): number {
    let b = this.bounds.get(mask);
    if (b === undefined) {
      const { idf, held } = this;
      const list: number[] = [];
      for (let t = 0; t < this.units.terms; t++) if (mask & (1 << t)) list.push(t);
      const mine = [...list, ...this.keyed.unkeyedTerms].map((t) => idf[t]!).sort((x, y) => y - x);
      b = this.rank.weight * (K1 + 1) * mine.slice(0, held).reduce((x, y) => x + y, 0);
      this.bounds.set(mask, b);
    }
    return b;
  }

  /** The chunks leadLevel keeps open before any unit: every keyed chunk holding enough of the terms (those holding the same share a bound), else every chunk of the target. */
  private openChunks(): void {
    const masks = this.keyed.masks();
    if (this.keyedNeed > 0) {
      for (const mask of masks.distinct) {
        if (popcount(mask) < this.keyedNeed) continue;
        this.anyOpen = true;
        this.bestOpen = Math.min(this.bestOpen, -this.boundOf(mask));
      }
      return;
    }
    for (const c of targetChunks(this.index, this.req)) {
      this.anyOpen = true;
      this.bestOpen = Math.min(this.bestOpen, -this.boundOf(masks.get(c)));
    }
  }

  /** Scores the units that may hold `held` terms (scoreUnit: the best part, ties to the first): the members, known from their lead; the others keep their chunk open. */
  private scoreUnits(): number[] {
    const { units, rank, scores, parts, idf, held, keyedNeed, keyedHeld } = this;
    const terms = units.terms;
    const members: number[] = [];
    const avg = rank.avg;
    const unkeyed = this.keyed.unkeyed;
    // The units of a chunk are consecutive and share its mask: its bound is looked up once.
    let lastMask = -1;
    let lastBound = 0;
    // Every unit scored at once in WebAssembly where it runs: V8 optimised this loop in JavaScript on other threads, ~27 M instructions of a "parser config" search.
    const scored = LEAD_MERGE.wasm && scoreInWasm(units, idf, K1, B, avg, scores, parts);
    for (let u = 0; u < units.count; u++) {
      // A unit's lead is read at this level when its chunk holds the keys of enough of the terms.
      if (keyedNeed > 0 && keyedHeld[u]! < keyedNeed) continue;
      const top = rank.weight === 0 ? units.held[u]! : this.keyedHeld[u]! + unkeyed;
      if (units.held[u]! > held || top < held) continue;
      if (!scored) {
        let score = Infinity;
        let part = 0;
        for (let r = units.start[u]!; r < units.start[u + 1]!; r++) {
          let bm25 = 0;
          const length = units.length[r]!;
          for (let t = 0; t < terms; t++) {
            const tf = units.tf[r * terms + t]!;
            if (tf > 0) bm25 += (idf[t]! * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avg));
          }
          const s = -bm25 * units.weight[r]!;
          if (s < score || (s === score && units.n[r]! < part)) {
            score = s;
            part = units.n[r]!;
          }
        }
        scores[u] = score;
        parts[u] = part;
      }
      const score = scores[u]!;
      let bound = 0;
      if (rank.weight !== 0) {
        const mask = this.keyedMask[u]!;
        if (mask !== lastMask) {
          lastMask = mask;
          lastBound = this.boundOf(mask);
        }
        bound = lastBound;
      }
      if (units.held[u] === top && score <= -bound) members.push(u);
      else {
        this.anyOpen = true;
        this.bestOpen = Math.min(this.bestOpen, score, -bound);
      }
    }
    return members;
  }

  /** scoreUnits in WebAssembly (LevelInWasm.select), with the bound of every distinct mask and of mask 0 looked up first. */
  private selectInWasm(wasm: LevelInWasm): Int32Array {
    const weightZero = this.rank.weight === 0;
    const bounds = weightZero ? [0] : [...this.keyed.masks().distinct.map((m) => this.boundOf(m)), this.boundOf(0)];
    const out = wasm.select(this.idf, K1, B, this.rank.avg, this.held, this.keyedNeed, weightZero, this.keyed.unkeyed, bounds, this.bestOpen, this.scores, this.parts);
    if (out.anyOpen) this.anyOpen = true;
    this.bestOpen = out.bestOpen;
    return out.members;
  }

  /** settleBest over members given as units: their order by score from a sorted copy of the scores, rows read for the prefix alone. */
  private settleBest(members: ArrayLike<number> & Iterable<number>, need: number, allTerms: boolean): { settled: { unique: Candidate[]; folded: number; own: number }; complete: boolean } {
    const { units, scores, parts, req } = this;
    const len = members.length;
    const sorted = new Float64Array(len);
    for (let i = 0; i < len; i++) sorted[i] = scores[members[i]!]!;
    sorted.sort();
    let take = req.sort === 'time' ? len : Math.min(len, Math.max(need * 4, SETTLE_FIRST));
    for (;;) {
      while (take < len && sorted[take] === sorted[take - 1]) take++;
      const matched = new Map<number, UnitMatch>();
      const ids: number[] = [];
      const last = take === 0 ? -Infinity : sorted[take - 1]!;
      for (const u of members) {
        if (take < len && scores[u]! > last) continue;
        const uid = units.uid[u]!;
        matched.set(uid, { found: NO_FLAGS, score: scores[u]!, part: parts[u]!, together: false });
        ids.push(uid);
        this.settledUnits.set(uid, u);
      }
      const settled = settle(this.index, this.chunks, req, candidatesOf(this.index, req, matched, ids, () => allTerms, this.chunks));
      if (settled.unique.length >= need || take === len) return { settled, complete: take === len };
      take = Math.min(len, take * 4);
    }
  }

  /** Part `n` of unit `uid` from its lead (TermScan.leadPart). */
  leadPart(uid: number, n: number): StoredPart | undefined {
    const u = this.settledUnits.get(uid);
    if (u === undefined) return undefined;
    const lead = this.units.leadOf(u);
    return lead instanceof LazyLead ? lead.part(uid, n) : partInLead(lead, uid, n);
  }
}

export function search(index: IndexDb, req: SearchRequest): SearchResult {
  const terms = requestTerms(req);
  const withTerms = hasTerms(terms);
  const words = [...terms.long, ...terms.short];
  const chunks = new Map<number, StoredChunk | undefined>();
  let result: Ranked;
  if (req.field !== 'title' && withTerms && req.operator === undefined) {
    result = byCoverage(index, req, words, chunks);
  } else {
    let candidates: Candidate[];
    if (req.field === 'title') {
      candidates = titleCandidates(index, req, terms);
    } else if (withTerms) {
      const lowered = words.map((w) => w.toLowerCase());
      const scan = new TermScan(index, req, lowered, chunks);
      const rank = ranking(index, scan);
      const idf = rank.lead ? levelIdf(scan, new KeyedChunks(index, lowered), rank, 1) : undefined;
      scan.read(candidateChunks(index, lowered, req.operator));
      const matched = rankUnits(rank.totals, [...scan.units].filter(([, u]) => u.full), idf, req.operator === 'and');
      const ids = [...matched.keys()].filter((uid) => req.operator !== 'and' || matched.get(uid)!.together);
      candidates = candidatesOf(index, req, matched, ids, (m) => m.found.every((f) => f === 1), chunks);
    } else {
      candidates = unitRows(index, req, undefined).map((row) => ({ ...row, score: 0, bestPart: null, allTerms: true }));
      // Without terms, `--kind` keeps the units that have a part of the kind.
      if (req.kinds) candidates = candidates.filter((c) => partsOf(index, chunks, c.uid, req.field === 'title' ? 'content' : req.field, req.kinds).length > 0);
    }
    const { unique, folded, own } = settle(index, chunks, req, candidates);
    result = { total: unique.length, folded, own, page: unique.slice(0, req.limit) };
  }
  const { page: found, leadPart, ...rest } = result;
  const page = withTexts(index, found);
  const ids = sessionDisplayIds(index, page);
  const hits = page.map((c) => toHit(index, chunks, c, req, terms, ids, leadPart));
  return { ...rest, hits };
}

/**
 * Ranks the index's most common lead words a few times, the answers thrown away: V8 optimises
 * the ranking of common words (LeadRanker, LeadPostings.matchUnits) only once it has run a while,
 * and the first common-word searches of a new MCP server took two to three times as long as the
 * later ones. A long-lived process calls it once, after its first search.
 */
export function warmUpRanking(index: IndexDb, now: number): void {
  const words = index.cachedLeads()?.postings?.commonWords(3) ?? [];
  if (words.length < 3) return;
  const [a, b, c] = words as [string, string, string];
  for (const query of [`${a} ${b}`, `${b} ${c}`, a, `${c} ${a} ${b}`]) {
    search(index, { target: 'all', query, field: 'content', limit: 10, now, current: [] });
  }
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

function toHit(index: IndexDb, chunks: Map<number, StoredChunk | undefined>, c: Candidate, req: SearchRequest, terms: QueryTerms, ids: Map<string, Map<string, string>>, leadPart?: (uid: number, n: number) => StoredPart | undefined): Hit {
  // The best part from the lead when it is there: a page of common words' hits inflated a chunk each.
  let best = c.bestPart === null ? undefined : leadPart?.(c.uid, c.bestPart);
  const parts = best ? [best] : partsOf(index, chunks, c.uid, req.field === 'title' ? 'content' : req.field, req.kinds);
  best ??= parts.find((p) => p.n === c.bestPart);
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

/** Part `n` of unit `uid` in a lead's text. The directory lists parts by unit ordinal: the walk stops past the unit. */
function partInLead(lead: Pick<CachedLead, 'firstUnit' | 'dir' | 'text'>, uid: number, n: number): StoredPart | undefined {
  const ordinal = uid - lead.firstUnit;
  const dir = lead.dir;
  let at = 0;
  for (let i = 0; i < dir.length; i++) {
    const d = dir[i]!;
    if (d[0] === ordinal && d[1] === n) return { uid, n, kind: d[2], label: d[3], text: lead.text.slice(at, at + d[4]), group: d[5] };
    if (d[0] > ordinal) break;
    at += d[4] + 1;
  }
  return undefined;
}
