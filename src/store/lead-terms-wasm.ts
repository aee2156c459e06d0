// The counting pass of lead-terms.ts as a small WebAssembly function: a first build lists the
// common terms of every lead once, and V8 ran the JavaScript loop mostly unoptimised (about 400
// instructions a character, callgrind, 300 MB bench corpus); V8 compiles this at once (Liftoff).
// It counts in a lead's UTF-8 bytes with A–Z folded, where a term of SAFE characters (ASCII, CJK)
// occurs exactly where it occurs in the lead's characters folded the same way: the term's first
// byte is never a continuation byte, so every match starts and ends on a character.
import { memoryFor, op, wasmModule, WASM_PAGE, type Code, type WasmMemory } from './wasm-encode.js';
import { wasmApi } from './ascii-keys.js';

const BITS = 12;
// Memory layout (bytes): the fold of each byte; per hash of three folded bytes the first term
// (plus one; 0: none); per term the next of its bucket (plus one), its bytes' place and length,
// its count in the part being scanned and where its last occurrence ended; the parts' met terms;
// the terms' bytes; then each call's text, part lengths and output.
const FOLD = 0;
const HEADS = 0x100;
const MAX_TERMS = 256;
const NEXT = HEADS + 4 * (1 << BITS);
const TOFF = NEXT + 4 * MAX_TERMS;
const TLEN = TOFF + 4 * MAX_TERMS;
const COUNT = TLEN + 4 * MAX_TERMS;
const TEND = COUNT + 4 * MAX_TERMS;
const MET = TEND + 4 * MAX_TERMS;
const TBYTES = MET + 4 * MAX_TERMS;
const MAX_TERM_BYTES = 0x2000;
/** One bit per pair of folded bytes, set when a term starts with it: most positions are passed over on that test alone. */
const PAIRS = TBYTES + MAX_TERM_BYTES;
const FREE = PAIRS + (1 << 13);

// Parameters and locals of `count`.
const [TEXT, LENS, NPARTS, OUT] = [0, 1, 2, 3];
const [P, AT, END, I, M, T, TL, K, OFF, NOUT, NMET, C, J, B, R] = [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18];

const foldAt = (local: number, offset = 0): Code => [op.get(local), op.load8(offset), op.load8(FOLD)];
const at4 = (base: number, local: number): Code => [op.get(local), op.const(2), op.shl, op.const(base), op.add];

/** The hash of the folded bytes at I, I+1, I+2 (hash3 of lead-terms.ts, over bytes). */
const hashAtI = (): Code => [
  foldAt(I), op.const(0x9e3779b1), op.mul,
  foldAt(I, 1), op.const(0x85ebca77), op.mul, op.xor,
  foldAt(I, 2), op.xor,
  op.const(0xc2b2ae35), op.mul, op.const(32 - BITS), op.shrU,
];

/**
 * count(text, lens, nparts, out) → triples written to out (part, term, count): for each part
 * (its byte length in lens; parts are followed by one separator byte), each term's
 * non-overlapping occurrences, leftmost first. Assembled when a counter is made (only a build
 * lists lead terms): as a module-level value it was built at every start, a warm search's too.
 */
const countBody = (): readonly Code[] => [
  op.get(TEXT), op.set(AT),
  op.block, op.loop,
    op.get(P), op.get(NPARTS), op.geS, op.brIf(1),
    // The part's end: as many UTF-16 code units on as its length (lens holds characters): a byte
    // below 80 or from C0 starts a character, of two code units from F0 (a surrogate pair).
    at4(0, P), op.get(LENS), op.add, op.load(), op.set(C),
    op.get(AT), op.set(END),
    op.block, op.loop,
      op.get(C), op.eqz, op.brIf(1),
      op.get(END), op.load8(), op.set(B),
      op.get(B), op.const(0x80), op.ltU, op.get(B), op.const(0xc0), op.geU, op.or,
      op.if,
        op.get(C), op.const(1), op.sub, op.get(B), op.const(0xf0), op.geU, op.sub, op.set(C),
      op.end,
      op.get(END), op.const(1), op.add, op.set(END),
      // A character's continuation bytes belong to it.
      op.block, op.loop,
        op.get(END), op.load8(), op.const(0xc0), op.and, op.const(0x80), op.ne, op.brIf(1),
        op.get(END), op.const(1), op.add, op.set(END), op.br(0),
      op.end, op.end,
      op.br(0),
    op.end, op.end,
    op.const(0), op.set(NMET),
    op.get(AT), op.set(I),
    foldAt(AT), op.set(R),
    op.block, op.loop,
      op.get(I), op.const(3), op.add, op.get(END), op.gtU, op.brIf(1),
      // R: the folded bytes at I and I + 1.
      op.get(R), op.const(8), op.shl, foldAt(I, 1), op.or, op.const(0xffff), op.and, op.tee(R),
      op.const(3), op.shrU, op.load8(PAIRS), op.get(R), op.const(7), op.and, op.shrU, op.const(1), op.and, op.eqz,
      op.if,
        op.const(0), op.set(M),
      op.else,
        hashAtI(), op.const(2), op.shl, op.load(HEADS), op.set(M),
      op.end,
      op.block, op.loop,
        op.get(M), op.eqz, op.brIf(1),
        op.get(M), op.const(1), op.sub, op.set(T),
        at4(TLEN, T), op.load(), op.set(TL),
        op.get(I), op.get(TL), op.add, op.get(END), op.gtU, op.eqz,
        op.if,
          at4(TOFF, T), op.load(), op.set(OFF),
          op.const(0), op.set(K),
          op.block, op.loop,
            op.get(K), op.get(TL), op.geU, op.brIf(1),
            op.get(I), op.get(K), op.add, op.load8(), op.load8(FOLD),
            op.get(OFF), op.get(K), op.add, op.load8(TBYTES), op.ne, op.brIf(1),
            op.get(K), op.const(1), op.add, op.set(K), op.br(0),
          op.end, op.end,
          op.get(K), op.get(TL), op.eq,
          op.if,
            at4(COUNT, T), op.load(), op.tee(C), op.eqz,
            op.if,
              at4(MET, NMET), op.get(T), op.store(),
              op.get(NMET), op.const(1), op.add, op.set(NMET),
              at4(TEND, T), op.get(I), op.get(TL), op.add, op.store(),
              at4(COUNT, T), op.const(1), op.store(),
            op.else,
              op.get(I), at4(TEND, T), op.load(), op.geU,
              op.if,
                at4(TEND, T), op.get(I), op.get(TL), op.add, op.store(),
                at4(COUNT, T), op.get(C), op.const(1), op.add, op.store(),
              op.end,
            op.end,
          op.end,
        op.end,
        at4(NEXT, T), op.load(), op.set(M),
        op.br(0),
      op.end, op.end,
      op.get(I), op.const(1), op.add, op.set(I), op.br(0),
    op.end, op.end,
    op.const(0), op.set(J),
    op.block, op.loop,
      op.get(J), op.get(NMET), op.geS, op.brIf(1),
      at4(MET, J), op.load(), op.set(T),
      op.get(OUT), op.get(NOUT), op.const(12), op.mul, op.add, op.tee(OFF), op.get(P), op.store(),
      op.get(OFF), op.get(T), op.store(4),
      op.get(OFF), at4(COUNT, T), op.load(), op.store(8),
      at4(COUNT, T), op.const(0), op.store(),
      op.get(NOUT), op.const(1), op.add, op.set(NOUT),
      op.get(J), op.const(1), op.add, op.set(J), op.br(0),
    op.end, op.end,
    op.get(END), op.const(1), op.add, op.set(AT),
    op.get(P), op.const(1), op.add, op.set(P), op.br(0),
  op.end, op.end,
  op.get(NOUT),
];

type Exports = { memory: WasmMemory; count: (...args: number[]) => number };

/** Counts a fixed set of terms (each of three bytes or more in UTF-8, and SAFE) in leads. */
export class WasmTermCounter {
  private readonly exports: Exports;
  /** The memory as a Buffer (made again when it grows). */
  private bytes: Buffer | undefined;

  private constructor(exports: Exports) {
    this.exports = exports;
  }

  /** A counter of `terms`, or undefined where WebAssembly cannot run or the terms do not fit. */
  static of(terms: readonly string[]): WasmTermCounter | undefined {
    const api = wasmApi;
    if (api === undefined || terms.length > MAX_TERMS) return undefined;
    const bytes = terms.map((t) => Buffer.from(t, 'utf8'));
    if (bytes.some((b) => b.length < 3) || bytes.reduce((n, b) => n + b.length, 0) > MAX_TERM_BYTES) return undefined;
    let exports: Exports;
    try {
      const instance = new api.Instance(new api.Module(wasmModule([{ name: 'count', params: 4, locals: 15, body: countBody() }], FREE / WASM_PAGE + 4)));
      exports = instance.exports as unknown as Exports;
    } catch {
      return undefined;
    }
    const mem = new Uint8Array(exports.memory.buffer);
    for (let c = 0; c < 256; c++) mem[FOLD + c] = c >= 65 && c <= 90 ? c | 32 : c;
    const ints = new Int32Array(exports.memory.buffer);
    let off = 0;
    // Pushed last to first, so each bucket lists its terms in term order.
    for (let t = terms.length - 1; t >= 0; t--) {
      const b = bytes[t]!;
      const h = hash3(b[0]!, b[1]!, b[2]!);
      ints[(NEXT >> 2) + t] = ints[(HEADS >> 2) + h]!;
      ints[(HEADS >> 2) + h] = t + 1;
      const pair = (b[0]! << 8) | b[1]!;
      mem[PAIRS + (pair >> 3)]! |= 1 << (pair & 7);
    }
    for (let t = 0; t < terms.length; t++) {
      const b = bytes[t]!;
      ints[(TOFF >> 2) + t] = off;
      ints[(TLEN >> 2) + t] = b.length;
      mem.set(b, TBYTES + off);
      off += b.length;
    }
    return new WasmTermCounter(exports);
  }

  /**
   * Per part of `text` (its parts' character lengths `lengths`, joined by one separator), the
   * terms it holds and how often: triples (part, term, count), valid until the next call.
   * Undefined when the memory it needs cannot be had.
   */
  count(text: string, lengths: readonly number[]): Int32Array | undefined {
    const { memory, count } = this.exports;
    const n = lengths.length;
    const max = 3 * text.length + 4;
    const lens = FREE;
    const at = (lens + 4 * n + 3) & ~3;
    const out = (at + max + 3) & ~3;
    // At most one triple per part and term: bounded by the text's bytes (a term is three bytes or more).
    const need = out + 12 * (max / 3 + n + 1);
    if (!memoryFor(memory, need)) return undefined;
    const buffer = memory.buffer;
    const lensView = new Int32Array(buffer, lens, n);
    for (let p = 0; p < n; p++) lensView[p] = lengths[p]!;
    const written = (this.bytes?.buffer === buffer ? this.bytes : (this.bytes = Buffer.from(buffer))).write(text, at, 'utf8');
    // A byte past the text that starts no character (its last part's end is found by counting characters).
    this.bytes[at + written] = 0;
    const found = count(at, lens, n, out);
    return new Int32Array(buffer, out, 3 * found);
  }
}

const hash3 = (a: number, b: number, c: number): number => (Math.imul(Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ c, 0xc2b2ae35) >>> (32 - BITS));
