// Per-term lists of the lead parts holding the index's most common terms, written as leads are
// written (the `lead_terms` table, see docs/formats.md): a one-shot search of a word most leads
// hold read every lead of the index to count it (megabytes at a gigabyte of transcripts, a
// page of SQLite per lead), where its list is a few kilobytes. The terms are chosen once, from
// the leads the index holds when it first holds LEAD_TERMS.minLeads of them; a search of any
// other term reads the leads as before.
//
// A list gives each part's count exactly as the walk over the lead counts it (countTerms in
// search.ts): the lead lower-cased whole when that keeps its length, else part by part, and
// non-overlapping occurrences from the left, found here for every listed term in one pass.
import { termKeys } from './grams.js';
import { WasmTermCounter } from './lead-terms-wasm.js';

/** Tunables (tests lower them to exercise the lists on small indexes). */
export const LEAD_TERMS = {
  /** The terms are chosen once the index holds this many leads. */
  minLeads: 256,
  /** Words listed at most, and pairs of CJK characters (apart: neither script's common terms crowd out the other's). */
  maxWords: 128,
  maxPairs: 32,
  /** A term is listed when at least this share of the leads sampled hold it: rarer ones are cheap to count from their leads. */
  share: 1 / 8,
  /** Characters of lead text sampled to choose the terms. */
  sampleChars: 1 << 16,
  /** Lists per term before they are merged into one (stale entries of deleted chunks dropped). */
  maxBatches: 32,
  /** Count in WebAssembly where it runs (tests turn it off to hold the JavaScript pass to the same counts). */
  wasm: true,
};

/** The meta key holding the listed terms (a JSON array); without it, no term is listed. */
export const LEAD_TERMS_META = 'lead_terms';
/** The meta key counting the batches written since the lists were last merged. */
export const LEAD_TERMS_BATCHES = 'lead_terms_batches';

/**
 * Int32s per entry, little-endian: chunk, session, first unit (-1: a chunk of terminal records,
 * whose first unit follows from its id), the unit's ordinal in the chunk, the part's n, its
 * length, and its kind's place in LEAD_KINDS times 256 plus its count (at most 255).
 */
export const ENTRY_INTS = 7;

/** Occurrences an entry keeps at most (a search caps them lower). */
const MAX_COUNT = 255;

/** A code unit with A–Z lower-cased. */
const fold = (c: number): number => (c >= 65 && c <= 90 ? c | 32 : c);

/** ASCII letters, digits and `_`: the characters of a word a term may be chosen from. */
const isAsciiWordCode = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;
/** CJK ideographs, kana and hangul: a two-character run of them may be chosen. */
const isCjkCode = (c: number): boolean => (c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff);

/** A lead as its row holds it: directory (int32 ×5 a part: ordinal, n, kind, length, group) and text. */
export type LeadSource = { chunk: number; session: number; firstUnit: number; dir: Uint8Array; text: string };

const DIR_INTS = 5;

function dirInts(dir: Uint8Array): Int32Array {
  if (dir.byteOffset % 4 === 0) return new Int32Array(dir.buffer, dir.byteOffset, dir.byteLength / 4);
  const out = new Int32Array(dir.byteLength / 4);
  new Uint8Array(out.buffer).set(dir);
  return out;
}

/**
 * The terms worth listing among `leads`: ASCII words of three characters or more and pairs of
 * CJK characters, held by at least LEAD_TERMS.share of the leads sampled (evenly spread, about
 * LEAD_TERMS.sampleChars of text), the most held first; only terms with gram keys (a search of
 * a term without keys reads every lead anyway).
 */
export function chooseLeadTerms(leads: readonly { text: string }[]): string[] {
  let total = 0;
  for (const l of leads) total += l.text.length;
  const step = Math.max(1, Math.ceil(total / LEAD_TERMS.sampleChars));
  const held = new Map<string, number>();
  let sampled = 0;
  for (let i = 0; i < leads.length; i += step) {
    sampled++;
    // Read with A–Z folded rather than lower-cased: lower-casing a text beyond Latin-1 goes through ICU.
    const text = leads[i]!.text;
    const seen = new Set<string>();
    for (let at = 0; at < text.length; ) {
      const c = fold(text.charCodeAt(at));
      if (isAsciiWordCode(c)) {
        const start = at;
        while (at < text.length && isAsciiWordCode(fold(text.charCodeAt(at)))) at++;
        if (at - start >= 3) seen.add(text.slice(start, at).toLowerCase());
      } else if (isCjkCode(c)) {
        if (at + 1 < text.length && isCjkCode(text.charCodeAt(at + 1))) seen.add(text.slice(at, at + 2));
        at++;
      } else at++;
    }
    for (const term of seen) held.set(term, (held.get(term) ?? 0) + 1);
  }
  const least = Math.max(2, Math.ceil(sampled * LEAD_TERMS.share));
  const common = [...held].filter(([term, n]) => n >= least && termKeys(term) !== undefined).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const words = common.filter(([term]) => isAsciiWordCode(term.charCodeAt(0))).slice(0, LEAD_TERMS.maxWords);
  const pairs = common.filter(([term]) => !isAsciiWordCode(term.charCodeAt(0))).slice(0, LEAD_TERMS.maxPairs);
  return [...words, ...pairs].map(([term]) => term);
}

/**
 * Terms bucketed by a hash of their first three code units (two for a term of two), for finding
 * all of them in one pass over a text: a position is compared only with the terms its code units
 * may start, code unit by code unit (startsWith at every position was most of the pass).
 */
class TermMatcher {
  /** Per hash of three code units, the first term of length ≥ 3 starting with them (-1: none); per term, the next of its bucket. */
  readonly heads3: Int32Array;
  /** The same for terms of two code units, by a hash of two. */
  readonly heads2: Int32Array;
  readonly next: Int32Array;
  /** The terms' code units, one after the other; term m's start at `at[m]`, its length `lengths[m]`. */
  readonly units: Uint16Array;
  readonly at: Int32Array;
  readonly lengths: Int32Array;
  readonly any2: boolean;

  constructor(terms: readonly string[]) {
    this.heads3 = new Int32Array(1 << BITS).fill(-1);
    this.heads2 = new Int32Array(1 << BITS).fill(-1);
    this.next = new Int32Array(terms.length).fill(-1);
    this.at = new Int32Array(terms.length);
    this.lengths = Int32Array.from(terms, (t) => t.length);
    let size = 0;
    for (const t of terms) size += t.length;
    this.units = new Uint16Array(size);
    let k = 0;
    terms.forEach((t, m) => {
      this.at[m] = k;
      for (let i = 0; i < t.length; i++) this.units[k++] = t.charCodeAt(i);
    });
    let any2 = false;
    for (let m = terms.length - 1; m >= 0; m--) {
      const t = terms[m]!;
      if (t.length >= 3) {
        const h = hash3(t.charCodeAt(0), t.charCodeAt(1), t.charCodeAt(2));
        this.next[m] = this.heads3[h]!;
        this.heads3[h] = m;
      } else if (t.length === 2) {
        any2 = true;
        const h = hash2(t.charCodeAt(0), t.charCodeAt(1));
        this.next[m] = this.heads2[h]!;
        this.heads2[h] = m;
      }
    }
    this.any2 = any2;
  }
}

/** Bits of the matcher's hashes (scanTerms computes them inline). */
const BITS = 12;
const hash3 = (a: number, b: number, c: number): number => Math.imul(Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ c, 0xc2b2ae35) >>> (32 - BITS);
const hash2 = (a: number, b: number): number => Math.imul(Math.imul(a, 0x9e3779b1) ^ b, 0xc2b2ae35) >>> (32 - BITS);

/**
 * Counts every term's non-overlapping occurrences in `s` from `from` to `end`, leftmost first, as
 * indexOf steps through them (A–Z folded as they are read): into `counts`, the terms met listed
 * in `met`. A function of its arguments alone, with the comparison inline: a first build runs it
 * once over every lead, mostly before V8 has optimised it, and a method reading `this` (or a call
 * per candidate) kept it in slow code several times as long.
 */
function scanTerms(s: string, from: number, end: number, heads3: Int32Array, heads2: Int32Array, next: Int32Array, units: Uint16Array, at: Int32Array, lengths: Int32Array, any2: boolean, counts: Int32Array, ends: Int32Array, met: number[]): void {
  if (end - from < 2) return;
  let a = s.charCodeAt(from);
  if (a >= 65 && a <= 90) a |= 32;
  let b = s.charCodeAt(from + 1);
  if (b >= 65 && b <= 90) b |= 32;
  for (let i = from; i + 1 < end; i++) {
    let c = -1;
    if (i + 2 < end) {
      c = s.charCodeAt(i + 2);
      if (c >= 65 && c <= 90) c |= 32;
    }
    let m = c >= 0 ? heads3[(Math.imul(Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ c, 0xc2b2ae35) >>> (32 - BITS))]! : -1;
    let two = any2 ? heads2[(Math.imul(Math.imul(a, 0x9e3779b1) ^ b, 0xc2b2ae35) >>> (32 - BITS))]! : -1;
    while (m >= 0 || two >= 0) {
      let t: number;
      if (m >= 0) {
        t = m;
        m = next[m]!;
      } else {
        t = two;
        two = next[two]!;
      }
      const len = lengths[t]!;
      if (i + len > end) continue;
      const base = at[t]!;
      let k = 0;
      for (; k < len; k++) {
        let x = s.charCodeAt(i + k);
        if (x >= 65 && x <= 90) x |= 32;
        if (x !== units[base + k]) break;
      }
      if (k < len) continue;
      if (counts[t] === 0) {
        met.push(t);
        ends[t] = i + len;
        counts[t] = 1;
      } else if (i >= ends[t]!) {
        ends[t] = i + len;
        counts[t]!++;
      }
    }
    a = b;
    b = c;
  }
}

/** Counts the listed terms in leads and keeps their entries, one growing list per term. */
export class LeadTermCounter {
  private readonly matcher: TermMatcher;
  /** Per term, its entries so far (ENTRY_INTS int32s each), and how many ints of each are used. */
  private lists: Int32Array[];
  private used: Int32Array;
  /** Per term, scratch: its count in the part being scanned, where its last occurrence ended, and whether the part met it. */
  private readonly counts: Int32Array;
  private readonly ends: Int32Array;
  private readonly met: number[] = [];
  /** Leads listed since the last take(). */
  added = 0;
  /** A lead's first unit could not be held by an entry: nothing this counter holds may be written. */
  broken = false;

  /** The counting pass in WebAssembly (lead-terms-wasm.ts); undefined where it cannot run. */
  private readonly wasm: WasmTermCounter | undefined;
  private readonly partLengths: number[] = [];

  /** Whether the counting pass runs in WebAssembly (for tests). */
  get inWasm(): boolean {
    return this.wasm !== undefined;
  }

  constructor(readonly terms: readonly string[]) {
    this.matcher = new TermMatcher(terms);
    this.wasm = terms.length > 0 && LEAD_TERMS.wasm ? WasmTermCounter.of(terms) : undefined;
    this.lists = terms.map(() => new Int32Array(0));
    this.used = new Int32Array(terms.length);
    this.counts = new Int32Array(terms.length);
    this.ends = new Int32Array(terms.length);
  }

  /** Lists a lead's parts that hold a term. */
  add(lead: LeadSource, recordFirstUnit: number): void {
    const { text } = lead;
    const ints = dirInts(lead.dir);
    const parts = ints.length / DIR_INTS;
    const firstUnit = lead.firstUnit === recordFirstUnit && lead.firstUnit < 0 ? -1 : lead.firstUnit;
    if (firstUnit !== -1 && !(Number.isInteger(firstUnit) && firstUnit >= 0 && firstUnit <= 0x7fffffff)) this.broken = true;
    this.added++;
    // The terms are of SAFE characters (lead-bytes.ts): they occur in the lead with A–Z folded
    // (folded as it is scanned) exactly where they occur in it lower-cased, unless it holds one of
    // the two characters that lower-case to a SAFE one (U+0130, U+212A), which has it lower-cased
    // as the walk does: whole when that keeps every offset, else part by part (lower-casing a
    // string beyond Latin-1 went through ICU, most of listing the terms of a first build).
    const odd = text.indexOf('\u0130') !== -1 || text.indexOf('\u212a') !== -1;
    if (!odd && this.wasm && this.addCounted(lead, ints, parts, firstUnit)) return;
    const lower = odd ? text.toLowerCase() : text;
    const whole = lower.length === text.length;
    let at = 0;
    for (let p = 0; p < parts; p++) {
      const e = p * DIR_INTS;
      const length = ints[e + 3]!;
      if (whole) this.scan(lower, at, at + length);
      else this.scan(text.slice(at, at + length).toLowerCase(), 0, -1);
      at += length + 1;
      if (this.met.length === 0) continue;
      for (let k = 0; k < this.met.length; k++) {
        const m = this.met[k]!;
        this.append(m, lead, firstUnit, ints, e, this.counts[m]!);
        this.counts[m] = 0;
      }
      this.met.length = 0;
    }
  }

  private scan(s: string, from: number, to: number): void {
    const m = this.matcher;
    scanTerms(s, from, to < 0 ? s.length : to, m.heads3, m.heads2, m.next, m.units, m.at, m.lengths, m.any2, this.counts, this.ends, this.met);
  }

  /** add() with the counts from the WebAssembly pass; false when it could not run. */
  private addCounted(lead: LeadSource, ints: Int32Array, parts: number, firstUnit: number): boolean {
    const lengths = this.partLengths;
    lengths.length = parts;
    for (let p = 0; p < parts; p++) lengths[p] = ints[p * DIR_INTS + 3]!;
    const found = this.wasm!.count(lead.text, lengths);
    if (!found) return false;
    for (let k = 0; k < found.length; k += 3) {
      const p = found[k]!;
      this.append(found[k + 1]!, lead, firstUnit, ints, p * DIR_INTS, found[k + 2]!);
    }
    return true;
  }

  /** Appends an entry to term m's list: part `e / DIR_INTS` of the lead holds it `count` times. */
  private append(m: number, lead: LeadSource, firstUnit: number, ints: Int32Array, e: number, count: number): void {
    let list = this.lists[m]!;
    const u = this.used[m]!;
    if (u + ENTRY_INTS > list.length) {
      const more = new Int32Array(Math.max(64 * ENTRY_INTS, 2 * list.length));
      more.set(list);
      this.lists[m] = list = more;
    }
    list[u] = lead.chunk;
    list[u + 1] = lead.session;
    list[u + 2] = firstUnit;
    list[u + 3] = ints[e]!;
    list[u + 4] = ints[e + 1]!;
    list[u + 5] = ints[e + 3]!;
    list[u + 6] = (ints[e + 2]! << 8) | Math.min(count, MAX_COUNT);
    this.used[m] = u + ENTRY_INTS;
  }

  /** Each term holding entries, with them as bytes; the lists start afresh. */
  take(): [term: string, entries: Buffer][] {
    const out: [string, Buffer][] = [];
    for (let m = 0; m < this.terms.length; m++) {
      const u = this.used[m]!;
      if (u === 0) continue;
      out.push([this.terms[m]!, Buffer.from(this.lists[m]!.buffer, 0, u * 4)]);
      this.lists[m] = new Int32Array(0);
      this.used[m] = 0;
    }
    this.added = 0;
    return out;
  }
}

/** Whether this machine stores an int32 low byte first, as the entries are written. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
