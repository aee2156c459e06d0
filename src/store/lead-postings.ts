// Postings over the cached leads of a long-lived process (the MCP server): the distinct words of
// the lower-cased lead parts, and for each word the parts holding it with how often. A term made
// of word characters alone can only occur inside words (it holds no character that ends one), so
// its count in a part is, per word of the part holding it, its occurrences in that word times
// the word's count there: the words holding the term are found in the vocabulary (a few KB to a
// few hundred KB, against the leads' megabytes), and no part's text is read. The counts are
// exactly a walk's over the same lower-cased text — non-overlapping occurrences, the same cap —
// which is what a term that holds other characters (a space, `-`, `:`) still gets.

import type { CachedLead } from './index-db.js';

/** Per part of a lead, how often each term occurs in it (undefined: none does), as a walk over its text counts. */
export type PartCounts = (number[] | undefined)[];

/** A word's characters: lower-case ASCII letters, digits and `_`, and every character beyond ASCII. */
const isWordCode = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c >= 128;
const isWordTerm = (term: string): boolean => /^[0-9a-z_\u0080-\uffff]+$/.test(term);

export class LeadPostings {
  private tf: Int32Array | undefined;

  private constructor(
    private readonly leads: readonly CachedLead[],
    /** Per part (numbered over all leads in order): its lead's place in `leads` and its place in that lead. */
    private readonly partLead: Int32Array,
    private readonly partNo: Int32Array,
    /** The words, each followed by a newline (no word holds one); word w starts at wordStart[w]. */
    private readonly vocabulary: string,
    private readonly wordStart: Int32Array,
    /** The parts holding word w are parts[postStart[w] … postStart[w + 1]), ascending, `counts` times each. */
    private readonly postStart: Int32Array,
    private readonly parts: Int32Array,
    private readonly counts: Int32Array,
  ) {}

  static build(leads: readonly CachedLead[]): LeadPostings {
    let nparts = 0;
    for (const l of leads) nparts += l.dir.length;
    const partLead = new Int32Array(nparts);
    const partNo = new Int32Array(nparts);
    const words: string[] = [];
    const table = new WordTable(words);
    // Per word, its (part, count) pairs as parts are met (so ascending), two numbers a pair.
    const pairs: number[][] = [];
    // Per word, the last part it was met in and how often there; the words of the current part.
    let seenIn = new Int32Array(1024).fill(-1);
    let seenCount = new Int32Array(1024);
    const met: number[] = [];
    let g = 0;
    for (let li = 0; li < leads.length; li++) {
      const lead = leads[li]!;
      // The walk lower-cases a lead whole when that keeps every offset (nearly always), else part by part.
      const whole = lead.lower.length === lead.text.length;
      let at = 0;
      for (let p = 0; p < lead.dir.length; p++, g++) {
        const length = lead.dir[p]![4];
        const lower = whole ? lead.lower.slice(at, at + length) : lead.text.slice(at, at + length).toLowerCase();
        at += length + 1;
        partLead[g] = li;
        partNo[g] = p;
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
          let id = table.find(lower, start, i, hash);
          if (id < 0) {
            id = words.length;
            words.push(lower.slice(start, i));
            table.add(hash, id);
            pairs.push([]);
            if (id === seenIn.length) {
              const grown = new Int32Array(2 * id).fill(-1);
              grown.set(seenIn);
              seenIn = grown;
              const counts = new Int32Array(2 * id);
              counts.set(seenCount);
              seenCount = counts;
            }
          }
          if (seenIn[id] !== g) {
            seenIn[id] = g;
            seenCount[id] = 0;
            met.push(id);
          }
          seenCount[id]!++;
        }
        for (let i = 0; i < met.length; i++) pairs[met[i]!]!.push(g, seenCount[met[i]!]!);
      }
    }
    const wordStart = new Int32Array(words.length + 1);
    const postStart = new Int32Array(words.length + 1);
    let total = 0;
    let chars = 0;
    for (let w = 0; w < words.length; w++) {
      wordStart[w] = chars;
      chars += words[w]!.length + 1;
      postStart[w] = total;
      total += pairs[w]!.length / 2;
    }
    wordStart[words.length] = chars;
    postStart[words.length] = total;
    const parts = new Int32Array(total);
    const counts = new Int32Array(total);
    for (let w = 0, i = 0; w < words.length; w++) {
      const list = pairs[w]!;
      for (let k = 0; k < list.length; k += 2, i++) {
        parts[i] = list[k]!;
        counts[i] = list[k + 1]!;
      }
    }
    return new LeadPostings(leads, partLead, partNo, words.join('\n') + (words.length > 0 ? '\n' : ''), wordStart, postStart, parts, counts);
  }

  /** The word holding vocabulary offset `at`. */
  private wordAt(at: number): number {
    let lo = 0;
    let hi = this.wordStart.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.wordStart[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Per lead (by its place in the cache) whose parts hold any of `terms` (lower-cased): each
   * part's counts, as a walk over the lead's text gives them — occurrences that do not overlap,
   * at most `maxTf` — for the parts of `kinds` (every kind when undefined) of the leads `wanted`
   * accepts. Undefined when a term holds a character no word does: only a walk finds it.
   */
  termCounts(terms: readonly string[], kinds: ReadonlySet<string> | undefined, wanted: (lead: number) => boolean, maxTf: number): Map<number, PartCounts> | undefined {
    if (!terms.every(isWordTerm)) return undefined;
    const out = new Map<number, PartCounts>();
    const verdict = new Int8Array(this.leads.length);
    // Per part met: the uncapped count of the term being read (`tf`, left all zero again), and the parts met.
    const tf = (this.tf ??= new Int32Array(this.partLead.length));
    const met: number[] = [];
    for (let t = 0; t < terms.length; t++) {
      const term = terms[t]!;
      met.length = 0;
      for (let at = this.vocabulary.indexOf(term); at !== -1; ) {
        const w = this.wordAt(at);
        const end = this.wordStart[w + 1]! - 1;
        // The term's occurrences in the word, counted as a walk counts them: each after the last.
        let occ = 0;
        for (let i = at; i !== -1 && i < end; i = this.vocabulary.indexOf(term, i + term.length)) occ++;
        for (let i = this.postStart[w]!; i < this.postStart[w + 1]!; i++) {
          const g = this.parts[i]!;
          if (tf[g] === 0) met.push(g);
          tf[g]! += occ * this.counts[i]!;
        }
        at = this.vocabulary.indexOf(term, end + 1);
      }
      for (let k = 0; k < met.length; k++) {
        const g = met[k]!;
        const n = tf[g]!;
        tf[g] = 0;
        const li = this.partLead[g]!;
        let ok = verdict[li]!;
        if (ok === 0) verdict[li] = ok = wanted(li) ? 1 : -1;
        if (ok < 0) continue;
        const p = this.partNo[g]!;
        const lead = this.leads[li]!;
        if (kinds && !kinds.has(lead.dir[p]![2])) continue;
        let counts = out.get(li);
        if (!counts) out.set(li, (counts = new Array(lead.dir.length)));
        (counts[p] ??= new Array<number>(terms.length).fill(0))[t] = Math.min(n, maxTf);
      }
    }
    return out;
  }
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
