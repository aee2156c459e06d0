// The trigram keys of a chunk's ASCII parts, computed by a small WebAssembly function (grams.ts
// defines the keys; this computes the same ones, in the same order). A cold index build runs
// the JavaScript loop mostly as baseline code, the optimised version arriving from another
// thread part way through: over the bench's 10,000 terminal records (1.4 MB of text) that loop
// cost ~106 M instructions on the main thread and ~44 M more compiling it; V8 compiles this
// function once, at once (Liftoff), and it runs it at ~26 instructions a byte (36 M in all).
import { memoryFor, op, wasmModule, WASM_PAGE, type Code, type WasmMemory } from './wasm-encode.js';

/** The trigram hash of grams.ts: its three multipliers and the bits a key keeps. */
export type TrigramHash = { mix: number; m1: number; m2: number; bits: number };

// Memory layout (bytes): the lower case of each ASCII byte; the set's counts; one byte per
// 21-bit ASCII trigram (three 7-bit characters), 1 once met in the set being filled; one bit per
// trigram key; then each call's text, part lengths, trigrams met and keys found.
const LOWER = 0;
const COUNTS = 0x8000;
const SEEN = 0x10000;
const KEY_BITS = SEEN + (1 << 21);
const FREE = KEY_BITS + (1 << 17);

// Parameters and locals of `scan`.
const [TEXT, LENGTHS, COUNT, SEEN_LIST, KEYS] = [0, 1, 2, 3, 4];
const [P, AT, LEN, END, I, R, W, BIT, HAD, KEY, NSEEN, NKEYS, H] = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17];

const lowerAt = (local: number, offset = 0): Code => [op.get(local), op.load8(offset), op.load8(LOWER)];

/** local R (a trigram: three 7-bit characters) → its key, on the stack (grams.ts `trigram`). */
const keyOfTrigram = (hash: TrigramHash): Code => [
  op.get(R), op.const(14), op.shrU, op.const(16), op.shl,
  op.get(R), op.const(7), op.shrU, op.const(0x7f), op.and, op.or,
  op.get(R), op.const(0x7f), op.and, op.const(hash.mix), op.mul, op.xor,
  op.const(hash.m1), op.mul, op.tee(H), op.get(H), op.const(15), op.shrU, op.xor,
  op.const(hash.m2), op.mul, op.const(32 - hash.bits), op.shrU,
];

/** `list[count++] = value` for locals list, count and a value on the stack (leaves nothing). */
const push = (list: number, count: number, value: Code): Code => [op.get(list), op.get(count), op.const(2), op.shl, op.add, value, op.store(), op.get(count), op.const(1), op.add, op.set(count)];

/**
 * scan(text, lengths, count, seenList, keys) → keys in the set: the parts' trigrams, as
 * asciiRangeKeys in grams.ts takes them (a length L below 0 is no part but -L - 1 bytes passed
 * by: -1 a blank part, which has no bytes; a part shorter than three has no trigram; each part
 * is followed by one separator byte), added to the set being filled.
 */
function scanBody(hash: TrigramHash): readonly Code[] {
  return [
    op.const(0), op.load(COUNTS), op.set(NSEEN), op.const(0), op.load(COUNTS + 4), op.set(NKEYS),
    op.get(TEXT), op.set(AT),
    op.block, op.loop,
      op.get(P), op.get(COUNT), op.geS, op.brIf(1),
      op.get(LENGTHS), op.get(P), op.const(2), op.shl, op.add, op.load(), op.tee(LEN), op.const(0), op.geS,
      op.if,
        op.get(LEN), op.const(3), op.geS,
        op.if,
          op.get(AT), op.get(LEN), op.add, op.set(END),
          lowerAt(AT), op.const(7), op.shl, lowerAt(AT, 1), op.or, op.set(R),
          op.get(AT), op.const(2), op.add, op.set(I),
          op.loop,
            op.get(R), op.const(7), op.shl, lowerAt(I), op.or, op.const(0x1fffff), op.and, op.tee(R),
            op.load8(SEEN), op.eqz,
            op.if,
              op.get(R), op.const(1), op.store8(SEEN),
              push(SEEN_LIST, NSEEN, op.get(R)),
              keyOfTrigram(hash), op.tee(KEY),
              op.const(5), op.shrU, op.const(2), op.shl, op.tee(W), op.load(KEY_BITS), op.tee(HAD),
              op.const(1), op.get(KEY), op.shl, op.tee(BIT), op.and, op.eqz,
              op.if,
                op.get(W), op.get(HAD), op.get(BIT), op.or, op.store(KEY_BITS),
                push(KEYS, NKEYS, op.get(KEY)),
              op.end,
            op.end,
            op.get(I), op.const(1), op.add, op.tee(I), op.get(END), op.ltU, op.brIf(0),
          op.end,
        op.end,
        op.get(AT), op.get(LEN), op.add, op.const(1), op.add, op.set(AT),
      op.else,
        op.get(AT), op.get(LEN), op.sub, op.const(1), op.sub, op.set(AT),
      op.end,
      op.get(P), op.const(1), op.add, op.set(P), op.br(0),
    op.end, op.end,
    op.const(0), op.get(NSEEN), op.store(COUNTS), op.const(0), op.get(NKEYS), op.store(COUNTS + 4),
    op.get(NKEYS),
  ];
}

/**
 * clear(seenList, keys) → 0: the set emptied, its marks taken off one by one. Assembled when a
 * scanner is made, like scan's body: a search that builds nothing never runs it.
 */
const clearBody = (): readonly Code[] => [
  op.const(0), op.load(COUNTS), op.set(NSEEN), op.const(0), op.load(COUNTS + 4), op.set(NKEYS),
  op.block, op.loop, op.get(I), op.get(NSEEN), op.geS, op.brIf(1),
    op.get(SEEN_LIST), op.get(I), op.const(2), op.shl, op.add, op.load(), op.const(0), op.store8(SEEN),
    op.get(I), op.const(1), op.add, op.set(I), op.br(0),
  op.end, op.end,
  op.const(0), op.set(I),
  op.block, op.loop, op.get(I), op.get(NKEYS), op.geS, op.brIf(1),
    op.get(KEYS), op.get(I), op.const(2), op.shl, op.add, op.load(), op.const(5), op.shrU, op.const(2), op.shl, op.const(0), op.store(KEY_BITS),
    op.get(I), op.const(1), op.add, op.set(I), op.br(0),
  op.end, op.end,
  op.const(0), op.const(0), op.store(COUNTS), op.const(0), op.const(0), op.store(COUNTS + 4),
  op.const(0),
];

type Exports = { memory: WasmMemory; scan: (...args: number[]) => number; clear: (...args: number[]) => number };

/** The part of the WebAssembly API used here (the project's TypeScript libraries do not declare it). */
type WasmApi = { Module: new (bytes: Uint8Array) => object; Instance: new (module: object) => { exports: unknown } };

/** WebAssembly, or undefined where it cannot run (node --jitless). */
export const wasmApi = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** Computes the keys of a chunk's ASCII parts (its bytes must all be below 0x80). */
export class AsciiKeyScanner {
  private readonly exports: Exports;

  constructor(hash: TrigramHash) {
    const fns = [
      { name: 'scan', params: 5, locals: 13, body: scanBody(hash) },
      { name: 'clear', params: 5, locals: 13, body: clearBody() },
    ];
    const api = wasmApi;
    if (api === undefined) throw new Error('WebAssembly is not available');
    const instance = new api.Instance(new api.Module(wasmModule(fns, FREE / WASM_PAGE + 1)));
    this.exports = instance.exports as unknown as Exports;
    const lower = new Uint8Array(this.exports.memory.buffer, LOWER, 0x80);
    for (let c = 0; c < 0x80; c++) lower[c] = c >= 65 && c <= 90 ? c | 32 : c;
  }

  /**
   * The distinct keys of the first `count` parts held in `bytes` (see scanBody), in the order
   * they were first met; valid until the next call. Undefined when the memory they need cannot
   * be had (the caller takes them in JavaScript).
   */
  keys(bytes: Uint8Array, lengths: Int32Array, count: number): Int32Array | undefined {
    const { memory, scan, clear } = this.exports;
    const n = bytes.length;
    // Trigrams met and keys found are at most one a byte, and a 21-bit and a 20-bit value.
    const text = FREE;
    const lens = (text + n + 3) & ~3;
    const seenList = lens + 4 * count;
    const keys = seenList + 4 * Math.min(n, 1 << 21);
    const need = keys + 4 * Math.min(n, 1 << 20);
    if (!memoryFor(memory, need)) return undefined;
    const buffer = memory.buffer;
    new Uint8Array(buffer, text, n).set(bytes);
    new Int32Array(buffer, lens, count).set(lengths.subarray(0, count));
    const found = scan(text, lens, count, seenList, keys);
    const out = new Int32Array(buffer, keys, found);
    clear(0, 0, 0, seenList, keys);
    return out;
  }
}
