// Postings over the cached leads of a long-lived process (the MCP server): the distinct words of
// the lower-cased lead parts, and for each word the parts holding it with how often. A term made
// of word characters alone can only occur inside words (it holds no character that ends one), so
// its count in a part is, per word of the part holding it, its occurrences in that word times
// the word's count there: the words holding the term are found in the vocabulary (a few KB to a
// few hundred KB, against the leads' megabytes), and no part's text is read. The counts are
// exactly a walk's over the same lower-cased text — non-overlapping occurrences, the same cap —
// which is what a term that holds other characters (a space, `-`, `:`) still gets.

import type { CachedLead } from './index-db.js';
import { PART_WEIGHT } from './docs.js';

/** Which leads a search reads: those of its target's sessions, or of the chunks it asked for. */
type LeadWanted = { wants(lead: CachedLead): boolean };

/** Per part of a lead, how often each term occurs in it (undefined: none does), as a walk over its text counts. */
export type PartCounts = (number[] | undefined)[];

/** A word's characters: lower-case ASCII letters, digits and `_`, and every character beyond ASCII. */
const isWordCode = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c >= 128;
const isWordTerm = (term: string): boolean => /^[0-9a-z_\u0080-\uffff]+$/.test(term);

export class LeadPostings {
  /** The leads held, by slot (undefined: removed); a chunk's slot. */
  private readonly slots: (CachedLead | undefined)[] = [];
  private readonly slotOf = new Map<number, number>();
  /** Per part (numbered as leads are added): its lead's slot and its place in that lead. */
  private partSlot = new Int32Array(1024);
  private partNo = new Int32Array(1024);
  /** Per part, from its lead's directory: its unit's ordinal in the chunk, its number, length and weight. */
  private partOrdinal = new Int32Array(1024);
  private partN = new Int32Array(1024);
  private partLength = new Int32Array(1024);
  private partWeight = new Uint8Array(1024);
  private nparts = 0;
  /** Parts of removed leads, still listed in the postings (skipped): see `worthRebuilding`. */
  private deadParts = 0;
  private readonly words: string[] = [];
  private readonly table = new WordTable(this.words);
  /** The words, each followed by a newline (no word holds one); word w starts at wordStart[w]. */
  private vocabulary = '';
  private readonly wordStart: number[] = [0];
  /** Per word, its (part, count) pairs, two numbers a pair, parts ascending. */
  private readonly postings: number[][] = [];
  // Scratch: per word, the last part it was met in and how often there; per part, a term's count.
  private seenIn = new Int32Array(1024).fill(-1);
  private seenCount = new Int32Array(1024);
  private tf = new Int32Array(1024);
  /** Scratch of `accumulate` (termCounts, matchUnits): the parts a term was met in. */
  private readonly met: number[] = [];
  /** Scratch of `matchUnits`: per part, its row among the parts met (-1: not met). */
  private rowOf = new Int32Array(1024).fill(-1);

  static build(leads: readonly CachedLead[]): LeadPostings {
    const postings = new LeadPostings();
    for (const lead of leads) postings.add(lead);
    return postings;
  }

  /** Lists a lead's parts under their words. */
  add(lead: CachedLead): void {
    if (this.slotOf.has(lead.chunk)) this.remove(lead.chunk);
    const slot = this.slots.length;
    this.slots.push(lead);
    this.slotOf.set(lead.chunk, slot);
    if (this.nparts + lead.dir.length > this.partSlot.length) {
      const size = Math.max(2 * this.partSlot.length, this.nparts + lead.dir.length);
      this.partSlot = grow(this.partSlot, size, 0);
      this.partNo = grow(this.partNo, size, 0);
      this.partOrdinal = grow(this.partOrdinal, size, 0);
      this.partN = grow(this.partN, size, 0);
      this.partLength = grow(this.partLength, size, 0);
      const weights = new Uint8Array(size);
      weights.set(this.partWeight);
      this.partWeight = weights;
      this.tf = new Int32Array(size);
      this.rowOf = new Int32Array(size).fill(-1);
    }
    const met: number[] = [];
    // The walk lower-cases a lead whole when that keeps every offset (nearly always), else part by part.
    const whole = lead.lower.length === lead.text.length;
    let at = 0;
    for (let p = 0; p < lead.dir.length; p++) {
      const g = this.nparts++;
      const length = lead.dir[p]![4];
      const lower = whole ? lead.lower.slice(at, at + length) : lead.text.slice(at, at + length).toLowerCase();
      at += length + 1;
      this.partSlot[g] = slot;
      this.partNo[g] = p;
      const d = lead.dir[p]!;
      this.partOrdinal[g] = d[0];
      this.partN[g] = d[1];
      this.partLength[g] = length;
      this.partWeight[g] = PART_WEIGHT[d[2]] ?? 1;
      met.length = 0;
      const n = lower.length;
      for (let i = 0; i < n; ) {
        if (!isWordCode(lower.charCodeAt(i))) {
          i++;
          continue;
        }
        const start = i;
        let hash = 0;
        for (let c = lower.charCodeAt(i); i < n && isWordCode(c); c = lower.charCodeAt(++i)) hash = (Math.imul(hash, 31) + c) | 0;
        let id = this.table.find(lower, start, i, hash);
        if (id < 0) id = this.newWord(lower.slice(start, i), hash);
        if (this.seenIn[id] !== g) {
          this.seenIn[id] = g;
          this.seenCount[id] = 0;
          met.push(id);
        }
        this.seenCount[id]!++;
      }
      for (let i = 0; i < met.length; i++) this.postings[met[i]!]!.push(g, this.seenCount[met[i]!]!);
    }
  }

  private newWord(word: string, hash: number): number {
    const id = this.words.length;
    this.words.push(word);
    this.table.add(hash, id);
    this.postings.push([]);
    this.vocabulary += word + '\n';
    this.wordStart.push(this.vocabulary.length);
    if (id === this.seenIn.length) {
      this.seenIn = grow(this.seenIn, 2 * id, -1);
      this.seenCount = grow(this.seenCount, 2 * id, 0);
    }
    return id;
  }

  /** Drops a chunk's lead: its parts stay in the postings, skipped, until the postings are rebuilt. */
  remove(chunk: number): void {
    const slot = this.slotOf.get(chunk);
    if (slot === undefined) return;
    this.deadParts += this.slots[slot]!.dir.length;
    this.slots[slot] = undefined;
    this.slotOf.delete(chunk);
  }

  /** More parts of removed leads than of held ones: building anew reads less than skipping them. */
  get worthRebuilding(): boolean {
    return this.deadParts > this.nparts - this.deadParts;
  }

  /** The `n` words of letters alone, at least three, that the most lead parts hold, most first. */
  commonWords(n: number): string[] {
    const best: number[] = [];
    for (let w = 0; w < this.words.length; w++) {
      const word = this.words[w]!;
      if (word.length < 3 || !/^[a-z]+$/.test(word)) continue;
      const size = this.postings[w]!.length;
      if (best.length === n && size <= this.postings[best[n - 1]!]!.length) continue;
      let i = best.length === n ? n - 1 : best.length;
      while (i > 0 && this.postings[best[i - 1]!]!.length < size) {
        best[i] = best[i - 1]!;
        i--;
      }
      best[i] = w;
    }
    return best.map((w) => this.words[w]!);
  }

  /** The word holding vocabulary offset `at`. */
  private wordAt(at: number): number {
    let lo = 0;
    let hi = this.words.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.wordStart[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Per chunk among `wanted` whose lead parts hold any of `terms` (lower-cased): each part's
   * counts, as a walk over the lead's text gives them — occurrences that do not overlap, at most
   * `maxTf` — for the parts of `kinds` (every kind when undefined). Undefined when a term holds a
   * character no word does: only a walk finds it.
   */
  termCounts(terms: readonly string[], kinds: ReadonlySet<string> | undefined, wanted: ReadonlySet<number>, maxTf: number): Map<number, PartCounts> | undefined {
    if (!terms.every(isWordTerm)) return undefined;
    const out = new Map<number, PartCounts>();
    const verdict = new Int8Array(this.slots.length);
    const chunks = { wants: (lead: CachedLead) => wanted.has(lead.chunk) };
    const { tf, met } = this;
    for (let t = 0; t < terms.length; t++) {
      this.accumulate(terms[t]!);
      for (let k = 0; k < met.length; k++) {
        const g = met[k]!;
        const n = tf[g]!;
        tf[g] = 0;
        const lead = this.wantedLead(g, verdict, chunks, kinds);
        if (!lead) continue;
        const p = this.partNo[g]!;
        let counts = out.get(lead.chunk);
        if (!counts) out.set(lead.chunk, (counts = new Array(lead.dir.length)));
        (counts[p] ??= new Array<number>(terms.length).fill(0))[t] = Math.min(n, maxTf);
      }
    }
    return out;
  }

  /**
   * termCounts for every lead `leads` wants, as units in flat arrays (LeadUnits): the same
   * counts, for ranking without an object per unit. Undefined where termCounts is, or with more
   * than MAX_MASK_TERMS terms.
   */
  matchUnits(terms: readonly string[], kinds: ReadonlySet<string> | undefined, leads: LeadWanted, maxTf: number): LeadUnits | undefined {
    const nterms = terms.length;
    if (nterms > MAX_MASK_TERMS || !terms.every(isWordTerm)) return undefined;
    const verdict = new Int8Array(this.slots.length);
    const { tf, rowOf, met } = this;
    /** Parts met, by row; their counts row by row. */
    const rows: number[] = [];
    let counts = new Uint8Array(64 * nterms);
    for (let t = 0; t < nterms; t++) {
      this.accumulate(terms[t]!);
      for (let k = 0; k < met.length; k++) {
        const g = met[k]!;
        const n = tf[g]!;
        tf[g] = 0;
        if (!this.wantedLead(g, verdict, leads, kinds)) continue;
        let row = rowOf[g]!;
        if (row < 0) {
          row = rowOf[g] = rows.length;
          rows.push(g);
          if ((row + 1) * nterms > counts.length) {
            const more = new Uint8Array(2 * counts.length);
            more.set(counts);
            counts = more;
          }
        }
        counts[row * nterms + t] = Math.min(n, maxTf);
      }
    }
    return this.unitsOf(Int32Array.from(rows).sort(), counts, nterms);
  }

  /**
   * The lead of part `g` when `leads` wants that lead (asked once per lead a search, the answer
   * kept in `verdict`: 1 wanted, -1 not or removed, 0 not asked yet) and the part's kind is among
   * `kinds` (any kind when undefined).
   */
  private wantedLead(g: number, verdict: Int8Array, leads: LeadWanted, kinds: ReadonlySet<string> | undefined): CachedLead | undefined {
    const slot = this.partSlot[g]!;
    let ok = verdict[slot]!;
    const lead = this.slots[slot];
    if (ok === 0) verdict[slot] = ok = lead && leads.wants(lead) ? 1 : -1;
    if (ok < 0 || !lead) return undefined;
    if (kinds && !kinds.has(lead.dir[this.partNo[g]!]![2])) return undefined;
    return lead;
  }

  /** A term's count in every lead part holding it, as termCounts counts: into `tf`, the parts listed in `met`. */
  private accumulate(term: string): void {
    const { tf, vocabulary, met } = this;
    met.length = 0;
    for (let at = vocabulary.indexOf(term); at !== -1; ) {
      const w = this.wordAt(at);
      const end = this.wordStart[w + 1]! - 1;
      // The term's occurrences in the word, counted as a walk counts them: each after the last.
      let occ = 0;
      for (let i = at; i !== -1 && i < end; i = vocabulary.indexOf(term, i + term.length)) occ++;
      const list = this.postings[w]!;
      for (let i = 0; i < list.length; i += 2) {
        const g = list[i]!;
        if (tf[g] === 0) met.push(g);
        tf[g]! += occ * list[i + 1]!;
      }
      at = vocabulary.indexOf(term, end + 1);
    }
  }

  /** The parts `order` (ascending), whose counts are rows of `counts` (see rowOf, cleared here), grouped into their units. */
  private unitsOf(order: Int32Array, counts: Uint8Array, nterms: number): LeadUnits {
    const { rowOf } = this;
    const m = order.length;
    const out = emptyLeadUnits(m, nterms);
    let u = -1;
    let lastSlot = -1;
    let lastOrdinal = -1;
    for (let r = 0; r < m; r++) {
      const g = order[r]!;
      const from = rowOf[g]! * nterms;
      rowOf[g] = -1;
      const slot = this.partSlot[g]!;
      const ordinal = this.partOrdinal[g]!;
      if (slot !== lastSlot || ordinal !== lastOrdinal) {
        u++;
        const lead = this.slots[slot]!;
        out.uid[u] = lead.firstUnit + ordinal;
        out.chunk[u] = lead.chunk;
        out.start[u] = r;
        out.lead.push(lead);
        lastSlot = slot;
        lastOrdinal = ordinal;
      }
      let mask = out.mask[u]!;
      for (let t = 0; t < nterms; t++) {
        const c = counts[from + t]!;
        out.tf[r * nterms + t] = c;
        if (c > 0) mask |= 1 << t;
      }
      out.mask[u] = mask;
      out.n[r] = this.partN[g]!;
      out.length[r] = this.partLength[g]!;
      out.weight[r] = this.partWeight[g]!;
    }
    out.count = u + 1;
    out.start[u + 1] = m;
    for (let k = 0; k <= u; k++) out.held[k] = popcount(out.mask[k]!);
    return out;
  }
}

/** How many bits of `x` are set. */
export function popcount(x: number): number {
  let n = 0;
  for (let v = x; v !== 0; v &= v - 1) n++;
  return n;
}


/**
 * The units whose lead parts hold a term, in flat arrays (no object per unit or part): unit `u`'s
 * parts are rows `start[u]` to `start[u + 1] - 1`, in their lead's order; a row's counts are
 * `tf[row * terms + t]`. Units come in the order of their leads in the postings, parts in lead order.
 */
export type LeadUnits = {
  terms: number;
  count: number;
  uid: Float64Array;
  chunk: Int32Array;
  /** Per unit, the terms its parts hold as bits (term t: 1 << t), and how many. */
  mask: Int32Array;
  held: Uint8Array;
  start: Int32Array;
  /** Unit u's lead: what a hit shown from it is cut from. */
  leadOf: (u: number) => LeadText;
  tf: Uint8Array;
  n: Int32Array;
  length: Int32Array;
  weight: Uint8Array;
};

type LeadText = Pick<CachedLead, 'chunk' | 'firstUnit' | 'dir' | 'text'>;

/** LeadUnits with room for `rows` part rows (and as many units) of `nterms` terms, none filled yet; `lead` lists each unit's lead as it is filled. */
export function emptyLeadUnits(rows: number, nterms: number): LeadUnits & { lead: LeadText[] } {
  const lead: LeadText[] = [];
  return {
    leadOf: (u) => lead[u]!,
    terms: nterms,
    count: 0,
    uid: new Float64Array(rows),
    chunk: new Int32Array(rows),
    mask: new Int32Array(rows),
    held: new Uint8Array(rows),
    start: new Int32Array(rows + 1),
    lead,
    tf: new Uint8Array(rows * nterms),
    n: new Int32Array(rows),
    length: new Int32Array(rows),
    weight: new Uint8Array(rows),
  };
}

/** Terms a LeadUnits mask can hold. */
export const MAX_MASK_TERMS = 30;

function grow(a: Int32Array, size: number, fill: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(size);
  if (fill !== 0) out.fill(fill);
  out.set(a);
  return out;
}

/**
 * The words met so far by a hash of their characters, looked up from a stretch of a part's text:
 * half a million words per gigabyte of transcripts, each made into a string and hashed by a Map,
 * cost most of the build; here only a new word becomes a string.
 */
class WordTable {
  private slots = new Int32Array(1024).fill(-1);
  private hashes = new Int32Array(1024);

  constructor(private readonly words: string[]) {}

  /** The id of the word `text.slice(start, end)` (whose hash is `hash`), or -1. */
  find(text: string, start: number, end: number, hash: number): number {
    const mask = this.slots.length - 1;
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const id = this.slots[s]!;
      if (id < 0) return -1;
      if (this.hashes[s] === hash) {
        const word = this.words[id]!;
        if (word.length === end - start && text.startsWith(word, start)) return id;
      }
    }
  }

  add(hash: number, id: number): void {
    if (2 * (this.words.length + 1) > this.slots.length) this.grow();
    this.put(hash, id);
  }

  private put(hash: number, id: number): void {
    const mask = this.slots.length - 1;
    let s = hash & mask;
    while (this.slots[s]! >= 0) s = (s + 1) & mask;
    this.slots[s] = id;
    this.hashes[s] = hash;
  }

  private grow(): void {
    const { slots, hashes } = this;
    this.slots = new Int32Array(2 * slots.length).fill(-1);
    this.hashes = new Int32Array(2 * slots.length);
    for (let s = 0; s < slots.length; s++) if (slots[s]! >= 0) this.put(hashes[s]!, slots[s]!);
  }
}
