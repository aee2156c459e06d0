// Two loops of a one-shot search of common words as a small WebAssembly module: the merge of
// listedUnits (lead-bytes.ts) and the scoring of LeadRanker (search.ts). A search of two common
// words ("parser config", 300 MB bench corpus) merges some 2,600 list entries and scores some
// 1,500 units, once each: V8 ran those loops as interpreted and baseline code and optimised them
// on other threads when they were nearly done (callgrind: the merge ~28 M instructions on the main
// thread and ~50 M on the others, the scoring ~6 M and ~27 M). V8 compiles this at once
// (Liftoff), from bytes kept below rather than built at every run. The results are the
// JavaScript loops' to the bit; those stay for a Node without WebAssembly, and the merge's for a
// search of one source's sessions.
import { memoryFor, op, wasmModule, WASM_PAGE, type Code, type WasmMemory } from './wasm-encode.js';
import { wasmApi } from './ascii-keys.js';
import { ENTRY_INTS } from './lead-terms.js';
import type { LeadUnits } from './lead-postings.js';

const ENTRY = 4 * ENTRY_INTS;
// Byte offsets of an entry's fields (lead-terms.ts): chunk, session, first unit, unit ordinal, n, length, kind << 8 | count.
const [E_CHUNK, E_FIRST, E_ORDINAL, E_N, E_LENGTH, E_KIND] = [0, 8, 12, 16, 20, 24];

// Memory layout (bytes): the call's parameters; per term its list's next and end entry; which
// lead kinds are searched, and their weights (a byte per kind); then each call's chunk masks,
// lists and output, placed by the caller.
const P_TERMS = 0;
const P_MASKS = 4;
const P_NMASKS = 8;
const P_MAXTF = 12;
const P_UID = 16;
const P_CHUNK = 20;
const P_START = 24;
const P_MASK = 28;
const P_HELD = 32;
const P_TF = 36;
const P_N = 40;
const P_LENGTH = 44;
const P_WEIGHT = 48;
const P_FIRST = 52;
const P_ROWS = 56;
const LISTS = 0x40;
export const MAX_MERGED_TERMS = 30;
const KINDS = LISTS + 8 * MAX_MERGED_TERMS;
const WEIGHTS = KINDS + 0x100;
// score's parameters: i32 then f64 values.
const SP = WEIGHTS + 0x100;
const [S_COUNT, S_TERMS, S_START, S_TF, S_LENGTH, S_WEIGHT, S_N, S_IDF, S_SCORES, S_PARTS] = [0, 4, 8, 12, 16, 20, 24, 28, 32, 36].map((o) => SP + o) as [number, number, number, number, number, number, number, number, number, number];
const [S_K1P1, S_K1, S_1MB, S_B, S_AVG] = [48, 56, 64, 72, 80].map((o) => SP + o) as [number, number, number, number, number];
const FREE = SP + 0x60;

const param = (offset: number): Code => [op.const(0), op.load(offset)];
/** The byte address of element `index` (a local) of the i32 (or, shift 3, f64) array whose address is parameter `offset`. */
const slot = (offset: number, index: number, shift = 2): Code => [op.get(index), op.const(shift), op.shl, param(offset), op.add];
const CMP = 1;

// cmp(a, b): entries at byte addresses a and b compared by chunk, unit ordinal, then n (compareEntries of lead-bytes.ts).
const [A, B, D] = [0, 1, 2];
const cmpBody = (): readonly Code[] => [
  op.block,
  op.get(A), op.load(E_CHUNK), op.get(B), op.load(E_CHUNK), op.sub, op.tee(D), op.brIf(0),
  op.get(A), op.load(E_ORDINAL), op.get(B), op.load(E_ORDINAL), op.sub, op.tee(D), op.brIf(0),
  op.get(A), op.load(E_N), op.get(B), op.load(E_N), op.sub, op.set(D),
  op.end,
  op.get(D),
];

// Locals of `merge`.
const [NT, T, P, CUR, END, E, KEPT, CH, BP, H, U, ROWS, LASTC, LASTO, MASK, R, F, X, BEST, K] = [...Array(20).keys()];

/** The list slot of term T: its next entry, then its end. */
const listSlot: Code = [op.get(T), op.const(3), op.shl, op.const(LISTS), op.add];

/**
 * merge() → the units (-1: a list out of order). First each list keeps the entries of a visible
 * chunk (its mask not 0) and a searched kind, checking their order; then the lists are merged, a
 * row per part, a unit per run of one chunk and ordinal.
 */
const mergeBody = (): readonly Code[] => [
  param(P_TERMS), op.set(NT),
  op.block, op.loop,
    op.get(T), op.get(NT), op.geS, op.brIf(1),
    listSlot, op.tee(P), op.load(0), op.tee(CUR), op.tee(E), op.set(KEPT),
    op.get(P), op.load(4), op.set(END),
    op.block, op.loop,
      op.get(E), op.get(END), op.geU, op.brIf(1),
      op.block,
        op.get(E), op.load(E_CHUNK), op.tee(CH), param(P_NMASKS), op.geU, op.brIf(0),
        op.get(CH), op.const(2), op.shl, param(P_MASKS), op.add, op.load(), op.eqz, op.brIf(0),
        op.get(E), op.load(E_KIND), op.const(8), op.shrU, op.const(0xff), op.and, op.load8(KINDS), op.eqz, op.brIf(0),
        op.get(KEPT), op.get(CUR), op.ne,
        op.if,
          op.get(KEPT), op.const(ENTRY), op.sub, op.get(E), op.call(CMP), op.const(0), op.geS,
          op.if, op.const(-1), op.return, op.end,
        op.end,
        op.get(KEPT), op.get(E), op.ne,
        op.if,
          ...Array.from({ length: ENTRY_INTS }, (_, i) => [op.get(KEPT), op.get(E), op.load(4 * i), op.store(4 * i)]),
        op.end,
        op.get(KEPT), op.const(ENTRY), op.add, op.set(KEPT),
      op.end,
      op.get(E), op.const(ENTRY), op.add, op.set(E),
      op.br(0),
    op.end, op.end,
    op.get(P), op.get(KEPT), op.store(4),
    op.get(T), op.const(1), op.add, op.set(T),
    op.br(0),
  op.end, op.end,
  op.const(-1), op.set(U), op.const(-1), op.set(LASTC), op.const(-1), op.set(LASTO),
  op.block, op.loop,
    // The list whose next entry comes first (the first such term on a tie).
    op.const(0), op.set(BP), op.const(0), op.set(T),
    op.block, op.loop,
      op.get(T), op.get(NT), op.geS, op.brIf(1),
      listSlot, op.tee(P), op.load(0), op.tee(CUR), op.get(P), op.load(4), op.ltU,
      op.if,
        op.get(BP), op.eqz,
        op.if,
          op.get(P), op.set(BP), op.get(T), op.set(BEST),
        op.else,
          op.get(CUR), op.get(BP), op.load(0), op.call(CMP), op.const(0), op.ltS,
          op.if, op.get(P), op.set(BP), op.get(T), op.set(BEST), op.end,
        op.end,
      op.end,
      op.get(T), op.const(1), op.add, op.set(T),
      op.br(0),
    op.end, op.end,
    op.get(BP), op.eqz, op.brIf(1),
    op.get(BP), op.load(0), op.tee(H), op.load(E_CHUNK), op.set(CH),
    op.get(H), op.load(E_ORDINAL), op.set(X),
    op.get(CH), op.get(LASTC), op.ne, op.get(X), op.get(LASTO), op.ne, op.or,
    op.if,
      op.get(U), op.const(0), op.geS,
      op.if, slot(P_MASK, U), op.get(MASK), op.store(), op.end,
      op.get(U), op.const(1), op.add, op.set(U),
      op.const(0), op.set(MASK),
      op.get(H), op.load(E_FIRST), op.set(F),
      // The unit's id: a terminal record's (first unit -1) follows from its chunk (recordsFirstUnit of record-chunks.ts).
      op.get(F), op.const(-1), op.eq,
      op.if,
        slot(P_UID, U, 3), op.const(0), op.get(CH), op.sub, op.f64OfI32, op.constF64(2 ** 20), op.mulF64, op.get(X), op.f64OfI32, op.addF64, op.storeF64(),
      op.else,
        slot(P_UID, U, 3), op.get(F), op.f64OfI32, op.get(X), op.f64OfI32, op.addF64, op.storeF64(),
      op.end,
      slot(P_CHUNK, U), op.get(CH), op.store(),
      slot(P_START, U), op.get(ROWS), op.store(),
      slot(P_FIRST, U), op.get(F), op.store(),
      op.get(CH), op.set(LASTC), op.get(X), op.set(LASTO),
    op.end,
    op.get(ROWS), op.tee(R), op.const(1), op.add, op.set(ROWS),
    // Every list whose next entry is this part's: its count, and the list moves on.
    op.get(BEST), op.set(T),
    op.block, op.loop,
      op.get(T), op.get(NT), op.geS, op.brIf(1),
      listSlot, op.tee(P), op.load(0), op.tee(CUR), op.get(P), op.load(4), op.ltU,
      op.if,
        op.get(CUR), op.get(H), op.call(CMP), op.eqz,
        op.if,
          op.get(R), op.get(NT), op.mul, op.get(T), op.add, param(P_TF), op.add,
          op.get(CUR), op.load(E_KIND), op.const(0xff), op.and, op.tee(K), param(P_MAXTF), op.get(K), param(P_MAXTF), op.ltS, op.select,
          op.store8(),
          op.get(MASK), op.const(1), op.get(T), op.shl, op.or, op.set(MASK),
          op.get(P), op.get(CUR), op.const(ENTRY), op.add, op.store(0),
        op.end,
      op.end,
      op.get(T), op.const(1), op.add, op.set(T),
      op.br(0),
    op.end, op.end,
    slot(P_N, R), op.get(H), op.load(E_N), op.store(),
    slot(P_LENGTH, R), op.get(H), op.load(E_LENGTH), op.store(),
    op.get(R), param(P_WEIGHT), op.add, op.get(H), op.load(E_KIND), op.const(8), op.shrU, op.const(0xff), op.and, op.load8(WEIGHTS), op.store8(),
    op.br(0),
  op.end, op.end,
  op.get(U), op.const(0), op.geS,
  op.if, slot(P_MASK, U), op.get(MASK), op.store(), op.end,
  op.get(U), op.const(1), op.add, op.set(K),
  slot(P_START, K), op.get(ROWS), op.store(),
  op.const(0), op.set(K),
  op.block, op.loop,
    op.get(K), op.get(U), op.gtS, op.brIf(1),
    op.get(K), param(P_HELD), op.add, slot(P_MASK, K), op.load(), op.popcnt, op.store8(),
    op.get(K), op.const(1), op.add, op.set(K),
    op.br(0),
  op.end, op.end,
  op.const(0), op.get(ROWS), op.store(P_ROWS),
  op.get(U), op.const(1), op.add,
];

// Locals of `score`: i32, then f64.
const [SU, SR, ST, SNT, SCNT, SREND, STF, SPART, SNN] = [...Array(9).keys()];
const [BM, SC, SS, SL] = [9, 10, 11, 12];
const f64Param = (at: number): Code => [op.const(0), op.loadF64(at)];

/**
 * score() → 0: per unit, the score of its best part and that part's n (scoreUnits of search.ts:
 * BM25 of each row's counts times its weight, the lowest score, ties to the lower n), in the same
 * f64 operations in the same order, so the same values.
 */
const scoreBody = (): readonly Code[] => [
  param(S_TERMS), op.set(SNT), param(S_COUNT), op.set(SCNT),
  op.block, op.loop,
    op.get(SU), op.get(SCNT), op.geS, op.brIf(1),
    op.constF64(Infinity), op.set(SC), op.const(0), op.set(SPART),
    slot(S_START, SU), op.tee(SR), op.load(4), op.set(SREND), op.get(SR), op.load(), op.set(SR),
    op.block, op.loop,
      op.get(SR), op.get(SREND), op.geS, op.brIf(1),
      op.constF64(0), op.set(BM),
      slot(S_LENGTH, SR), op.load(), op.f64OfI32, op.set(SL),
      op.const(0), op.set(ST),
      op.block, op.loop,
        op.get(ST), op.get(SNT), op.geS, op.brIf(1),
        op.get(SR), op.get(SNT), op.mul, op.get(ST), op.add, param(S_TF), op.add, op.load8(), op.tee(STF),
        op.if,
          // bm25 += (idf[t] * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avg))
          op.get(BM),
          slot(S_IDF, ST, 3), op.loadF64(), op.get(STF), op.f64OfI32, op.mulF64, f64Param(S_K1P1), op.mulF64,
          op.get(STF), op.f64OfI32, f64Param(S_K1), f64Param(S_1MB), f64Param(S_B), op.get(SL), op.mulF64, f64Param(S_AVG), op.divF64, op.addF64, op.mulF64, op.addF64,
          op.divF64, op.addF64, op.set(BM),
        op.end,
        op.get(ST), op.const(1), op.add, op.set(ST),
        op.br(0),
      op.end, op.end,
      op.get(BM), op.negF64, op.get(SR), param(S_WEIGHT), op.add, op.load8(), op.f64OfI32, op.mulF64, op.set(SS),
      slot(S_N, SR), op.load(), op.set(SNN),
      op.get(SS), op.get(SC), op.ltF64, op.get(SS), op.get(SC), op.eqF64, op.get(SNN), op.get(SPART), op.ltS, op.and, op.or,
      op.if, op.get(SS), op.set(SC), op.get(SNN), op.set(SPART), op.end,
      op.get(SR), op.const(1), op.add, op.set(SR),
      op.br(0),
    op.end, op.end,
    slot(S_SCORES, SU, 3), op.get(SC), op.storeF64(),
    slot(S_PARTS, SU), op.get(SPART), op.store(),
    op.get(SU), op.const(1), op.add, op.set(SU),
    op.br(0),
  op.end, op.end,
  op.const(0),
];

type Exports = { memory: WasmMemory; merge(): number; score(): number };

/** What merge gives: LeadUnits's arrays (lead-postings.ts), and per unit its chunk's first unit (-1: records). */
export type MergedLists = Pick<LeadUnits, 'count' | 'uid' | 'chunk' | 'mask' | 'held' | 'start' | 'tf' | 'n' | 'length' | 'weight'> & { first: Int32Array };

/**
 * The module: merge, then cmp (which merge calls), then score, with a memory of one page. Made by
 * the tests alone (test/store/lead-rank-wasm.test.ts holds MODULE to it): building its bytes from
 * the arrays above cost a one-shot search ~6.5 M instructions of interpreted code, more than the
 * merge itself.
 */
export function rankModule(): Uint8Array {
  return wasmModule(
    [
      { name: 'merge', params: 0, locals: 20, body: mergeBody() },
      { name: 'cmp', params: 2, locals: 1, body: cmpBody() },
      { name: 'score', params: 0, locals: 9, f64Locals: 4, body: scoreBody() },
    ],
    FREE / WASM_PAGE + 1,
  );
}

/** rankModule()'s bytes, in base64. */
export const MODULE =
  'AGFzbQEAAAABDwNgAAF/YAJ/fwF/YAABfwMEAwABAgUDAQABByAEBm1lbW9yeQIABW1lcmdlAAADY21wAAEFc2NvcmUAAgqE' +
  'CgPrBgEUf0EAKAIAIQACQANAIAEgAE4NASABQQN0QcAAaiICKAIAIgMiBSEGIAIoAgQhBAJAA0AgBSAETw0BAkAgBSgCACIH' +
  'QQAoAghPDQAgB0ECdEEAKAIEaigCAEUNACAFKAIYQQh2Qf8BcS0AsAJFDQAgBiADRwRAIAZBHGsgBRABQQBOBEBBfw8LCyAG' +
  'IAVHBEAgBiAFKAIANgIAIAYgBSgCBDYCBCAGIAUoAgg2AgggBiAFKAIMNgIMIAYgBSgCEDYCECAGIAUoAhQ2AhQgBiAFKAIY' +
  'NgIYCyAGQRxqIQYLIAVBHGohBQwACwsgAiAGNgIEIAFBAWohAQwACwtBfyEKQX8hDEF/IQ0CQANAQQAhCEEAIQECQANAIAEg' +
  'AE4NASABQQN0QcAAaiICKAIAIgMgAigCBEkEQCAIRQRAIAIhCCABIRIFIAMgCCgCABABQQBIBEAgAiEIIAEhEgsLCyABQQFq' +
  'IQEMAAsLIAhFDQEgCCgCACIJKAIAIQcgCSgCDCERIAcgDEcgESANR3IEQCAKQQBOBEAgCkECdEEAKAIcaiAONgIACyAKQQFq' +
  'IQpBACEOIAkoAgghECAQQX9GBEAgCkEDdEEAKAIQakEAIAdrt0QAAAAAAAAwQaIgEbegOQMABSAKQQN0QQAoAhBqIBC3IBG3' +
  'oDkDAAsgCkECdEEAKAIUaiAHNgIAIApBAnRBACgCGGogCzYCACAKQQJ0QQAoAjRqIBA2AgAgByEMIBEhDQsgCyIPQQFqIQsg' +
  'EiEBAkADQCABIABODQEgAUEDdEHAAGoiAigCACIDIAIoAgRJBEAgAyAJEAFFBEAgDyAAbCABakEAKAIkaiADKAIYQf8BcSIT' +
  'QQAoAgwgE0EAKAIMSBs6AAAgDkEBIAF0ciEOIAIgA0EcajYCAAsLIAFBAWohAQwACwsgD0ECdEEAKAIoaiAJKAIQNgIAIA9B' +
  'AnRBACgCLGogCSgCFDYCACAPQQAoAjBqIAkoAhhBCHZB/wFxLQCwBDoAAAwACwsgCkEATgRAIApBAnRBACgCHGogDjYCAAsg' +
  'CkEBaiETIBNBAnRBACgCGGogCzYCAEEAIRMCQANAIBMgCkoNASATQQAoAiBqIBNBAnRBACgCHGooAgBpOgAAIBNBAWohEwwA' +
  'CwtBACALNgI4IApBAWoLNAEBfwJAIAAoAgAgASgCAGsiAg0AIAAoAgwgASgCDGsiAg0AIAAoAhAgASgCEGshAgsgAgvfAgIJ' +
  'fwR8QQAoArQGIQNBACgCsAYhBAJAA0AgACAETg0BRAAAAAAAAPB/IQpBACEHIABBAnRBACgCuAZqIgEoAgQhBSABKAIAIQEC' +
  'QANAIAEgBU4NAUQAAAAAAAAAACEJIAFBAnRBACgCwAZqKAIAtyEMQQAhAgJAA0AgAiADTg0BIAEgA2wgAmpBACgCvAZqLQAA' +
  'IgYEQCAJIAJBA3RBACgCzAZqKwMAIAa3okEAKwPgBqIgBrdBACsD6AZBACsD8AZBACsD+AYgDKJBACsDgAejoKKgo6AhCQsg' +
  'AkEBaiECDAALCyAJmiABQQAoAsQGai0AALeiIQsgAUECdEEAKALIBmooAgAhCCALIApjIAsgCmEgCCAHSHFyBEAgCyEKIAgh' +
  'BwsgAUEBaiEBDAALCyAAQQN0QQAoAtAGaiAKOQMAIABBAnRBACgC1AZqIAc2AgAgAEEBaiEADAALC0EACw==';

let merger: Exports | null | undefined;

function instance(): Exports | undefined {
  if (merger === undefined) {
    merger = null;
    const api = wasmApi;
    if (api) {
      try {
        merger = new api.Instance(new api.Module(Buffer.from(MODULE, 'base64'))).exports as unknown as Exports;
      } catch {
        // no memory to compile in: the JavaScript merge
        merger = null;
      }
    }
  }
  return merger ?? undefined;
}

const align8 = (n: number): number => (n + 7) & ~7;

/**
 * The lists (each a term's entries, in chunk, unit and part order) merged as listedUnits merges
 * them, keeping the entries of chunks whose `masks` bit set is not 0 (by chunk id; beyond it: 0)
 * and of the kinds `searched` (a byte per lead kind), a part's count capped at `maxTf`. Undefined
 * where WebAssembly does not run or memory cannot be had; null when a list is out of order.
 */
export function mergeLists(lists: readonly Uint8Array[], masks: Int32Array, searched: Uint8Array, weights: Uint8Array, maxTf: number): MergedLists | null | undefined {
  const nterms = lists.length;
  if (nterms > MAX_MERGED_TERMS) return undefined;
  const x = instance();
  if (!x) return undefined;
  let entries = 0;
  for (const l of lists) entries += l.byteLength / ENTRY;
  // Every array is placed at a multiple of 8: a row per entry at most, and a unit per row.
  const at: number[] = [];
  let end = FREE;
  const place = (bytes: number): number => {
    at.push(end);
    end = align8(end + bytes);
    return at.length - 1;
  };
  const iMasks = place(4 * masks.length);
  const iLists = lists.map((l) => place(l.byteLength));
  const sizes = [8 * entries, 4 * entries, 4 * entries, entries, 4 * (entries + 1), entries * nterms, 4 * entries, 4 * entries, entries, 4 * entries];
  const [iUid, iChunk, iMask, iHeld, iStart, iTf, iN, iLength, iWeight, iFirst] = sizes.map(place) as [number, number, number, number, number, number, number, number, number, number];
  if (!memoryFor(x.memory, end)) return undefined;
  const buffer = x.memory.buffer;
  const mem = new Uint8Array(buffer);
  const ints = new Int32Array(buffer, 0, FREE / 4);
  new Int32Array(buffer, at[iMasks]!, masks.length).set(masks);
  lists.forEach((l, t) => {
    mem.set(l, at[iLists[t]!]!);
    ints[(LISTS >> 2) + 2 * t] = at[iLists[t]!]!;
    ints[(LISTS >> 2) + 2 * t + 1] = at[iLists[t]!]! + l.byteLength;
  });
  mem.fill(1, KINDS, KINDS + 0x100);
  mem.set(searched, KINDS);
  mem.fill(0, WEIGHTS, WEIGHTS + 0x100);
  mem.set(weights, WEIGHTS);
  mem.fill(0, at[iTf]!, at[iTf]! + entries * nterms);
  const params = [nterms, at[iMasks]!, masks.length, maxTf, at[iUid]!, at[iChunk]!, at[iStart]!, at[iMask]!, at[iHeld]!, at[iTf]!, at[iN]!, at[iLength]!, at[iWeight]!, at[iFirst]!];
  params.forEach((v, i) => (ints[i] = v));
  const count = x.merge();
  if (count < 0) return null;
  const rows = new Int32Array(x.memory.buffer, 0, FREE / 4)[P_ROWS / 4]!;
  const b = x.memory.buffer;
  return {
    count,
    uid: new Float64Array(b, at[iUid]!, count).slice(),
    chunk: new Int32Array(b, at[iChunk]!, count).slice(),
    mask: new Int32Array(b, at[iMask]!, count).slice(),
    held: new Uint8Array(b, at[iHeld]!, count).slice(),
    start: new Int32Array(b, at[iStart]!, count + 1).slice(),
    tf: new Uint8Array(b, at[iTf]!, rows * nterms).slice(),
    n: new Int32Array(b, at[iN]!, rows).slice(),
    length: new Int32Array(b, at[iLength]!, rows).slice(),
    weight: new Uint8Array(b, at[iWeight]!, rows).slice(),
    first: new Int32Array(b, at[iFirst]!, count).slice(),
  };
}

/** What score reads: LeadUnits's arrays (lead-postings.ts). */
export type ScoredUnits = { count: number; terms: number; start: Int32Array; tf: Uint8Array; length: Int32Array; weight: Uint8Array; n: Int32Array };

/**
 * Scores every unit of `units` as scoreUnits (search.ts) scores one, into `scores` and `parts`,
 * with the terms' `idf`, BM25's k1 and b and the mean part length `avg`. False where WebAssembly
 * does not run or memory cannot be had (nothing is written then).
 */
export function scoreUnits(units: ScoredUnits, idf: readonly number[], k1: number, b: number, avg: number, scores: Float64Array, parts: Int32Array): boolean {
  const x = instance();
  if (!x) return false;
  const { count, terms } = units;
  const rows = units.start[count]!;
  const at: number[] = [];
  let end = FREE;
  for (const bytes of [4 * (count + 1), rows * terms, 4 * rows, rows, 4 * rows, 8 * terms, 8 * count, 4 * count]) {
    at.push(end);
    end = align8(end + bytes);
  }
  if (!memoryFor(x.memory, end)) return false;
  const buffer = x.memory.buffer;
  const [start, tf, length, weight, n, idfAt, scoresAt, partsAt] = at as [number, number, number, number, number, number, number, number];
  new Int32Array(buffer, start, count + 1).set(units.start.subarray(0, count + 1));
  new Uint8Array(buffer, tf, rows * terms).set(units.tf.subarray(0, rows * terms));
  new Int32Array(buffer, length, rows).set(units.length.subarray(0, rows));
  new Uint8Array(buffer, weight, rows).set(units.weight.subarray(0, rows));
  new Int32Array(buffer, n, rows).set(units.n.subarray(0, rows));
  new Float64Array(buffer, idfAt, terms).set(idf);
  const ints = new Int32Array(buffer, 0, FREE / 4);
  [count, terms, start, tf, length, weight, n, idfAt, scoresAt, partsAt].forEach((v, i) => (ints[S_COUNT / 4 + i] = v));
  const floats = new Float64Array(buffer, 0, FREE / 8);
  [k1 + 1, k1, 1 - b, b, avg].forEach((v, i) => (floats[S_K1P1 / 8 + i] = v));
  x.score();
  scores.set(new Float64Array(buffer, scoresAt, count));
  parts.set(new Int32Array(buffer, partsAt, count));
  return true;
}
