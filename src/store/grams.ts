// Gram keys: which chunks of text may hold a substring. Every three consecutive UTF-16 code
// units of the lower-cased text hash to one of 2^20 trigram keys; two consecutive units of which
// one is not ASCII (a two-character CJK word) hash to one of 2^20 bigram keys. A chunk's keys are
// stored once each (a set, no positions), so writing them costs one hash per character and the
// index holds a few bytes per distinct key instead of an entry per character. Keys only narrow
// the candidates (hash collisions and keys scattered across a chunk make false candidates):
// search always confirms a match against the text itself.

import { AsciiKeyScanner, wasmApi } from './ascii-keys.js';
import { CUT_MARK, type CutText } from './docs.js';

const BITS = 20;
const SIZE = 1 << BITS;
const BIGRAM_BASE = SIZE;

/** `trigram`'s multipliers, for the WebAssembly copy of its loop (ascii-keys.ts; grams.test.ts holds the two to the same keys). */
const TRIGRAM_HASH = { mix: 0x9e3779b1, m1: 0x85ebca77, m2: 0xc2b2ae35, bits: BITS };

function trigram(a: number, b: number, c: number): number {
  let h = Math.imul(((a << 16) | b) ^ Math.imul(c, 0x9e3779b1), 0x85ebca77);
  h ^= h >>> 15;
  return Math.imul(h, 0xc2b2ae35) >>> (32 - BITS);
}

function bigram(a: number, b: number): number {
  let h = Math.imul((a << 16) | b, 0x27d4eb2f);
  h ^= h >>> 15;
  return BIGRAM_BASE + (Math.imul(h, 0x165667b1) >>> (32 - BITS));
}

/** Marks a code unit that cannot be lower-cased on its own. */
const SPECIAL = 0xffff;
/** Lower case of each non-ASCII code unit, filled as they are met (0: not yet known). */
let lowerTable: Uint16Array | undefined;

function lowerNonAscii(c: number): number {
  const table = (lowerTable ??= new Uint16Array(0x10000));
  let l = table[c]!;
  if (l === 0) {
    const lower = c >= 0xd800 && c <= 0xdfff ? '' : c === 0x3a3 ? '' : String.fromCharCode(c).toLowerCase();
    l = lower.length === 1 ? lower.charCodeAt(0) : SPECIAL;
    table[c] = l;
  }
  return l;
}

/** The lower case of each ASCII code unit. */
const ASCII_LOWER = Uint8Array.from({ length: 0x80 }, (_, c) => (c >= 65 && c <= 90 ? c | 32 : c));

/** The lower case of one code unit (SPECIAL: not one code unit of its own). */
const lowerOne = (r: number): number => (r < 0x80 ? (r >= 65 && r <= 90 ? r | 32 : r) : lowerNonAscii(r));

/** FTS5 token for a key: base-36 digits, which the `ascii` tokenizer keeps as one word. */
export const keyToken = (key: number): string => key.toString(36);

/**
 * The keys of the ASCII text in `bytes` from `at` to `end` (at least three bytes). A function of
 * its arguments alone, called once per part: V8 runs a function called thousands of times as
 * baseline, then optimised code within the first chunk, where one call per chunk waited in the
 * interpreter for the optimised loop (on-stack replacement) through most of a cold build's first
 * chunks; and a property of `this` read in a call made before V8 collected type feedback left
 * the optimised code without any, which deoptimised it.
 * An ASCII trigram is 21 bits, so whether one was met before in this set is one bit of `seen`: a
 * chunk's 64 K positions hold a few hundred distinct trigrams, and only those are hashed.
 */
function asciiRangeKeys(bytes: Uint8Array, at: number, end: number, bits: Int32Array, keys: number[], seen: Int32Array, seenList: number[]): void {
  const lower = ASCII_LOWER;
  let r = (lower[bytes[at]!]! << 7) | lower[bytes[at + 1]!]!;
  for (let i = at + 2; i < end; i++) {
    r = ((r << 7) | lower[bytes[i]!]!) & 0x1fffff;
    const word = r >>> 5;
    const bit = 1 << (r & 31);
    const had = seen[word]!;
    if ((had & bit) === 0) {
      seen[word] = had | bit;
      seenList.push(r);
      const key = trigram(r >>> 14, (r >>> 7) & 0x7f, r & 0x7f);
      const kw = key >>> 5;
      const kb = 1 << (key & 31);
      const kh = bits[kw]!;
      if ((kh & kb) === 0) {
        bits[kw] = kh | kb;
        keys.push(key);
      }
    }
  }
}

let scanner: AsciiKeyScanner | null | undefined;

/** The WebAssembly key scanner, made once; null where WebAssembly is not available. */
function asciiScanner(): AsciiKeyScanner | null {
  if (scanner === undefined) {
    try {
      scanner = wasmApi === undefined ? null : new AsciiKeyScanner(TRIGRAM_HASH);
    } catch {
      scanner = null;
    }
  }
  return scanner;
}

const NON_ASCII = /[^\x00-\x7f]/g;

/** CUT_MARK is a newline, '…' and a newline: where its one character beyond ASCII is, and its UTF-8 bytes (grams.test holds these to the mark). */
export const CUT_MARK_OTHER = 1;
export const CUT_MARK_BYTES = 5;

function growInt32(a: Int32Array, need: number): Int32Array {
  const out = new Int32Array(Math.max(need, 2 * a.length));
  out.set(a);
  return out;
}

/** Collects the distinct keys of many texts; `next()` starts the next set. */
export class KeySet {
  // One bit per key (256 KB, which stays in the CPU cache; a stamp per key was 8 MB and missed
  // the cache on nearly every character), cleared key by key when the next set starts.
  private bits = new Int32Array((2 * SIZE) >>> 5);
  keys: number[] = [];
  private scratch = new Uint16Array(0);
  /** One bit per ASCII trigram (three 7-bit characters) met in this set (addAsciiParts), cleared the same way. */
  private readonly seen = new Int32Array((1 << 21) >>> 5);
  private seenList: number[] = [];
  /** addUtf8Parts's entries for addAsciiParts, reused from chunk to chunk. */
  private runs: Int32Array = new Int32Array(1024);
  /** nonAsciiGrams's places of non-ASCII characters. */
  private found: number[] = [];

  next(): void {
    const { bits, keys, seen, seenList } = this;
    for (let i = 0; i < keys.length; i++) bits[keys[i]! >>> 5] = 0;
    for (let i = 0; i < seenList.length; i++) seen[seenList[i]! >>> 5] = 0;
    this.keys = [];
    this.seenList = [];
  }

  private add(key: number): void {
    const word = key >>> 5;
    const bit = 1 << (key & 31);
    const had = this.bits[word]!;
    if ((had & bit) === 0) {
      this.bits[word] = had | bit;
      this.keys.push(key);
    }
  }

  /**
   * Adds the keys of `text` lower-cased, exactly as `addText(text.toLowerCase())` would, in one
   * pass without a lower-cased copy (the copy and ICU's lower-casing cost about as much as the
   * hashing). A character whose lower case is not one code unit of its own (İ becomes two, Σ
   * depends on its neighbours, surrogate halves pair up) sends the whole text the long way; the
   * keys already added are keys of that text too.
   * The code units are read from a typed array the text is copied into: charCodeAt on strings
   * of both representations (one byte and two bytes a character) ran at half the speed.
   */
  addTextLowering(text: string): void {
    const n = text.length;
    if (n < 2) return;
    const u = this.codeUnits(text);
    const { bits, keys } = this;
    let a = lowerOne(u[0]!);
    let b = lowerOne(u[1]!);
    if (a === SPECIAL || b === SPECIAL) return this.addText(text.toLowerCase());
    if ((a | b) >= 0x80) this.add(bigram(a, b));
    for (let i = 2; i < n; i++) {
      const r = u[i]!;
      let c: number;
      if (r < 0x80) {
        c = r >= 65 && r <= 90 ? r | 32 : r;
        if (b < 0x80) {
          // Two ASCII characters in a row (nearly every character): a trigram and no bigram,
          // without the checks the general case below needs.
          const key = trigram(a, b, c);
          const word = key >>> 5;
          const bit = 1 << (key & 31);
          const had = bits[word]!;
          if ((had & bit) === 0) {
            bits[word] = had | bit;
            keys.push(key);
          }
          a = b;
          b = c;
          continue;
        }
      } else {
        c = lowerNonAscii(r);
        if (c === SPECIAL) return this.addText(text.toLowerCase());
      }
      const key = trigram(a, b, c);
      const word = key >>> 5;
      const bit = 1 << (key & 31);
      const had = bits[word]!;
      if ((had & bit) === 0) {
        bits[word] = had | bit;
        keys.push(key);
      }
      if ((b | c) >= 0x80) this.add(bigram(b, c));
      a = b;
      b = c;
    }
  }

  /**
   * Adds the keys of the ASCII parts of a chunk held in `bytes` (its parts' texts, each followed
   * by one separator byte; `lengths[i]` is part i's length, or, below 0, no part but -lengths[i] - 1
   * bytes to pass by: -1 for a blank part, which has no bytes), exactly as addTextLowering of each
   * part would (every byte below 0x80 is its own code unit). A chunk of terminal records is nearly
   * always ASCII and is read in place from its buffer.
   */
  addAsciiParts(bytes: Uint8Array, lengths: Int32Array, count: number): void {
    const found = asciiScanner()?.keys(bytes, lengths, count);
    if (found) {
      for (let i = 0; i < found.length; i++) this.add(found[i]!);
      return;
    }
    this.addAsciiPartsHere(bytes, lengths, count);
  }

  /**
   * Adds the keys of `texts`, exactly as addTextLowering of each would, from their UTF-8 bytes
   * in `bytes` (each text followed by one separator byte; `byteLengths[i]`: text i's bytes). A
   * text's runs of ASCII are read in place by addAsciiParts, and only the grams holding one of
   * its other characters are taken here: the texts of agent turns are ASCII but for a few
   * characters (a long tool output's '…' where the index cut it), and the JavaScript loop over
   * every character was a third of a cold build's work, four times the scanner's. A text with a
   * character that does not lower-case to one code unit of its own (or a surrogate half, which
   * UTF-8 does not keep as is), or dense with non-ASCII characters (CJK), is taken whole by
   * addTextLowering and its bytes passed by.
   */
  addUtf8Parts(bytes: Uint8Array, texts: readonly string[], byteLengths: ArrayLike<number>, cuts?: ArrayLike<CutText | undefined>): void {
    let runs = this.runs;
    let n = 0;
    for (let t = 0; t < texts.length; t++) {
      const text = texts[t]!;
      const length = text.length;
      const size = byteLengths[t]!;
      // Room for this text's entries: at most two per non-ASCII character, and one more.
      if (runs.length < n + 2 * (size - length) + 2) runs = this.runs = growInt32(runs, n + 2 * (size - length) + 2);
      if (size === length) {
        runs[n++] = length;
        continue;
      }
      const cut = cuts?.[t];
      const taken = cut ? this.cutGrams(cut, size, runs, n) : 8 * (size - length) <= length ? this.nonAsciiGrams(text, size, runs, n) : -1;
      if (taken >= 0) {
        n = taken;
        continue;
      }
      runs[n++] = -size - 2; // its bytes and the separator, passed by
      this.addTextLowering(text);
    }
    this.addAsciiParts(bytes, runs, n);
  }

  /**
   * For addUtf8Parts: adds the grams of `text` (of `size` UTF-8 bytes) that hold a non-ASCII
   * character, and writes the entries of its ASCII runs and of the bytes between them into `runs`
   * from `n`; returns where its entries end, or -1 (nothing added, nothing written) when a
   * character must be lower-cased with its text (see addTextLowering) or the bytes do not add up.
   */
  private nonAsciiGrams(text: string, size: number, runs: Int32Array, n: number): number {
    const length = text.length;
    // Where the non-ASCII characters are: found by a regular expression (native code), not a
    // loop over every character.
    const found = this.found;
    found.length = 0;
    let bytes = length;
    NON_ASCII.lastIndex = 0;
    for (let m = NON_ASCII.exec(text); m !== null; m = NON_ASCII.exec(text)) {
      const i = m.index;
      const c = text.charCodeAt(i);
      if ((c >= 0xd800 && c <= 0xdfff) || lowerNonAscii(c) === SPECIAL) return -1;
      bytes += c < 0x800 ? 1 : 2;
      found.push(i);
    }
    if (bytes !== size) return -1;
    let from = 0;
    for (let k = 0; k < found.length; k++) {
      const i = found[k]!;
      const c = text.charCodeAt(i);
      // The run before it, which passes the character's first byte as its separator, then the
      // character's other bytes.
      runs[n++] = i - from;
      runs[n++] = c < 0x800 ? -2 : -3;
      from = i + 1;
      this.gramsAround(text, i, c);
    }
    runs[n++] = length - from;
    return n;
  }

  /** The grams of `text` that hold its non-ASCII code unit `c` at `i`. */
  private gramsAround(text: string, i: number, c: number): void {
    const lo = Math.max(0, i - 2);
    const hi = Math.min(text.length - 1, i + 2);
    for (let s = lo; s + 2 <= hi; s++) this.add(trigram(lowerOne(text.charCodeAt(s)), lowerOne(text.charCodeAt(s + 1)), lowerOne(text.charCodeAt(s + 2))));
    const l = lowerNonAscii(c);
    if (i > 0) this.add(bigram(lowerOne(text.charCodeAt(i - 1)), l));
    if (i + 1 < text.length) this.add(bigram(l, lowerOne(text.charCodeAt(i + 1))));
  }

  /**
   * nonAsciiGrams of a cut text (`head + CUT_MARK + tail`, of `size` UTF-8 bytes) from its pieces,
   * without reading it joined (see CutText): when head and tail are ASCII, the mark's '…' is its
   * one other character, and its grams are those of the mark with one character either side.
   * -1 otherwise (nothing added, nothing written).
   */
  private cutGrams({ head, tail }: CutText, size: number, runs: Int32Array, n: number): number {
    if (head.length === 0 || tail.length === 0 || size !== head.length + CUT_MARK_BYTES + tail.length) return -1;
    const around = head.slice(-1) + CUT_MARK + tail.slice(0, 1);
    const c = around.charCodeAt(1 + CUT_MARK_OTHER);
    if (lowerNonAscii(c) === SPECIAL) return -1;
    // As nonAsciiGrams writes them: the run before '…' (passing its first byte as its separator),
    // its other two bytes, and the run after it.
    runs[n++] = head.length + CUT_MARK_OTHER;
    runs[n++] = -3;
    runs[n++] = CUT_MARK.length - CUT_MARK_OTHER - 1 + tail.length;
    this.gramsAround(around, 1 + CUT_MARK_OTHER, c);
    return n;
  }

  /** addAsciiParts in JavaScript, where WebAssembly cannot run (node --jitless). */
  addAsciiPartsHere(bytes: Uint8Array, lengths: Int32Array, count: number): void {
    const { bits, keys, seen, seenList } = this;
    for (let p = 0, at = 0; p < count; p++) {
      const length = lengths[p]!;
      if (length < 0) {
        at += -length - 1;
        continue;
      }
      if (length >= 3) asciiRangeKeys(bytes, at, at + length, bits, keys, seen, seenList);
      at += length + 1;
    }
  }

  /** `text`'s UTF-16 code units, in a buffer reused from one text to the next. */
  private codeUnits(text: string): Uint16Array {
    const n = text.length;
    if (this.scratch.length < n) this.scratch = new Uint16Array(Math.max(n, 2 * this.scratch.length));
    Buffer.from(this.scratch.buffer, 0, 2 * n).write(text, 0, 'utf16le');
    return this.scratch;
  }

  /** Adds the keys of `lower` (already lower-cased). */
  addText(lower: string): void {
    const n = lower.length;
    if (n < 2) return;
    let a = lower.charCodeAt(0);
    let b = lower.charCodeAt(1);
    if ((a | b) >= 0x80) this.add(bigram(a, b));
    for (let i = 2; i < n; i++) {
      const c = lower.charCodeAt(i);
      this.add(trigram(a, b, c));
      if ((b | c) >= 0x80) this.add(bigram(b, c));
      a = b;
      b = c;
    }
  }
}

/**
 * The keys every chunk holding `lower` must have, or undefined when the term is too short to
 * narrow anything (one character, or two ASCII characters): then every chunk is a candidate.
 */
export function termKeys(lower: string): number[] | undefined {
  const n = lower.length;
  if (n >= 3) {
    const keys = new Set<number>();
    for (let i = 2; i < n; i++) keys.add(trigram(lower.charCodeAt(i - 2), lower.charCodeAt(i - 1), lower.charCodeAt(i)));
    return [...keys];
  }
  if (n === 2 && (lower.charCodeAt(0) | lower.charCodeAt(1)) >= 0x80) return [bigram(lower.charCodeAt(0), lower.charCodeAt(1))];
  return undefined;
}
