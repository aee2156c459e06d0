// Gram keys: which chunks of text may hold a substring. Every three consecutive UTF-16 code
// units of the lower-cased text hash to one of 2^20 trigram keys; two consecutive units of which
// one is not ASCII (a two-character CJK word) hash to one of 2^20 bigram keys. A chunk's keys are
// stored once each (a set, no positions), so writing them costs one hash per character and the
// index holds a few bytes per distinct key instead of an entry per character. Keys only narrow
// the candidates (hash collisions and keys scattered across a chunk make false candidates):
// search always confirms a match against the text itself.

import { AsciiKeyScanner, wasmApi } from './ascii-keys.js';

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
   * by one separator byte; `lengths[i]` is part i's length, -1 for a blank part, which has no
   * bytes), exactly as addTextLowering of each part would (every byte below 0x80 is its own code
   * unit). A chunk of terminal records is nearly always ASCII and is read in place from its buffer.
   */
  addAsciiParts(bytes: Uint8Array, lengths: Int32Array, count: number): void {
    const found = asciiScanner()?.keys(bytes, lengths, count);
    if (found) {
      for (let i = 0; i < found.length; i++) this.add(found[i]!);
      return;
    }
    this.addAsciiPartsHere(bytes, lengths, count);
  }

  /** addAsciiParts in JavaScript, where WebAssembly cannot run (node --jitless). */
  addAsciiPartsHere(bytes: Uint8Array, lengths: Int32Array, count: number): void {
    const { bits, keys, seen, seenList } = this;
    for (let p = 0, at = 0; p < count; p++) {
      const length = lengths[p]!;
      if (length < 0) continue;
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
