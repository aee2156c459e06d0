// The loops of a one-shot search of common words as a small WebAssembly module: the merge of
// listedUnits (lead-bytes.ts), and ChunkMasks, the keyed terms per unit, leadDf, the scoring and
// the choice of units of LeadRanker (search.ts). A search of two common
// words ("parser config", 300 MB bench corpus) merges some 2,600 list entries and scores some
// 1,500 units, once each: V8 ran those loops as interpreted and baseline code and optimised them
// on other threads when they were nearly done (callgrind: the merge ~28 M instructions on the main
// thread and ~50 M on the others, the scoring ~6 M and ~27 M). V8 compiles this at once
// (Liftoff), from bytes kept below rather than built at every run. The results are the
// JavaScript loops' to the bit; those stay for a Node without WebAssembly, and the merge's for a
// search of one source's sessions. The loops around the scoring (a chunk's masks, leadDf, the
// choice of units: a few thousand iterations each at 1 GB) were what V8 still optimised on
// other threads, ~65 M instructions of a "parser config" search there.
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
// The parameters of listMax, masks, keyed, leadDf and select (i32 values; Q_BEST an f64).
const Q = SP + 0x60;
const [Q_COUNT, Q_CHUNK, Q_DENSE, Q_NDENSE, Q_DISTINCT, Q_ND, Q_HELD, Q_KHELD, Q_MIDX, Q_START, Q_WEIGHT, Q_TF, Q_TERMS, Q_DF, Q_LEVEL, Q_KNEED, Q_LEADW, Q_W0, Q_UNKEYED, Q_SCORES, Q_BOUNDS, Q_MEMBERS, Q_ANY] = [...Array(23).keys()].map((i) => Q + 4 * i) as number[] as [number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number];
const Q_BEST = Q + 96;
const [Q_MET, Q_NLISTS, Q_NMET, Q_LO, Q_HI] = [104, 108, 112, 116, 120].map((o) => Q + o) as [number, number, number, number, number];
const FREE = Q + 0x80;

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

/** merge's first pass: each list keeps the entries of a visible chunk and a searched kind, its order checked. */
const keepVisible = (): Code[] => [
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
];

/** A new unit when the part at H (chunk CH, ordinal X) is not the last one's: the last unit's mask stored, the new one's id, chunk, first row and first unit. */
const unitAt = (): Code[] => [
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
];

/** The part at H's n, length and weight, in row R. */
const rowOf = (): Code[] => [
    slot(P_N, R), op.get(H), op.load(E_N), op.store(),
    slot(P_LENGTH, R), op.get(H), op.load(E_LENGTH), op.store(),
    op.get(R), param(P_WEIGHT), op.add, op.get(H), op.load(E_KIND), op.const(8), op.shrU, op.const(0xff), op.and, op.load8(WEIGHTS), op.store8(),
];

/** What every merge ends with: the last unit's mask, the rows' end, each unit's count of terms; the count of units returned. */
const mergeEnd = (): Code[] => [
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

/**
 * merge() → the units (-1: a list out of order). First each list keeps the entries of a visible
 * chunk (its mask not 0) and a searched kind, checking their order; then the lists are merged, a
 * row per part, a unit per run of one chunk and ordinal.
 */
const mergeBody = (): readonly Code[] => [
  ...keepVisible(),
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
    ...unitAt(),
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
    ...rowOf(),
    op.br(0),
  op.end, op.end,
  ...mergeEnd(),
];

/**
 * merge1() → merge() of a single list: a row per kept entry, with no search for the list that
 * comes first and no comparisons. V8 counts, per function, the size of every loop it goes round
 * and optimises the function once that passes a budget (1.8 M): merge's loop over the lists, gone
 * round once per entry, had the 1,336 entries of a common CJK pair at 1 GB recompiled by
 * TurboFan, ~5 M instructions of a search of it; this loop is a third of that size.
 */
const merge1Body = (): readonly Code[] => [
  ...keepVisible(),
  op.const(-1), op.set(U), op.const(-1), op.set(LASTC), op.const(-1), op.set(LASTO),
  op.const(LISTS), op.set(P),
  op.get(P), op.load(0), op.set(CUR), op.get(P), op.load(4), op.set(END),
  op.block, op.loop,
    op.get(CUR), op.get(END), op.geU, op.brIf(1),
    op.get(CUR), op.tee(H), op.load(E_CHUNK), op.set(CH),
    op.get(H), op.load(E_ORDINAL), op.set(X),
    ...unitAt(),
    op.get(ROWS), op.tee(R), op.const(1), op.add, op.set(ROWS),
    op.get(R), param(P_TF), op.add,
    op.get(H), op.load(E_KIND), op.const(0xff), op.and, op.tee(K), param(P_MAXTF), op.get(K), param(P_MAXTF), op.ltS, op.select,
    op.store8(),
    op.get(MASK), op.const(1), op.or, op.set(MASK),
    ...rowOf(),
    op.get(CUR), op.const(ENTRY), op.add, op.set(CUR),
    op.br(0),
  op.end, op.end,
  ...mergeEnd(),
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

// Locals of `listMax`.
const [LE, LEND, LM, LV] = [...Array(4).keys()];

/** listMax() → the largest of the int32s from byte Q_LO to Q_HI (-1: none; -2: one is negative). */
const listMaxBody = (): readonly Code[] => [
  param(Q_LO), op.set(LE), param(Q_HI), op.set(LEND), op.const(-1), op.set(LM),
  op.block, op.loop,
    op.get(LE), op.get(LEND), op.geU, op.brIf(1),
    op.get(LE), op.load(), op.tee(LV), op.const(0), op.ltS,
    op.if, op.const(-2), op.return, op.end,
    op.get(LV), op.get(LM), op.gtS,
    op.if, op.get(LV), op.set(LM), op.end,
    op.get(LE), op.const(4), op.add, op.set(LE),
    op.br(0),
  op.end, op.end,
  op.get(LM),
];

// Locals of `masks`.
const [MT, MNL, ME, MEND, MID, MA, MMK, MNMET, MI, MJ, MND, MLM] = [...Array(12).keys()];

/** The index J of `value` (a local) among the ND int32s of the array at parameter `array`, or ND. */
const findIn = (array: number, j: number, nd: number, value: number): Code => [
  op.const(0), op.set(j),
  op.block, op.loop,
    op.get(j), op.get(nd), op.geS, op.brIf(1),
    slot(array, j), op.load(), op.get(value), op.eq, op.brIf(1),
    op.get(j), op.const(1), op.add, op.set(j),
    op.br(0),
  op.end, op.end,
];

/**
 * masks() → how many chunks are met (ChunkMasks of search.ts, dense): the chunk ids of list t
 * (its bytes at LISTS + 8t, as merge's) set bit t of their int32 in the zeroed array at Q_DENSE,
 * each chunk listed at Q_MET when first met; then the distinct masks of the chunks met, in the
 * order first met, at Q_DISTINCT (their number at Q_ND).
 */
const masksBody = (): readonly Code[] => [
  param(Q_NLISTS), op.set(MNL),
  op.block, op.loop,
    op.get(MT), op.get(MNL), op.geS, op.brIf(1),
    op.get(MT), op.const(3), op.shl, op.const(LISTS), op.add, op.tee(MA), op.load(0), op.set(ME),
    op.get(MA), op.load(4), op.set(MEND),
    op.block, op.loop,
      op.get(ME), op.get(MEND), op.geU, op.brIf(1),
      op.get(ME), op.load(), op.set(MID),
      slot(Q_DENSE, MID), op.tee(MA), op.load(), op.tee(MMK), op.eqz,
      op.if, slot(Q_MET, MNMET), op.get(MID), op.store(), op.get(MNMET), op.const(1), op.add, op.set(MNMET), op.end,
      op.get(MA), op.get(MMK), op.const(1), op.get(MT), op.shl, op.or, op.store(),
      op.get(ME), op.const(4), op.add, op.set(ME),
      op.br(0),
    op.end, op.end,
    op.get(MT), op.const(1), op.add, op.set(MT),
    op.br(0),
  op.end, op.end,
  op.block, op.loop,
    op.get(MI), op.get(MNMET), op.geS, op.brIf(1),
    slot(Q_MET, MI), op.load(), op.set(MID),
    slot(Q_DENSE, MID), op.load(), op.tee(MMK), op.get(MLM), op.ne,
    op.if,
      op.get(MMK), op.set(MLM),
      findIn(Q_DISTINCT, MJ, MND, MMK),
      op.get(MJ), op.get(MND), op.eq,
      op.if, slot(Q_DISTINCT, MND), op.get(MMK), op.store(), op.get(MND), op.const(1), op.add, op.set(MND), op.end,
    op.end,
    op.get(MI), op.const(1), op.add, op.set(MI),
    op.br(0),
  op.end, op.end,
  op.const(0), op.get(MNMET), op.store(Q_NMET),
  op.const(0), op.get(MND), op.store(Q_ND),
  op.get(MNMET),
];

// Locals of `keyed`.
const [KU, KCNT, KC, KM, KJ, KND, KLM, KLJ] = [...Array(8).keys()];

/**
 * keyed() → 0: per unit, the keyed terms its chunk holds (LeadRanker's keyedHeld: the popcount of
 * its mask at Q_DENSE, 0 beyond it) at Q_KHELD, and that mask's place among the distinct ones at
 * Q_MIDX (Q_ND for a mask not among them: 0).
 */
const keyedBody = (): readonly Code[] => [
  param(Q_COUNT), op.set(KCNT), param(Q_ND), op.set(KND), op.const(-1), op.set(KLM),
  op.block, op.loop,
    op.get(KU), op.get(KCNT), op.geS, op.brIf(1),
    slot(Q_CHUNK, KU), op.load(), op.set(KC),
    op.const(0), op.set(KM),
    op.get(KC), param(Q_NDENSE), op.ltU,
    op.if, slot(Q_DENSE, KC), op.load(), op.set(KM), op.end,
    slot(Q_KHELD, KU), op.get(KM), op.popcnt, op.store(),
    op.get(KM), op.get(KLM), op.ne,
    op.if, op.get(KM), op.set(KLM), findIn(Q_DISTINCT, KJ, KND, KM), op.get(KJ), op.set(KLJ), op.end,
    slot(Q_MIDX, KU), op.get(KLJ), op.store(),
    op.get(KU), op.const(1), op.add, op.set(KU),
    op.br(0),
  op.end, op.end,
  op.const(0),
];

// Locals of `leadDf`.
const [DU, DCNT, DLV, DKN, DR, DRE, DT, DNT, DLW] = [...Array(9).keys()];

/**
 * leadDf() → 0: LeadRanker.leadDf into the zeroed int32s at Q_DF — per term, the parts of weight
 * Q_LEADW or more holding it, among the units holding Q_LEVEL terms whose chunk holds Q_KNEED
 * keyed ones.
 */
const leadDfBody = (): readonly Code[] => [
  param(Q_COUNT), op.set(DCNT), param(Q_LEVEL), op.set(DLV), param(Q_KNEED), op.set(DKN), param(Q_TERMS), op.set(DNT), param(Q_LEADW), op.set(DLW),
  op.block, op.loop,
    op.get(DU), op.get(DCNT), op.geS, op.brIf(1),
    op.block,
      op.get(DU), param(Q_HELD), op.add, op.load8(), op.get(DLV), op.ltS, op.brIf(0),
      op.get(DKN), op.const(0), op.gtS, slot(Q_KHELD, DU), op.load(), op.get(DKN), op.ltS, op.and, op.brIf(0),
      slot(Q_START, DU), op.tee(DR), op.load(4), op.set(DRE), op.get(DR), op.load(), op.set(DR),
      op.block, op.loop,
        op.get(DR), op.get(DRE), op.geS, op.brIf(1),
        op.get(DR), param(Q_WEIGHT), op.add, op.load8(), op.get(DLW), op.geS,
        op.if,
          op.const(0), op.set(DT),
          op.block, op.loop,
            op.get(DT), op.get(DNT), op.geS, op.brIf(1),
            op.get(DR), op.get(DNT), op.mul, op.get(DT), op.add, param(Q_TF), op.add, op.load8(),
            op.if, slot(Q_DF, DT), slot(Q_DF, DT), op.load(), op.const(1), op.add, op.store(), op.end,
            op.get(DT), op.const(1), op.add, op.set(DT),
            op.br(0),
          op.end, op.end,
        op.end,
        op.get(DR), op.const(1), op.add, op.set(DR),
        op.br(0),
      op.end, op.end,
    op.end,
    op.get(DU), op.const(1), op.add, op.set(DU),
    op.br(0),
  op.end, op.end,
  op.const(0),
];

// Locals of `select`: i32, then f64.
const [XU, XCNT, XLV, XKN, XKH, XH, XTOP, XNM, XANY] = [...Array(9).keys()];
const [XSC, XNB, XBEST] = [9, 10, 11];

/**
 * select() → how many members: scoreUnits's choice (search.ts) over the scored units — a unit
 * skipped, a member (listed at Q_MEMBERS), or one that keeps its chunk open (Q_ANY set to 1,
 * Q_BEST lowered to its score and its bound, negated: Q_BOUNDS by its mask's place, 0 when Q_W0).
 */
const selectBody = (): readonly Code[] => [
  param(Q_COUNT), op.set(XCNT), param(Q_LEVEL), op.set(XLV), param(Q_KNEED), op.set(XKN), f64Param(Q_BEST), op.set(XBEST),
  op.block, op.loop,
    op.get(XU), op.get(XCNT), op.geS, op.brIf(1),
    op.block,
      slot(Q_KHELD, XU), op.load(), op.set(XKH),
      op.get(XKN), op.const(0), op.gtS, op.get(XKH), op.get(XKN), op.ltS, op.and, op.brIf(0),
      op.get(XU), param(Q_HELD), op.add, op.load8(), op.set(XH),
      op.get(XH), op.get(XKH), param(Q_UNKEYED), op.add, param(Q_W0), op.select, op.set(XTOP),
      op.get(XH), op.get(XLV), op.gtS, op.get(XTOP), op.get(XLV), op.ltS, op.or, op.brIf(0),
      slot(Q_SCORES, XU, 3), op.loadF64(), op.set(XSC),
      op.constF64(0), slot(Q_MIDX, XU), op.load(), op.const(3), op.shl, param(Q_BOUNDS), op.add, op.loadF64(), param(Q_W0), op.select, op.negF64, op.set(XNB),
      op.get(XH), op.get(XTOP), op.eq, op.get(XSC), op.get(XNB), op.leF64, op.and,
      op.if,
        slot(Q_MEMBERS, XNM), op.get(XU), op.store(), op.get(XNM), op.const(1), op.add, op.set(XNM),
      op.else,
        op.const(1), op.set(XANY),
        op.get(XBEST), op.get(XSC), op.minF64, op.get(XNB), op.minF64, op.set(XBEST),
      op.end,
    op.end,
    op.get(XU), op.const(1), op.add, op.set(XU),
    op.br(0),
  op.end, op.end,
  op.const(0), op.get(XANY), op.store(Q_ANY),
  op.const(0), op.get(XBEST), op.storeF64(Q_BEST),
  op.get(XNM),
];

type Exports = { memory: WasmMemory; merge(): number; merge1(): number; score(): number; listMax(): number; masks(): number; keyed(): number; leadDf(): number; select(): number };

/** What merge gives: LeadUnits's arrays (lead-postings.ts), and per unit its chunk's first unit (-1: records). */
export type MergedLists = Pick<LeadUnits, 'count' | 'uid' | 'chunk' | 'mask' | 'held' | 'start' | 'tf' | 'n' | 'length' | 'weight'> & { first: Int32Array };

/**
 * The module: merge, then cmp (which merge calls), then score, the loops of a level, and merge1 last, with a memory of one page. Made by
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
      { name: 'listMax', params: 0, locals: 4, body: listMaxBody() },
      { name: 'masks', params: 0, locals: 12, body: masksBody() },
      { name: 'keyed', params: 0, locals: 8, body: keyedBody() },
      { name: 'leadDf', params: 0, locals: 9, body: leadDfBody() },
      { name: 'select', params: 0, locals: 9, f64Locals: 3, body: selectBody() },
      { name: 'merge1', params: 0, locals: 20, body: merge1Body() },
    ],
    FREE / WASM_PAGE + 1,
  );
}

/** rankModule()'s bytes, in base64. */
export const MODULE =
  'AGFzbQEAAAABJwlgAAF/YAJ/fwF/YAABf2AAAX9gAAF/YAABf2AAAX9gAAF/YAABfwMKCQABAgMEBQYHCAUDAQABB1UKBm1lbW9y' +
  'eQIABW1lcmdlAAADY21wAAEFc2NvcmUAAgdsaXN0TWF4AAMFbWFza3MABAVrZXllZAAFBmxlYWREZgAGBnNlbGVjdAAHBm1lcmdl' +
  'MQAICsAYCesGARR/QQAoAgAhAAJAA0AgASAATg0BIAFBA3RBwABqIgIoAgAiAyIFIQYgAigCBCEEAkADQCAFIARPDQECQCAFKAIA' +
  'IgdBACgCCE8NACAHQQJ0QQAoAgRqKAIARQ0AIAUoAhhBCHZB/wFxLQCwAkUNACAGIANHBEAgBkEcayAFEAFBAE4EQEF/DwsLIAYg' +
  'BUcEQCAGIAUoAgA2AgAgBiAFKAIENgIEIAYgBSgCCDYCCCAGIAUoAgw2AgwgBiAFKAIQNgIQIAYgBSgCFDYCFCAGIAUoAhg2AhgL' +
  'IAZBHGohBgsgBUEcaiEFDAALCyACIAY2AgQgAUEBaiEBDAALC0F/IQpBfyEMQX8hDQJAA0BBACEIQQAhAQJAA0AgASAATg0BIAFB' +
  'A3RBwABqIgIoAgAiAyACKAIESQRAIAhFBEAgAiEIIAEhEgUgAyAIKAIAEAFBAEgEQCACIQggASESCwsLIAFBAWohAQwACwsgCEUN' +
  'ASAIKAIAIgkoAgAhByAJKAIMIREgByAMRyARIA1HcgRAIApBAE4EQCAKQQJ0QQAoAhxqIA42AgALIApBAWohCkEAIQ4gCSgCCCEQ' +
  'IBBBf0YEQCAKQQN0QQAoAhBqQQAgB2u3RAAAAAAAADBBoiARt6A5AwAFIApBA3RBACgCEGogELcgEbegOQMACyAKQQJ0QQAoAhRq' +
  'IAc2AgAgCkECdEEAKAIYaiALNgIAIApBAnRBACgCNGogEDYCACAHIQwgESENCyALIg9BAWohCyASIQECQANAIAEgAE4NASABQQN0' +
  'QcAAaiICKAIAIgMgAigCBEkEQCADIAkQAUUEQCAPIABsIAFqQQAoAiRqIAMoAhhB/wFxIhNBACgCDCATQQAoAgxIGzoAACAOQQEg' +
  'AXRyIQ4gAiADQRxqNgIACwsgAUEBaiEBDAALCyAPQQJ0QQAoAihqIAkoAhA2AgAgD0ECdEEAKAIsaiAJKAIUNgIAIA9BACgCMGog' +
  'CSgCGEEIdkH/AXEtALAEOgAADAALCyAKQQBOBEAgCkECdEEAKAIcaiAONgIACyAKQQFqIRMgE0ECdEEAKAIYaiALNgIAQQAhEwJA' +
  'A0AgEyAKSg0BIBNBACgCIGogE0ECdEEAKAIcaigCAGk6AAAgE0EBaiETDAALC0EAIAs2AjggCkEBags0AQF/AkAgACgCACABKAIA' +
  'ayICDQAgACgCDCABKAIMayICDQAgACgCECABKAIQayECCyACC98CAgl/BHxBACgCtAYhA0EAKAKwBiEEAkADQCAAIARODQFEAAAA' +
  'AAAA8H8hCkEAIQcgAEECdEEAKAK4BmoiASgCBCEFIAEoAgAhAQJAA0AgASAFTg0BRAAAAAAAAAAAIQkgAUECdEEAKALABmooAgC3' +
  'IQxBACECAkADQCACIANODQEgASADbCACakEAKAK8BmotAAAiBgRAIAkgAkEDdEEAKALMBmorAwAgBreiQQArA+AGoiAGt0EAKwPo' +
  'BkEAKwPwBkEAKwP4BiAMokEAKwOAB6OgoqCjoCEJCyACQQFqIQIMAAsLIAmaIAFBACgCxAZqLQAAt6IhCyABQQJ0QQAoAsgGaigC' +
  'ACEIIAsgCmMgCyAKYSAIIAdIcXIEQCALIQogCCEHCyABQQFqIQEMAAsLIABBA3RBACgC0AZqIAo5AwAgAEECdEEAKALUBmogBzYC' +
  'ACAAQQFqIQAMAAsLQQALTAEEf0EAKAKECCEAQQAoAogIIQFBfyECAkADQCAAIAFPDQEgACgCACIDQQBIBEBBfg8LIAMgAkoEQCAD' +
  'IQILIABBBGohAAwACwsgAgu0AgEMf0EAKAL8ByEBAkADQCAAIAFODQEgAEEDdEHAAGoiBSgCACECIAUoAgQhAwJAA0AgAiADTw0B' +
  'IAIoAgAhBCAEQQJ0QQAoApgHaiIFKAIAIgZFBEAgB0ECdEEAKAL4B2ogBDYCACAHQQFqIQcLIAUgBkEBIAB0cjYCACACQQRqIQIM' +
  'AAsLIABBAWohAAwACwsCQANAIAggB04NASAIQQJ0QQAoAvgHaigCACEEIARBAnRBACgCmAdqKAIAIgYgC0cEQCAGIQtBACEJAkAD' +
  'QCAJIApODQEgCUECdEEAKAKgB2ooAgAgBkYNASAJQQFqIQkMAAsLIAkgCkYEQCAKQQJ0QQAoAqAHaiAGNgIAIApBAWohCgsLIAhB' +
  'AWohCAwACwtBACAHNgKACEEAIAo2AqQHIAcLwwEBCH9BACgCkAchAUEAKAKkByEFQX8hBgJAA0AgACABTg0BIABBAnRBACgClAdq' +
  'KAIAIQJBACEDIAJBACgCnAdJBEAgAkECdEEAKAKYB2ooAgAhAwsgAEECdEEAKAKsB2ogA2k2AgAgAyAGRwRAIAMhBkEAIQQCQANA' +
  'IAQgBU4NASAEQQJ0QQAoAqAHaigCACADRg0BIARBAWohBAwACwsgBCEHCyAAQQJ0QQAoArAHaiAHNgIAIABBAWohAAwACwtBAAuE' +
  'AgEJf0EAKAKQByEBQQAoAsgHIQJBACgCzAchA0EAKALAByEHQQAoAtAHIQgCQANAIAAgAU4NAQJAIABBACgCqAdqLQAAIAJIDQAg' +
  'A0EASiAAQQJ0QQAoAqwHaigCACADSHENACAAQQJ0QQAoArQHaiIEKAIEIQUgBCgCACEEAkADQCAEIAVODQEgBEEAKAK4B2otAAAg' +
  'CE4EQEEAIQYCQANAIAYgB04NASAEIAdsIAZqQQAoArwHai0AAARAIAZBAnRBACgCxAdqIAZBAnRBACgCxAdqKAIAQQFqNgIACyAG' +
  'QQFqIQYMAAsLCyAEQQFqIQQMAAsLCyAAQQFqIQAMAAsLQQALkwICCX8DfEEAKAKQByEBQQAoAsgHIQJBACgCzAchA0EAKwPwByEL' +
  'AkADQCAAIAFODQECQCAAQQJ0QQAoAqwHaigCACEEIANBAEogBCADSHENACAAQQAoAqgHai0AACEFIAUgBEEAKALYB2pBACgC1Acb' +
  'IQYgBSACSiAGIAJIcg0AIABBA3RBACgC3AdqKwMAIQlEAAAAAAAAAAAgAEECdEEAKAKwB2ooAgBBA3RBACgC4AdqKwMAQQAoAtQH' +
  'G5ohCiAFIAZGIAkgCmVxBEAgB0ECdEEAKALkB2ogADYCACAHQQFqIQcFQQEhCCALIAmkIAqkIQsLCyAAQQFqIQAMAAsLQQAgCDYC' +
  '6AdBACALOQPwByAHC9cFARR/QQAoAgAhAAJAA0AgASAATg0BIAFBA3RBwABqIgIoAgAiAyIFIQYgAigCBCEEAkADQCAFIARPDQEC' +
  'QCAFKAIAIgdBACgCCE8NACAHQQJ0QQAoAgRqKAIARQ0AIAUoAhhBCHZB/wFxLQCwAkUNACAGIANHBEAgBkEcayAFEAFBAE4EQEF/' +
  'DwsLIAYgBUcEQCAGIAUoAgA2AgAgBiAFKAIENgIEIAYgBSgCCDYCCCAGIAUoAgw2AgwgBiAFKAIQNgIQIAYgBSgCFDYCFCAGIAUo' +
  'Ahg2AhgLIAZBHGohBgsgBUEcaiEFDAALCyACIAY2AgQgAUEBaiEBDAALC0F/IQpBfyEMQX8hDUHAACECIAIoAgAhAyACKAIEIQQC' +
  'QANAIAMgBE8NASADIgkoAgAhByAJKAIMIREgByAMRyARIA1HcgRAIApBAE4EQCAKQQJ0QQAoAhxqIA42AgALIApBAWohCkEAIQ4g' +
  'CSgCCCEQIBBBf0YEQCAKQQN0QQAoAhBqQQAgB2u3RAAAAAAAADBBoiARt6A5AwAFIApBA3RBACgCEGogELcgEbegOQMACyAKQQJ0' +
  'QQAoAhRqIAc2AgAgCkECdEEAKAIYaiALNgIAIApBAnRBACgCNGogEDYCACAHIQwgESENCyALIg9BAWohCyAPQQAoAiRqIAkoAhhB' +
  '/wFxIhNBACgCDCATQQAoAgxIGzoAACAOQQFyIQ4gD0ECdEEAKAIoaiAJKAIQNgIAIA9BAnRBACgCLGogCSgCFDYCACAPQQAoAjBq' +
  'IAkoAhhBCHZB/wFxLQCwBDoAACADQRxqIQMMAAsLIApBAE4EQCAKQQJ0QQAoAhxqIA42AgALIApBAWohEyATQQJ0QQAoAhhqIAs2' +
  'AgBBACETAkADQCATIApKDQEgE0EAKAIgaiATQQJ0QQAoAhxqKAIAaToAACATQQFqIRMMAAsLQQAgCzYCOCAKQQFqCw==';

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
  const count = nterms === 1 ? x.merge1() : x.merge();
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

/** ChunkMasks's arrays (search.ts) when they are dense: the bits by chunk id, the chunks met in order, the distinct masks. */
export type DenseMasks = { dense: Int32Array; met: number[]; distinct: number[] };

/**
 * ChunkMasks's arrays from the lists of chunk ids (each term's, undefined for an unkeyed term),
 * bit t for list t of the first `maxTerms`: undefined where WebAssembly does not run, memory
 * cannot be had, an id is negative, or the ids are too sparse for a dense array (the `dense` test
 * of ChunkMasks: its largest id below 8 times their number plus 1024).
 */
export function denseMasks(lists: readonly (readonly number[] | undefined)[], maxTerms: number): DenseMasks | undefined {
  const x = instance();
  if (!x) return undefined;
  let count = 0;
  for (const ids of lists) count += ids ? ids.length : 0;
  const listsEnd = FREE + 4 * count;
  if (!memoryFor(x.memory, listsEnd)) return undefined;
  const starts: number[] = [];
  let at = FREE;
  for (const ids of lists) {
    starts.push(at);
    if (ids) {
      new Int32Array(x.memory.buffer, at, ids.length).set(ids);
      at += 4 * ids.length;
    }
  }
  let ints = new Int32Array(x.memory.buffer, 0, FREE / 4);
  ints[Q_LO / 4] = FREE;
  ints[Q_HI / 4] = listsEnd;
  const max = x.listMax();
  if (max < -1) return undefined;
  const size = max + 1;
  if (size > 8 * count + 1024) return undefined;
  const dense = align8(listsEnd);
  const met = align8(dense + 4 * size);
  const distinct = align8(met + 4 * count);
  if (!memoryFor(x.memory, distinct + 4 * count)) return undefined;
  const buffer = x.memory.buffer;
  new Int32Array(buffer, dense, size).fill(0);
  ints = new Int32Array(buffer, 0, FREE / 4);
  const nlists = Math.min(lists.length, maxTerms);
  for (let t = 0; t < nlists; t++) {
    const ids = lists[t];
    ints[(LISTS >> 2) + 2 * t] = starts[t]!;
    ints[(LISTS >> 2) + 2 * t + 1] = starts[t]! + 4 * (ids ? ids.length : 0);
  }
  ints[Q_NLISTS / 4] = nlists;
  ints[Q_DENSE / 4] = dense;
  ints[Q_MET / 4] = met;
  ints[Q_DISTINCT / 4] = distinct;
  const nmet = x.masks();
  const nd = new Int32Array(x.memory.buffer, 0, FREE / 4)[Q_ND / 4]!;
  const b = x.memory.buffer;
  return { dense: new Int32Array(b, dense, size).slice(), met: Array.from(new Int32Array(b, met, nmet)), distinct: Array.from(new Int32Array(b, distinct, nd)) };
}

/** What a level of LeadRanker (search.ts) reads of its units: LeadUnits's arrays (lead-postings.ts). */
export type LevelUnits = ScoredUnits & Pick<LeadUnits, 'chunk' | 'held'>;

/** The choice of LeadRanker.scoreUnits: the members, and whether a unit keeps a chunk open and the best score such a unit or bound gives. */
export type Selected = { members: Int32Array; anyOpen: boolean; bestOpen: number };

/**
 * One level of LeadRanker (search.ts) in WebAssembly: its units, their chunks' masks (dense) and
 * the distinct masks placed in the module's memory once, each unit's keyed terms found there;
 * then the lead parts' frequencies (leadDf), and the scoring and choice of the units (select).
 * Valid until another function of the module is called.
 */
export class LevelInWasm {
  private constructor(
    private readonly x: Exports,
    private readonly units: LevelUnits,
    /** Where each array is (bytes). */
    private readonly at: Record<'start' | 'tf' | 'length' | 'weight' | 'n' | 'idf' | 'bounds' | 'scores' | 'parts' | 'members' | 'df', number>,
  ) {}

  /** Undefined where WebAssembly does not run or memory cannot be had. */
  static place(units: LevelUnits, dense: Int32Array, distinct: readonly number[]): LevelInWasm | undefined {
    const x = instance();
    if (!x) return undefined;
    const { count, terms } = units;
    const rows = units.start[count]!;
    const nd = distinct.length;
    const sizes = {
      chunk: 4 * count, dense: 4 * dense.length, distinct: 4 * nd, held: count, kheld: 4 * count, midx: 4 * count, start: 4 * (count + 1),
      tf: rows * terms, length: 4 * rows, weight: rows, n: 4 * rows, idf: 8 * terms, bounds: 8 * (nd + 1), scores: 8 * count, parts: 4 * count, members: 4 * count, df: 4 * terms,
    };
    const at = {} as Record<keyof typeof sizes, number>;
    let end = FREE;
    for (const key of Object.keys(sizes) as (keyof typeof sizes)[]) {
      at[key] = end;
      end = align8(end + sizes[key]);
    }
    if (!memoryFor(x.memory, end)) return undefined;
    const buffer = x.memory.buffer;
    new Int32Array(buffer, at.chunk, count).set(units.chunk.subarray(0, count));
    new Int32Array(buffer, at.dense, dense.length).set(dense);
    new Int32Array(buffer, at.distinct, nd).set(distinct);
    new Uint8Array(buffer, at.held, count).set(units.held.subarray(0, count));
    new Int32Array(buffer, at.start, count + 1).set(units.start.subarray(0, count + 1));
    new Uint8Array(buffer, at.tf, rows * terms).set(units.tf.subarray(0, rows * terms));
    new Int32Array(buffer, at.length, rows).set(units.length.subarray(0, rows));
    new Uint8Array(buffer, at.weight, rows).set(units.weight.subarray(0, rows));
    new Int32Array(buffer, at.n, rows).set(units.n.subarray(0, rows));
    const ints = new Int32Array(buffer, 0, FREE / 4);
    const set = (param: number, v: number): void => {
      ints[param / 4] = v;
    };
    set(Q_COUNT, count);
    set(Q_TERMS, terms);
    set(Q_CHUNK, at.chunk);
    set(Q_DENSE, at.dense);
    set(Q_NDENSE, dense.length);
    set(Q_DISTINCT, at.distinct);
    set(Q_ND, nd);
    set(Q_HELD, at.held);
    set(Q_KHELD, at.kheld);
    set(Q_MIDX, at.midx);
    set(Q_START, at.start);
    set(Q_WEIGHT, at.weight);
    set(Q_TF, at.tf);
    set(Q_DF, at.df);
    set(Q_SCORES, at.scores);
    set(Q_BOUNDS, at.bounds);
    set(Q_MEMBERS, at.members);
    x.keyed();
    return new LevelInWasm(x, units, at);
  }

  private ints(): Int32Array {
    return new Int32Array(this.x.memory.buffer, 0, FREE / 4);
  }

  /** LeadRanker.leadDf: per term, the lead parts (weight `leadWeight` or more) holding it among the units holding `level` terms whose chunk holds `keyedNeed` keyed ones. */
  leadDf(level: number, keyedNeed: number, leadWeight: number): number[] {
    const { terms } = this.units;
    const buffer = this.x.memory.buffer;
    new Int32Array(buffer, this.at.df, terms).fill(0);
    const ints = this.ints();
    ints[Q_LEVEL / 4] = level;
    ints[Q_KNEED / 4] = keyedNeed;
    ints[Q_LEADW / 4] = leadWeight;
    this.x.leadDf();
    return Array.from(new Int32Array(this.x.memory.buffer, this.at.df, terms));
  }

  /**
   * LeadRanker.scoreUnits: every unit scored (score, into `scores` and `parts`), then those of the
   * level chosen, with `bounds` the bound of each distinct mask and last of mask 0 (unread when
   * `weightZero`), `bestOpen` the best score of the chunks kept open so far.
   */
  select(idf: readonly number[], k1: number, b: number, avg: number, level: number, keyedNeed: number, weightZero: boolean, unkeyed: number, bounds: readonly number[], bestOpen: number, scores: Float64Array, parts: Int32Array): Selected {
    const { x, at, units } = this;
    const { count, terms } = units;
    const buffer = x.memory.buffer;
    new Float64Array(buffer, at.idf, terms).set(idf);
    new Float64Array(buffer, at.bounds, bounds.length).set(bounds);
    const ints = this.ints();
    [count, terms, at.start, at.tf, at.length, at.weight, at.n, at.idf, at.scores, at.parts].forEach((v, i) => (ints[S_COUNT / 4 + i] = v));
    const floats = new Float64Array(buffer, 0, FREE / 8);
    [k1 + 1, k1, 1 - b, b, avg].forEach((v, i) => (floats[S_K1P1 / 8 + i] = v));
    x.score();
    ints[Q_LEVEL / 4] = level;
    ints[Q_KNEED / 4] = keyedNeed;
    ints[Q_W0 / 4] = weightZero ? 1 : 0;
    ints[Q_UNKEYED / 4] = unkeyed;
    floats[Q_BEST / 8] = bestOpen;
    const nm = x.select();
    scores.set(new Float64Array(buffer, at.scores, count));
    parts.set(new Int32Array(buffer, at.parts, count));
    return { members: new Int32Array(buffer, at.members, nm).slice(), anyOpen: ints[Q_ANY / 4] === 1, bestOpen: floats[Q_BEST / 8]! };
  }
}
