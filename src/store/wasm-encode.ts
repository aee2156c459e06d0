// The few pieces of the WebAssembly binary format that a small hand-written module needs: i32
// values only, one memory, exported functions. Instructions are written as byte arrays
// (`op.add`, `op.get(2)`) so that a function body reads like the text format's folded-free form.

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};

const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
};

/** One instruction's bytes, or a sequence of them (nested as written). */
export type Code = number | readonly Code[];

/** i32 instructions; a memory access takes its constant offset (an address added to the one on the stack). */
export const op = {
  get: (local: number): Code => [0x20, ...uleb(local)],
  set: (local: number): Code => [0x21, ...uleb(local)],
  tee: (local: number): Code => [0x22, ...uleb(local)],
  /** A constant; an unsigned 32-bit value is taken as the signed one of the same bits. */
  const: (value: number): Code => [0x41, ...sleb(value | 0)],
  load: (offset = 0): Code => [0x28, 2, ...uleb(offset)],
  load8: (offset = 0): Code => [0x2d, 0, ...uleb(offset)],
  store: (offset = 0): Code => [0x36, 2, ...uleb(offset)],
  store8: (offset = 0): Code => [0x3a, 0, ...uleb(offset)],
  /** f64 instructions: a load and a store (at an address on the stack), a constant, a conversion from a signed i32, arithmetic and comparisons. */
  storeF64: (offset = 0): Code => [0x39, 3, ...uleb(offset)],
  constF64: (value: number): Code => {
    const bytes = new DataView(new ArrayBuffer(8));
    bytes.setFloat64(0, value, true);
    return [0x44, ...new Uint8Array(bytes.buffer)];
  },
  loadF64: (offset = 0): Code => [0x2b, 3, ...uleb(offset)],
  f64OfI32: 0xb7,
  addF64: 0xa0,
  mulF64: 0xa2,
  divF64: 0xa3,
  negF64: 0x9a,
  ltF64: 0x63,
  leF64: 0x65,
  eqF64: 0x61,
  minF64: 0xa4,
  call: (fn: number): Code => [0x10, ...uleb(fn)],
  return: 0x0f,
  popcnt: 0x69,
  /** Of two values, the first when the condition (pushed last) holds, else the second. */
  select: 0x1b,
  add: 0x6a,
  sub: 0x6b,
  mul: 0x6c,
  and: 0x71,
  or: 0x72,
  xor: 0x73,
  shl: 0x74,
  shrU: 0x76,
  eqz: 0x45,
  eq: 0x46,
  ne: 0x47,
  ltS: 0x48,
  ltU: 0x49,
  gtS: 0x4a,
  gtU: 0x4b,
  geS: 0x4e,
  geU: 0x4f,
  /** block, loop and if take no value and leave none. */
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  if: [0x04, 0x40],
  else: 0x05,
  end: 0x0b,
  br: (depth: number): Code => [0x0c, ...uleb(depth)],
  brIf: (depth: number): Code => [0x0d, ...uleb(depth)],
} as const;

/** A function of i32 parameters returning one i32, with `locals` more i32 locals after its parameters, then `f64Locals` f64 ones. */
export type WasmFunction = { name: string; params: number; locals: number; f64Locals?: number; body: readonly Code[] };

const I32 = 0x7f;
const F64 = 0x7c;
const flat = (code: readonly Code[]): number[] => (code as unknown[]).flat(Infinity as 1) as number[];
const section = (id: number, bytes: number[]): number[] => [id, ...uleb(bytes.length), ...bytes];
const vector = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const name = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'latin1')];

/** An instance's exported memory, as much of it as we use. */
export type WasmMemory = { buffer: ArrayBuffer; grow(pages: number): number };

/** The size of a WebAssembly memory page. */
export const WASM_PAGE = 0x10000;

/** Grows `memory` to hold at least `bytes`; false when it cannot grow so far (the caller falls back to JavaScript). */
export function memoryFor(memory: WasmMemory, bytes: number): boolean {
  const short = bytes - memory.buffer.byteLength;
  if (short <= 0) return true;
  try {
    memory.grow(Math.ceil(short / WASM_PAGE));
    return true;
  } catch {
    return false;
  }
}

/** A module of the functions and one memory of `pages` × 64 KiB, exported as `memory`. */
export function wasmModule(functions: WasmFunction[], pages: number): Uint8Array {
  const types = functions.map((f) => [0x60, ...vector(new Array(f.params).fill([I32])), ...vector([[I32]])]);
  const code = functions.map((f) => {
    const groups = [...(f.locals > 0 ? [[...uleb(f.locals), I32]] : []), ...(f.f64Locals ? [[...uleb(f.f64Locals), F64]] : [])];
    const body = [...vector(groups), ...flat(f.body), op.end];
    return [...uleb(body.length), ...body];
  });
  const exports = [[...name('memory'), 2, 0], ...functions.map((f, i) => [...name(f.name), 0, ...uleb(i)])];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
    ...section(1, vector(types)),
    ...section(3, vector(functions.map((_, i) => uleb(i)))),
    ...section(5, vector([[0, ...uleb(pages)]])),
    ...section(7, vector(exports)),
    ...section(10, vector(code)),
  ]);
}
