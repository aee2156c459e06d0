// The leads of many chunks read as bytes in one row, for a process that does not keep them (a
// one-shot `sivtr search`): SQLite concatenates the leads' texts and directories, and the terms
// are found with Buffer.indexOf. Decoding a string per lead (two bytes a character once a lead
// holds any CJK), lower-casing it and making a directory entry per part was most of a search
// whose term most leads hold (a two-character CJK word of every seventh prompt), and their
// garbage most of the rest. A lead's directory and text are decoded only when asked for (the
// page's snippets).
//
// The counts are exactly the walk's over the lower-cased text (countTerms in search.ts) for terms
// made of SAFE characters only: ASCII and scripts without case (CJK ideographs, kana, hangul,
// CJK punctuation). A term holding a letter is searched for in the leads' folded bytes (A–Z
// lower-cased by SQLite's lower() when the lead was written: see the leads table), any other in
// their text. JavaScript's toLowerCase() gives a SAFE character only from itself, from A–Z, or
// from U+0130 and U+212A (which lower-case to ASCII `i` and `k`): for a term holding that letter,
// a lead holding one of those two is walked as before, and so is a lead of characters beyond
// ASCII holding a NUL inside a part where a term occurs (the parts of such a lead are found by
// their NUL separators; an ASCII lead is cut by its directory's lengths). Every other character
// lower-cases to characters that are not SAFE, so the runs of SAFE characters, where a term can
// occur, are the same in both texts. test/store/lead-bytes.test.ts checks that premise over every
// code point, and the answers against the walk's.
import type { IndexDb, PartDir, StoredPart } from './index-db.js';
import { decodeLeadDir, LEAD_KINDS } from './index-db.js';
import { PART_WEIGHT } from './docs.js';
import { emptyLeadUnits, MAX_MASK_TERMS, popcount, type LeadUnits } from './lead-postings.js';
import { ENTRY_INTS } from './lead-terms.js';
import { recordsFirstUnit } from './record-chunks.js';
import { mergeLists, type MergedLists } from './lead-rank-wasm.js';

/** One SAFE code unit: ASCII but NUL, CJK punctuation, kana, CJK ideographs, hangul syllables. */
export function isSafeCode(c: number): boolean {
  return (c > 0 && c < 0x80) || (c >= 0x3000 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff);
}

/**
 * Characters beyond ASCII whose lower case holds a SAFE character, and that character: only a
 * term holding it can meet the difference (U+0130 lower-cases to `i` and U+0307).
 */
export const FOLDS_TO_SAFE: readonly [char: string, safe: string][] = [
  ['\u0130', 'i'],
  ['\u212a', 'k'],
];

/** Whether every term (lower-cased) is made of SAFE characters, so the byte path counts it as the walk does. */
export function bytesCountable(terms: readonly string[]): boolean {
  for (const term of terms) {
    if (term === '') return false;
    for (let i = 0; i < term.length; i++) if (!isSafeCode(term.charCodeAt(i))) return false;
  }
  return true;
}

const hasAsciiLetter = (terms: readonly string[]): boolean => terms.some((t) => /[a-z]/.test(t));

/** Bytes of a lead's directory entry (see the leads table): five int32. */
const DIR_BYTES = 20;

/** A lead's directory and text, decoded when first asked. */
export class LazyLead {
  private dirValue: PartDir[] | undefined;
  private textValue: string | undefined;

  constructor(
    private readonly from: LeadBytes,
    private readonly i: number,
    readonly chunk: number,
    readonly firstUnit: number,
  ) {}

  get dir(): PartDir[] {
    return (this.dirValue ??= this.from.dirOf(this.i));
  }

  get text(): string {
    return (this.textValue ??= this.from.textOf(this.i));
  }

  /** Part `n` of unit `uid`, as partInLead (search.ts) cuts it, without a directory entry per part of the lead. */
  part(uid: number, n: number): StoredPart | undefined {
    const found = this.from.partAt(this.i, uid - this.firstUnit, n);
    if (!found) return undefined;
    const [at, length, kind, group] = found;
    return { uid, n, kind, label: null, text: this.text.slice(at, at + length), group };
  }
}

/**
 * What the byte path found in a lead: its parts that hold a term, as a directory of their own
 * (in the lead's part order) with their counts; `null`: none does; `undefined`: the lead must be walked.
 */
export type LeadHits = { dir: PartDir[]; counts: number[][] } | null | undefined;

/** The leads a query selects, as one row: ids, first units, text byte lengths, part counts, then the bytes, and 1 when they are the folded ones. */
type AggregateRow = [chunks: string, firstUnits: string, bytes: string, parts: string, dir: Buffer | null, text: Buffer | null, folded?: number];

/** The weight of each lead kind, by its place in LEAD_KINDS. */
const LEAD_KIND_WEIGHT = Uint8Array.from(LEAD_KINDS, (k) => PART_WEIGHT[k] ?? 1);

const FOUND = 1;
const WALKED = 2;

/** Whether this machine stores an int32 low byte first, as a lead directory does. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export class LeadBytes {
  readonly count: number;
  private readonly chunks: number[];
  private readonly firstUnits: number[];
  /** Per lead, where its text starts in `text` (bytes) and its directory in `dir` (entries); one more at the end. */
  private readonly textStart: Int32Array;
  private readonly dirStart: Int32Array;
  private readonly dir: Buffer;
  private ints: Int32Array | undefined;
  private readonly text: Buffer;
  /** Whether `text` holds the folded bytes (A–Z lower-cased): a lead's text as written is then read on its own. */
  private readonly folded: boolean;
  /**
   * The bytes as a string of one character a byte (String.prototype.indexOf runs natively, where
   * each Buffer.indexOf call went through several JavaScript functions: a search made tens of
   * thousands), and that string lower-cased when a term holds a letter and the bytes are not folded.
   */
  private readonly raw: string;
  private lowered: string | undefined;

  private constructor(
    private readonly index: IndexDb,
    row: AggregateRow,
  ) {
    this.chunks = JSON.parse(row[0]) as number[];
    this.firstUnits = JSON.parse(row[1]) as number[];
    const bytes = JSON.parse(row[2]) as number[];
    const parts = JSON.parse(row[3]) as number[];
    this.count = this.chunks.length;
    this.dir = row[4] ?? Buffer.alloc(0);
    this.text = row[5] ?? Buffer.alloc(0);
    this.folded = row[6] === 1;
    this.raw = this.text.toString('latin1');
    this.textStart = new Int32Array(this.count + 1);
    this.dirStart = new Int32Array(this.count + 1);
    for (let i = 0; i < this.count; i++) {
      this.textStart[i + 1] = this.textStart[i]! + bytes[i]!;
      this.dirStart[i + 1] = this.dirStart[i]! + parts[i]!;
    }
  }

  /** The select list of the row `read` takes, for the terms (lower-cased) to be counted: the folded bytes when one holds a letter. */
  static columns(lowered: readonly string[]): string {
    const bytes = hasAsciiLetter(lowered) ? "CAST(group_concat(c.folded, '') AS BLOB), 1" : "CAST(group_concat(c.text, '') AS BLOB)";
    return `json_group_array(c.chunk), json_group_array(c.first_unit), json_group_array(octet_length(c.text)), json_group_array(c.nlead), CAST(group_concat(c.dir, '') AS BLOB), ${bytes}`;
  }

  /** The leads of `sql` (a SELECT of `columns` over `leads c`), in its order. */
  static read(index: IndexDb, sql: string, params: unknown[]): LeadBytes {
    return new LeadBytes(index, index.stmt(sql).raw(true).get(...params) as AggregateRow);
  }

  chunk(i: number): number {
    return this.chunks[i]!;
  }

  firstUnit(i: number): number {
    return this.firstUnits[i]!;
  }

  lead(i: number): LazyLead {
    return new LazyLead(this, i, this.chunks[i]!, this.firstUnits[i]!);
  }

  dirOf(i: number): PartDir[] {
    return decodeLeadDir(this.dir.subarray(this.dirStart[i]! * DIR_BYTES, this.dirStart[i + 1]! * DIR_BYTES));
  }

  /** Where part `n` of the unit `ordinal` of lead `i` is in its text (characters), its length, kind and group; undefined when the lead lacks it. */
  partAt(i: number, ordinal: number, n: number): [at: number, length: number, kind: string, group: number] | undefined {
    const ints = this.dirInts();
    const W = DIR_BYTES / 4;
    let at = 0;
    for (let e = this.dirStart[i]! * W; e < this.dirStart[i + 1]! * W; e += W) {
      if (ints[e] === ordinal && ints[e + 1] === n) return [at, ints[e + 3]!, LEAD_KINDS[ints[e + 2]!]!, ints[e + 4]!];
      if (ints[e]! > ordinal) break;
      at += ints[e + 3]! + 1;
    }
    return undefined;
  }

  textOf(i: number): string {
    if (this.folded) return this.index.stmt('SELECT text FROM leads WHERE chunk = ?').pluck().get(this.chunks[i]) as string;
    return this.text.toString('utf8', this.textStart[i], this.textStart[i + 1]);
  }

  /**
   * Per lead, the parts (of `kinds`; every kind when undefined) holding the `terms` (lower-cased,
   * bytesCountable) and how often: non-overlapping occurrences, at most `maxTf`, as the walk counts.
   */
  hits(terms: readonly string[], kinds: ReadonlySet<string> | undefined, maxTf: number): LeadHits[] {
    const n = this.count;
    const nterms = terms.length;
    const { state, tf, order } = this.scan(terms, kinds, maxTf);
    const out = new Array<LeadHits>(n).fill(null);
    for (let i = 0; i < n; i++) if (state[i] === WALKED) out[i] = undefined;
    const ints = this.dirInts();
    const W = DIR_BYTES / 4;
    for (let m = 0, li = 0; m < order.length; m++) {
      const g = order[m]!;
      while (this.dirStart[li + 1]! <= g) li++;
      if (state[li] === WALKED) continue;
      let hits = out[li];
      if (!hits) out[li] = hits = { dir: [], counts: [] };
      const e = g * W;
      hits.dir.push([ints[e]!, ints[e + 1]!, LEAD_KINDS[ints[e + 2]!]!, null, ints[e + 3]!, ints[e + 4]!]);
      const counts = new Array<number>(nterms);
      for (let t = 0; t < nterms; t++) counts[t] = tf[g * nterms + t]!;
      hits.counts.push(counts);
    }
    return out;
  }

  /**
   * The units whose lead parts hold a term, as LeadPostings.matchUnits gives them (LeadUnits:
   * flat arrays, the same counts), for ranking without an object per unit; undefined when a lead
   * must be walked, or with more terms than a mask holds. Filled straight from the parts found,
   * without hits()' directory entry and counts array per part (a common word's thousands of
   * them were a third of this).
   */
  units(terms: readonly string[], kinds: ReadonlySet<string> | undefined, maxTf: number): LeadUnits | undefined {
    const nterms = terms.length;
    if (nterms > MAX_MASK_TERMS) return undefined;
    const { state, tf, order } = this.scan(terms, kinds, maxTf);
    for (let i = 0; i < this.count; i++) if (state[i] === WALKED) return undefined;
    const rows = order.length;
    const out = emptyLeadUnits(rows, nterms);
    const ints = this.dirInts();
    const W = DIR_BYTES / 4;
    let u = -1;
    let li = 0;
    let lastLead = -1;
    let ordinal = -1;
    let lead: LazyLead | undefined;
    for (let r = 0; r < rows; r++) {
      const g = order[r]!;
      while (this.dirStart[li + 1]! <= g) li++;
      const e = g * W;
      // A lead lists its parts by unit: a unit's parts are consecutive rows.
      if (li !== lastLead || ints[e] !== ordinal) {
        if (li !== lastLead) {
          lead = this.lead(li);
          lastLead = li;
        }
        u++;
        ordinal = ints[e]!;
        out.uid[u] = this.firstUnits[li]! + ordinal;
        out.chunk[u] = this.chunks[li]!;
        out.start[u] = r;
        out.lead.push(lead!);
      }
      let mask = out.mask[u]!;
      for (let t = 0; t < nterms; t++) {
        const c = tf[g * nterms + t]!;
        out.tf[r * nterms + t] = c;
        if (c > 0) mask |= 1 << t;
      }
      out.mask[u] = mask;
      out.n[r] = ints[e + 1]!;
      out.length[r] = ints[e + 3]!;
      out.weight[r] = LEAD_KIND_WEIGHT[ints[e + 2]!]!;
    }
    out.count = u + 1;
    out.start[u + 1] = rows;
    for (let k = 0; k <= u; k++) out.held[k] = popcount(out.mask[k]!);
    return out;
  }

  /**
   * What hits() and units() are made from: per lead its state (FOUND, WALKED, or 0 when no term
   * occurs in it), per part (numbered over every lead) and term the count, and the parts holding
   * any term, ascending (those of walked leads among them).
   */
  private scan(terms: readonly string[], kinds: ReadonlySet<string> | undefined, maxTf: number): { state: Uint8Array; tf: Uint8Array; order: Int32Array } {
    const n = this.count;
    // Lower-cased here only when bytes read as written meet a term holding a letter: the Latin-1
    // view's toLowerCase() changes A–Z and the bytes C0–DE (À–Þ) alone, the first bytes of
    // two-byte characters, which are never part of a SAFE character's bytes; a SAFE character's
    // three bytes end in two continuation bytes (80–BF) where a two-byte character is followed by
    // the first byte of the next one, so no match of a SAFE term is made or lost.
    const hay = this.folded || !hasAsciiLetter(terms) ? this.raw : (this.lowered ??= this.raw.toLowerCase());
    const nterms = terms.length;
    const parts = this.dirStart[n]!;
    // Per lead: 0 its parts not found yet, 1 found, 2 walked (U+0130, U+212A, or a NUL inside a part).
    const state = new Uint8Array(n);
    for (const [c, safe] of FOLDS_TO_SAFE) {
      if (!terms.some((t) => t.includes(safe))) continue;
      // In the bytes as read (folding leaves them be): lower-casing turns the first byte of U+0130 (C4) into E4.
      const bytes = Buffer.from(c, 'utf8').toString('latin1');
      for (let at = this.raw.indexOf(bytes); at !== -1; at = this.raw.indexOf(bytes, at + 1)) state[this.leadAt(at, 0)] = WALKED;
    }
    // Per kind (its place in LEAD_KINDS), whether it is searched.
    const searched = Uint8Array.from(LEAD_KINDS, (k) => (!kinds || kinds.has(k) ? 1 : 0));
    const ints = this.dirInts();
    const W = DIR_BYTES / 4;
    // Flat over every part of every lead (numbered as the directories are): where it starts in
    // the text (the entry after a lead's last part is the next lead's start, its end), its counts.
    const starts = new Int32Array(parts + 1);
    for (let i = 0; i <= n; i++) starts[this.dirStart[i]!] = this.textStart[i]!;
    const tf = new Uint8Array(parts * nterms);
    const met: number[] = [];
    for (let t = 0; t < nterms; t++) {
      const needle = Buffer.from(terms[t]!, 'utf8').toString('latin1');
      let li = 0;
      let g = 0;
      for (let at = hay.indexOf(needle); at !== -1; ) {
        if (at >= this.textStart[li + 1]!) {
          li = this.leadAt(at, li);
          g = this.dirStart[li]!;
        }
        const end = this.textStart[li + 1]!;
        if (state[li] === 0) state[li] = this.findParts(li, starts) ? FOUND : WALKED;
        if (state[li] === WALKED) {
          at = hay.indexOf(needle, end);
          continue;
        }
        // The texts are joined without a separator: a match running into the next lead is none.
        if (at + needle.length > end) {
          at = hay.indexOf(needle, at + 1);
          continue;
        }
        while (starts[g + 1]! <= at) g++;
        const next = starts[g + 1]!;
        if (searched[ints[g * W + 2]!] === 0) {
          at = hay.indexOf(needle, next);
          continue;
        }
        const k = g * nterms + t;
        if (tf[k] === 0 && !this.anyCount(tf, g, nterms)) met.push(g);
        at = ++tf[k]! >= maxTf ? hay.indexOf(needle, next) : hay.indexOf(needle, at + needle.length);
      }
    }
    return { state, tf, order: Int32Array.from(met).sort() };
  }

  private anyCount(tf: Uint8Array, g: number, nterms: number): boolean {
    for (let t = 0; t < nterms; t++) if (tf[g * nterms + t] !== 0) return true;
    return false;
  }

  /** The directories as int32s (copied when the bytes are not aligned for a view, or not in this machine's order). */
  private dirInts(): Int32Array {
    if (this.ints) return this.ints;
    const { dir } = this;
    if (LITTLE_ENDIAN && dir.byteOffset % 4 === 0) return (this.ints = new Int32Array(dir.buffer, dir.byteOffset, dir.byteLength / 4));
    const out = new Int32Array(dir.byteLength / 4);
    for (let i = 0; i < out.length; i++) out[i] = dir.readInt32LE(4 * i);
    return (this.ints = out);
  }

  /** The lead whose text holds byte `at`, looking on from lead `from`. */
  private leadAt(at: number, from: number): number {
    let lo = from;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.textStart[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Fills in where lead `li`'s parts start in the text (bytes); false when its NULs are not
   * exactly the separators. A lead of one byte a character (ASCII: its bytes are as many as the
   * characters its directory gives) is cut by the directory's lengths, exactly as the walk cuts
   * it, NULs inside parts or not; any other by finding its NULs one by one (a split made a string
   * of every part of every lead a common word occurs in).
   */
  private findParts(li: number, starts: Int32Array): boolean {
    const first = this.dirStart[li]!;
    const parts = this.dirStart[li + 1]! - first;
    const from = this.textStart[li]!;
    const end = this.textStart[li + 1]!;
    const ints = this.dirInts();
    const W = DIR_BYTES / 4;
    let at = from;
    for (let p = 0; p < parts; p++) {
      starts[first + p] = at;
      at += ints[(first + p) * W + 3]! + 1;
    }
    // `at` is one past the separator a last part would have: the lead's characters, plus one.
    if (at - 1 === end) return true;
    const raw = this.raw;
    at = from;
    for (let p = 0; p < parts; p++) {
      starts[first + p] = at;
      const nul = raw.indexOf('\u0000', at);
      const last = p === parts - 1;
      if (nul === -1 || nul >= end) {
        if (!last) return false;
      } else if (last) return false;
      at = nul + 1;
    }
    return true;
  }
}

/** A lead read from its row when a hit shown is cut from it (the lists hold no text). */
export class StoredLead {
  private row: { dir: PartDir[]; text: string } | undefined;

  constructor(
    private readonly index: IndexDb,
    readonly chunk: number,
    readonly firstUnit: number,
  ) {}

  private read(): { dir: PartDir[]; text: string } {
    if (this.row) return this.row;
    const [dir, text] = this.index.stmt('SELECT dir, text FROM leads WHERE chunk = ?').raw(true).get(this.chunk) as [Buffer, string];
    return (this.row = { dir: decodeLeadDir(dir), text });
  }

  get dir(): PartDir[] {
    return this.read().dir;
  }

  get text(): string {
    return this.read().text;
  }
}

/**
 * The units whose lead parts hold `terms` (lower-cased), as LeadBytes.units gives them, from the
 * lists of the index's common lead terms (lead-terms.ts) instead of the leads: undefined unless
 * every term is listed. `visible`: whether a chunk's lead is read (its gram keys hold one of the
 * terms; a chunk deleted since its entries were written has none); `wantsSession`: whether the
 * target holds a session (every one when undefined).
 */
export function listedUnits(index: IndexDb, terms: readonly string[], kinds: ReadonlySet<string> | undefined, maxTf: number, visible: (chunk: number) => boolean, wantsSession?: (session: number) => boolean, visibleBits?: Int32Array): LeadUnits | undefined {
  const nterms = terms.length;
  if (nterms === 0 || nterms > MAX_MASK_TERMS || new Set(terms).size !== nterms) return undefined;
  const listed = index.leadTerms();
  if (!listed || !terms.every((t) => listed.includes(t))) return undefined;
  const read = index.stmt("SELECT CAST(group_concat(entries, '') AS BLOB) FROM lead_terms WHERE term = ?").pluck();
  const searched = Uint8Array.from(LEAD_KINDS, (k) => (!kinds || kinds.has(k) ? 1 : 0));
  if (visibleBits && !wantsSession && LEAD_MERGE.wasm) {
    const merged = mergeLists(
      terms.map((t) => (read.get(t) as Buffer | null) ?? new Uint8Array(0)),
      visibleBits,
      searched,
      LEAD_KIND_WEIGHT,
      maxTf,
    );
    if (merged === null) return undefined;
    if (merged) {
      LEAD_MERGE.merged++;
      return mergedUnits(index, merged, nterms);
    }
  }
  // Per term, its entries (ENTRY_INTS int32s each) that a search sees, in chunk, unit and part order.
  const lists: Int32Array[] = [];
  let total = 0;
  for (const term of terms) {
    const bytes = read.get(term) as Buffer | null;
    const all = bytes ? new Int32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)) : new Int32Array(0);
    let kept = 0;
    for (let e = 0; e < all.length; e += ENTRY_INTS) {
      if (!visible(all[e]!) || searched[all[e + 6]! >>> 8] === 0 || (wantsSession && !wantsSession(all[e + 1]!))) continue;
      if (kept !== e) all.copyWithin(kept, e, e + ENTRY_INTS);
      // The order the leads are read in (by chunk) and a lead lists its parts in: the merge below depends on it.
      if (kept > 0 && compareEntries(all, kept - ENTRY_INTS, all, kept) >= 0) return undefined;
      kept += ENTRY_INTS;
    }
    lists.push(all.subarray(0, kept));
    total += kept / ENTRY_INTS;
  }
  // The parts holding any term: the lists merged, a row per part.
  const out = emptyLeadUnits(total, nterms);
  const at = new Int32Array(nterms);
  const leads = new Map<number, StoredLead>();
  let rows = 0;
  let u = -1;
  let lastChunk = -1;
  let lastOrdinal = -1;
  for (;;) {
    let best = -1;
    for (let t = 0; t < nterms; t++) {
      if (at[t]! >= lists[t]!.length) continue;
      if (best < 0 || compareEntries(lists[t]!, at[t]!, lists[best]!, at[best]!) < 0) best = t;
    }
    if (best < 0) break;
    const head = lists[best]!;
    const e = at[best]!;
    const chunk = head[e]!;
    const ordinal = head[e + 3]!;
    if (chunk !== lastChunk || ordinal !== lastOrdinal) {
      u++;
      const firstUnit = head[e + 2] === -1 ? recordsFirstUnit(chunk) : head[e + 2]!;
      let lead = leads.get(chunk);
      if (!lead) leads.set(chunk, (lead = new StoredLead(index, chunk, firstUnit)));
      out.uid[u] = firstUnit + ordinal;
      out.chunk[u] = chunk;
      out.start[u] = rows;
      out.lead.push(lead);
      lastChunk = chunk;
      lastOrdinal = ordinal;
    }
    const r = rows++;
    let mask = out.mask[u]!;
    for (let t = best; t < nterms; t++) {
      const list = lists[t]!;
      const k = at[t]!;
      if (k >= list.length || compareEntries(list, k, head, e) !== 0) continue;
      out.tf[r * nterms + t] = Math.min(list[k + 6]! & 0xff, maxTf);
      mask |= 1 << t;
      at[t] = k + ENTRY_INTS;
    }
    out.mask[u] = mask;
    out.n[r] = head[e + 4]!;
    out.length[r] = head[e + 5]!;
    out.weight[r] = LEAD_KIND_WEIGHT[head[e + 6]! >>> 8]!;
  }
  out.count = u + 1;
  out.start[u + 1] = rows;
  for (let k = 0; k <= u; k++) out.held[k] = popcount(out.mask[k]!);
  return out;
}

/** Whether listedUnits merges, and LeadRanker (search.ts) masks, counts and scores, in WebAssembly where it runs (tests turn it off to hold the JavaScript loops to the same results), how often the lists were merged so, and how many levels were ranked so. */
export const LEAD_MERGE = { wasm: true, merged: 0, levels: 0 };

/** LeadUnits of a merge in WebAssembly; a unit's lead is made when a hit shown from it asks for it. */
function mergedUnits(index: IndexDb, m: MergedLists, nterms: number): LeadUnits {
  const leads = new Map<number, StoredLead>();
  const leadOf = (u: number): StoredLead => {
    const chunk = m.chunk[u]!;
    let lead = leads.get(chunk);
    if (!lead) leads.set(chunk, (lead = new StoredLead(index, chunk, m.first[u] === -1 ? recordsFirstUnit(chunk) : m.first[u]!)));
    return lead;
  };
  return { terms: nterms, count: m.count, uid: m.uid, chunk: m.chunk, mask: m.mask, held: m.held, start: m.start, leadOf, tf: m.tf, n: m.n, length: m.length, weight: m.weight };
}

/** Entries in the order a lead's parts are read: by chunk, unit ordinal, then n. */
function compareEntries(a: Int32Array, i: number, b: Int32Array, j: number): number {
  return a[i]! - b[j]! || a[i + 3]! - b[j + 3]! || a[i + 4]! - b[j + 4]!;
}
