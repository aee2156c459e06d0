// The merge of listedUnits (lead-bytes.ts) as a small WebAssembly function. A one-shot search of
// two common words ("parser config", 300 MB bench corpus) merges some 2,600 list entries once:
// V8 ran the JavaScript loop as interpreted and baseline code, and optimised it on other threads
// when it was nearly done (callgrind: ~28 M instructions on the main thread, ~50 M on the others).
// V8 compiles this at once (Liftoff), from bytes kept below rather than built at every run. The
// same entries are kept, the same rows made, in the same order; the JavaScript loop stays for a
// Node without WebAssembly and for a search of one source's sessions.
import { memoryFor, op, wasmModule, WASM_PAGE, type Code, type WasmMemory } from './wasm-encode.js';
import { wasmApi } from './ascii-keys.js';
import { ENTRY_INTS } from './lead-terms.js';

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
const FREE = WEIGHTS + 0x100;

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

type Exports = { memory: WasmMemory; merge(): number };

/** What merge gives: LeadUnits's arrays (lead-postings.ts), and per unit its chunk's first unit (-1: records). */
export type MergedLists = {
  count: number;
  uid: Float64Array;
  chunk: Int32Array;
  mask: Int32Array;
  held: Uint8Array;
  start: Int32Array;
  tf: Uint8Array;
  n: Int32Array;
  length: Int32Array;
  weight: Uint8Array;
  first: Int32Array;
};

/**
 * The module: merge, then cmp (which merge calls), with a memory of one page. Made by
 * the tests alone (test/store/lead-merge.test.ts holds MODULE to it): building its bytes from
 * the arrays above cost a one-shot search ~6.5 M instructions of interpreted code, more than the
 * merge itself.
 */
export function mergeModule(): Uint8Array {
  return wasmModule(
    [
      { name: 'merge', params: 0, locals: 20, body: mergeBody() },
      { name: 'cmp', params: 2, locals: 1, body: cmpBody() },
    ],
    FREE / WASM_PAGE + 1,
  );
}

/** mergeModule()'s bytes, in base64. */
export const MODULE =
  'AGFzbQEAAAABCwJgAAF/YAJ/fwF/AwMCAAEFAwEAAQcYAwZtZW1vcnkCAAVtZXJnZQAAA2NtcAABCqMHAusGARR/QQAoAgAh' +
  'AAJAA0AgASAATg0BIAFBA3RBwABqIgIoAgAiAyIFIQYgAigCBCEEAkADQCAFIARPDQECQCAFKAIAIgdBACgCCE8NACAHQQJ0' +
  'QQAoAgRqKAIARQ0AIAUoAhhBCHZB/wFxLQCwAkUNACAGIANHBEAgBkEcayAFEAFBAE4EQEF/DwsLIAYgBUcEQCAGIAUoAgA2' +
  'AgAgBiAFKAIENgIEIAYgBSgCCDYCCCAGIAUoAgw2AgwgBiAFKAIQNgIQIAYgBSgCFDYCFCAGIAUoAhg2AhgLIAZBHGohBgsg' +
  'BUEcaiEFDAALCyACIAY2AgQgAUEBaiEBDAALC0F/IQpBfyEMQX8hDQJAA0BBACEIQQAhAQJAA0AgASAATg0BIAFBA3RBwABq' +
  'IgIoAgAiAyACKAIESQRAIAhFBEAgAiEIIAEhEgUgAyAIKAIAEAFBAEgEQCACIQggASESCwsLIAFBAWohAQwACwsgCEUNASAI' +
  'KAIAIgkoAgAhByAJKAIMIREgByAMRyARIA1HcgRAIApBAE4EQCAKQQJ0QQAoAhxqIA42AgALIApBAWohCkEAIQ4gCSgCCCEQ' +
  'IBBBf0YEQCAKQQN0QQAoAhBqQQAgB2u3RAAAAAAAADBBoiARt6A5AwAFIApBA3RBACgCEGogELcgEbegOQMACyAKQQJ0QQAo' +
  'AhRqIAc2AgAgCkECdEEAKAIYaiALNgIAIApBAnRBACgCNGogEDYCACAHIQwgESENCyALIg9BAWohCyASIQECQANAIAEgAE4N' +
  'ASABQQN0QcAAaiICKAIAIgMgAigCBEkEQCADIAkQAUUEQCAPIABsIAFqQQAoAiRqIAMoAhhB/wFxIhNBACgCDCATQQAoAgxI' +
  'GzoAACAOQQEgAXRyIQ4gAiADQRxqNgIACwsgAUEBaiEBDAALCyAPQQJ0QQAoAihqIAkoAhA2AgAgD0ECdEEAKAIsaiAJKAIU' +
  'NgIAIA9BACgCMGogCSgCGEEIdkH/AXEtALAEOgAADAALCyAKQQBOBEAgCkECdEEAKAIcaiAONgIACyAKQQFqIRMgE0ECdEEA' +
  'KAIYaiALNgIAQQAhEwJAA0AgEyAKSg0BIBNBACgCIGogE0ECdEEAKAIcaigCAGk6AAAgE0EBaiETDAALC0EAIAs2AjggCkEB' +
  'ags0AQF/AkAgACgCACABKAIAayICDQAgACgCDCABKAIMayICDQAgACgCECABKAIQayECCyACCw==';

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
