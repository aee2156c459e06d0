// index.db: a rebuildable cache of every session and unit sivtr can read. Unit text is stored
// in chunks (consecutive units of one session, about 64 K characters, compressed unless the text
// is small beside its source: see TextStorage) with one FTS5
// row per chunk listing the chunk's gram keys (see grams.ts); a search narrows to the chunks
// holding every key of a term and confirms the match in the text; a chunk's lead parts (weight 2
// and more) are also kept raw, for ranking without inflating. The same schema also lives in
// memory for `--no-index` and read-only data dirs, so both paths run the very same code over the
// very same rows.
import { promisify } from 'node:util';
import { existsSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { warn } from '../errors.js';
import type { StampList } from '../session/file-mark.js';
import { ensurePrivateDir } from '../files.js';
import { PART_WEIGHT, unitText, unitTextBytes, type CutText, type SessionDoc, type UnitDoc } from './docs.js';
import type { Statement } from 'better-sqlite3';
import { KeySet, keyToken } from './grams.js';
import { decodeRecords, RECORD_KINDS, recordsFirstUnit, type RecordList } from './record-chunks.js';
import type { SessionChange } from '../memory/types.js';
import { LeadPostings } from './lead-postings.js';
import { chooseLeadTerms, ENTRY_INTS, LEAD_TERMS, LEAD_TERMS_BATCHES, LEAD_TERMS_META, LeadTermCounter, LITTLE_ENDIAN, type LeadSource } from './lead-terms.js';
import type { BrotliOptions } from 'node:zlib';
import { zlib } from './lazy-zlib.js';

let compressAsync: ((data: Buffer, opts: BrotliOptions) => Promise<Buffer>) | undefined;
const brotliCompressAsync = (data: Buffer, opts: BrotliOptions): Promise<Buffer> => (compressAsync ??= promisify(zlib().brotliCompress) as typeof brotliCompressAsync)(data, opts);
import { isCorruptionError, isUnwritableError, openDb, openMemoryDb, type Db } from '../session/sqlite.js';

/** Bump when what is stored per unit changes: the index is then rebuilt from the sources. */
export const PARSER_VERSION = '17';

/** Meta keys of the file stamps kept per source (saveStamps): `stamps:<source>`. */
const STAMPS = 'stamps:';
/** A written file row drops the stamps kept for its source (the part of its key before the first colon). */
const stampsOfRow = (row: 'NEW' | 'OLD'): string => `'${STAMPS}' || substr(${row}.key, 1, instr(${row}.key, ':') - 1)`;
const STAMP_TRIGGERS = (
  [
    ['INSERT', [stampsOfRow('NEW')]],
    ['UPDATE', [stampsOfRow('NEW'), stampsOfRow('OLD')]],
    ['DELETE', [stampsOfRow('OLD')]],
  ] as const
)
  .map(([on, keys]) => `CREATE TRIGGER IF NOT EXISTS files_${on.toLowerCase()}_drops_stamps AFTER ${on} ON files BEGIN DELETE FROM meta WHERE key IN (${keys.join(', ')}); END;`)
  .join('\n');
export const stampsKey = (source: string): string => STAMPS + source;
const STAMPS_END = 'stamps;';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  key TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  mtime REAL NOT NULL,
  head TEXT NOT NULL,
  tail TEXT NOT NULL,
  parsed_bytes INTEGER NOT NULL DEFAULT 0,
  positions INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS sessions (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL,
  sid TEXT NOT NULL,
  title TEXT,
  cwd TEXT,
  updated_at TEXT,
  location TEXT NOT NULL,
  UNIQUE (source, sid)
);
CREATE TABLE IF NOT EXISTS units (
  id INTEGER PRIMARY KEY,
  session INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  at INTEGER,
  at_text TEXT,
  cwd TEXT,
  status TEXT NOT NULL,
  title TEXT NOT NULL,
  complete INTEGER NOT NULL,
  hash TEXT NOT NULL,
  chunk INTEGER NOT NULL,
  UNIQUE (session, idx)
);
-- A chunk's units have the consecutive ids first_unit, first_unit + 1, …; parts: JSON
-- [[unit ordinal, n, kind, label, length, group], …] in text order (group: see PartDoc); data: the parts' text joined by NUL,
-- prefixed by one byte saying how it is stored (0 as is, 1 deflated, 2 brotli). records: for a chunk of
-- terminal records, which have no unit rows, the records' metadata and part lengths (see
-- record-chunks.ts; its parts column is then empty), stored like data.
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY,
  session INTEGER NOT NULL,
  lo INTEGER NOT NULL,
  first_unit INTEGER NOT NULL,
  nparts INTEGER NOT NULL,
  nchars INTEGER NOT NULL,
  parts TEXT NOT NULL,
  data BLOB NOT NULL,
  records BLOB
);
CREATE INDEX IF NOT EXISTS chunks_session ON chunks (session, lo);
-- Covers the collection statistics ranking reads on every search: summing them from the table
-- itself reads one page per chunk.
CREATE INDEX IF NOT EXISTS chunks_totals ON chunks (nparts, nchars);
-- One row per chunk (rowid = chunk id) holding its distinct gram keys: no content, no positions.
-- The parts of weight 2 and more (what people said and typed, tool calls) of each chunk that
-- has any, kept raw beside the chunk's text: ranking reads them alone for a term's document
-- frequency and the best hits of a common word (see search.ts). dir: per part five little-endian
-- int32 (unit ordinal, n, kind as its place in LEAD_KINDS, length, group), which reads without
-- parsing; text: their text joined by NUL; nlead: how many. folded: the text's bytes with A–Z
-- lower-cased (SQLite's lower()), what a one-shot search of a term holding a letter counts in
-- (lead-bytes.ts): lower-casing every lead it reads was a tenth of such a search.
CREATE TABLE IF NOT EXISTS leads (
  chunk INTEGER PRIMARY KEY,
  session INTEGER NOT NULL,
  first_unit INTEGER NOT NULL,
  nlead INTEGER NOT NULL,
  dir BLOB NOT NULL,
  text TEXT NOT NULL,
  folded BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS leads_count ON leads (nlead);
-- For each of the index's most common lead terms (meta lead_terms), the lead parts holding it
-- and how often, as lead-terms.ts lists them: one row per term and write (batch: the first chunk
-- it summarised), entries of chunks deleted since skipped by search (their gram rows are gone)
-- and dropped when the rows of a term are merged.
CREATE TABLE IF NOT EXISTS lead_terms (term TEXT NOT NULL, batch INTEGER NOT NULL, entries BLOB NOT NULL, PRIMARY KEY (term, batch)) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS grams USING fts5 (keys, content='', contentless_delete=1, detail=none, tokenize='ascii');
`;

/** Writes a lead row from (chunk, session, first unit, nlead, dir, text): its folded bytes are made by SQLite. */
export const INSERT_LEAD = 'INSERT INTO leads (chunk, session, first_unit, nlead, dir, text, folded) SELECT ?, ?, ?, ?, ?, t, CAST(lower(t) AS BLOB) FROM (SELECT ? AS t)';

/** Characters of text per chunk: large enough to share keys across units, small enough to confirm quickly. */
export const CHUNK_CHARS = 64 * 1024;

export type ChunkRow = { id: number; session: number; first_unit: number; parts: string; data: Buffer; records: Buffer | null };

export type FileRow = { key: string; size: number; mtime: number; head: string; tail: string; parsed_bytes: number; positions: number };

/** One part of a chunk, as search reads it back. */
export type StoredPart = { uid: number; n: number; kind: string; label: string | null; text: string; group: number };

/**
 * One chunk, decoded: `partsOf(uid)` gives one unit's parts in order, cut from the text only
 * when asked (a search shows a few units of a chunk that holds hundreds); a record chunk also
 * has its list of records.
 */
export type StoredChunk = { id: number; session: number; partsOf(uid: number): StoredPart[]; records?: RecordList };

export type PartDir = [ordinal: number, n: number, kind: string, label: string | null, length: number, group: number];

/** A chunk's lead parts (see the leads table): how many, their directory, their text. */
export type PackedLead = { n: number; dir: Buffer; text: string };

/**
 * Units packed into chunks, ready to be written: everything but the row ids is known. A chunk of
 * terminal records has no docs (its records get no unit rows) but `records`, their list, and
 * `count`, how many there are. `lead` is required (null: no part of the chunk is a lead part):
 * search leaves unread a chunk whose lead says its units cannot reach the page, so every way of
 * packing a chunk must state it (leadOf).
 */
export type PackedChunk = { lo: number; docs: UnitDoc[]; parts: string; nparts: number; nchars: number; keys: string; data: Buffer; lead: PackedLead | null; records?: Buffer; count: number };

/** Parts of this weight and more are a chunk's lead: few characters, and they rank above the rest. */
export const LEAD_WEIGHT = 2;

export const isLeadKind = (kind: string): boolean => (PART_WEIGHT[kind] ?? 1) >= LEAD_WEIGHT;

/** The lead kinds; a lead directory stores a kind as its place here (a new kind is a new PARSER_VERSION). */
export const LEAD_KINDS = Object.keys(PART_WEIGHT).filter(isLeadKind);

const LEAD_FIELDS = 5;

/** The lead of a chunk whose parts are `dir`, with their texts in the same order. */
export function leadOf(dir: PartDir[], texts: string[]): PackedLead | null {
  const picked: number[] = [];
  for (let i = 0; i < dir.length; i++) if (isLeadKind(dir[i]![2])) picked.push(i);
  if (picked.length === 0) return null;
  const out = Buffer.alloc(picked.length * LEAD_FIELDS * 4);
  picked.forEach((i, k) => {
    const d = dir[i]!;
    const at = k * LEAD_FIELDS * 4;
    out.writeInt32LE(d[0], at);
    out.writeInt32LE(d[1], at + 4);
    out.writeInt32LE(LEAD_KINDS.indexOf(d[2]), at + 8);
    out.writeInt32LE(d[4], at + 12);
    out.writeInt32LE(d[5], at + 16);
  });
  return { n: picked.length, dir: out, text: picked.map((i) => texts[i]!).join('\u0000') };
}

/** A lead directory read back, in the shape of a chunk's. */
export function decodeLeadDir(dir: Uint8Array): PartDir[] {
  const view = new DataView(dir.buffer, dir.byteOffset, dir.byteLength);
  const out = new Array<PartDir>(dir.byteLength / (LEAD_FIELDS * 4));
  for (let k = 0, at = 0; k < out.length; k++, at += LEAD_FIELDS * 4) {
    out[k] = [view.getInt32(at, true), view.getInt32(at + 4, true), LEAD_KINDS[view.getInt32(at + 8, true)]!, null, view.getInt32(at + 12, true), view.getInt32(at + 16, true)];
  }
  return out;
}

export const RAW = Buffer.of(0);
const BROTLI = Buffer.of(2);

/** A stored blob's bytes (its first byte says how it is stored: 0 as is, 1 deflated, 2 brotli). */
export function unpack(data: Buffer): Buffer {
  const body = data.subarray(1);
  return data[0] === 2 ? zlib().brotliDecompressSync(body) : data[0] === 1 ? zlib().inflateRawSync(body) : body;
}

const decode = (data: Buffer): string => unpack(data).toString('utf8');

/**
 * Brotli at quality 0, its fastest: 2.4 times as fast as quality 1 for 2 points of size (13.7 MB
 * of the bench corpus's compressed chunks: 122 against 289 ms, 29.8% against 27.6% of the text;
 * deflate at level 1: 237 ms, 27.6%) and as fast to read back (134 against 119-135 ms). At
 * quality 1 compressing was still a tenth of a cold build's CPU, and the index has room (see
 * RAW_TEXT_SHARE). Every quality reads back alike. The size hint spares it sizing its window
 * for a larger input.
 */
const brotliOptions = (body: Buffer): BrotliOptions => ({ params: { [zlib().constants.BROTLI_PARAM_QUALITY]: 0, [zlib().constants.BROTLI_PARAM_SIZE_HINT]: body.length } });

export const compressSync = (body: Buffer): Buffer => Buffer.concat([BROTLI, zlib().brotliCompressSync(body, brotliOptions(body))]);

/**
 * How a session's chunk texts are stored. The memory index never compresses. The file index
 * stores a session's text as is when it is at most RAW_TEXT_SHARE of the bytes it was read from
 * (`sourceBytes`; most transcripts, whose JSON around the text is larger than the text), and
 * compressed otherwise, or when those bytes are not known: compressing was a tenth of a cold
 * build's CPU, and text kept as is costs nothing to read back either.
 */
export type TextStorage = { persistent: boolean; sourceBytes?: number };

/**
 * Raw text costs the index its own size, and compressed text costs every search that reads it
 * node:zlib (loading it was ~11 M instructions of a fresh process, more than the rest of a warm
 * search's own work) and the decompressing. Transcripts and terminal logs are mostly JSON around
 * their text: at most three quarters of the source as text keeps all of them (a quarter to 0.7 for
 * the bench's transcripts, about 0.55 for its terminal logs) as is, within the index's budget of
 * 30% of the corpus (22% of the bench corpus; see docs/formats.md); text denser than that (a
 * plain-text history) is compressed.
 */
const RAW_TEXT_SHARE = 0.75;

/**
 * The bytes a read session's units came from: its file, or what was appended to it since its
 * mark; undefined when the source keeps no mark (a database row).
 */
export function bytesRead(change: Extract<SessionChange, { kind: 'read' }>): number | undefined {
  const mark = change.mark;
  if (!mark) return undefined;
  const from = change.how === 'append' ? (mark.since?.parsed_bytes ?? 0) : 0;
  return mark.now.size - from;
}

/** Whether a session's chunk texts (`raw`) are stored compressed; a terminal log's record lists follow its texts. */
export function compressTexts(raw: Buffer[], { persistent, sourceBytes }: TextStorage): boolean {
  if (!persistent) return false;
  if (sourceBytes === undefined || !(sourceBytes > 0)) return true;
  let bytes = 0;
  for (const b of raw) bytes += b.length;
  return bytes > sourceBytes * RAW_TEXT_SHARE;
}

/** A chunk of unit rows' text and part directory, before it is cut into parts. */
export type ChunkText = { text: string; dir: PartDir[] };

/** The text and directory of a chunk of unit rows (a record chunk: see decodeRecordChunk). */
export function decodeChunkText(row: Pick<ChunkRow, 'parts' | 'data'>): ChunkText {
  return { text: decode(row.data), dir: JSON.parse(row.parts) as PartDir[] };
}

/** The text and record list of a chunk of terminal records. */
export function decodeRecordChunk(row: Pick<ChunkRow, 'data'> & { records: Buffer }): { text: string; records: RecordList } {
  return { text: decode(row.data), records: decodeRecords(row.records) };
}

export function decodeChunk(row: ChunkRow): StoredChunk {
  if (row.records) {
    const { text, records } = decodeRecordChunk({ data: row.data, records: row.records });
    return recordChunk(row.id, row.session, row.first_unit, text, records);
  }
  return unitChunk(row.id, row.session, row.first_unit, decodeChunkText(row));
}

/**
 * A decoded chunk of unit rows. Its directory lists parts by unit ordinal, so one unit's parts
 * are found by a binary search; their offsets come from one pass over the lengths, made the
 * first time a part is cut. Plain indexed loops: a warm search runs this in the interpreter.
 */
export function unitChunk(id: number, session: number, firstUnit: number, { text, dir }: ChunkText): StoredChunk {
  let starts: Int32Array | undefined;
  const partsOf = (uid: number): StoredPart[] => {
    const ordinal = uid - firstUnit;
    let lo = 0;
    let hi = dir.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (dir[mid]![0] < ordinal) lo = mid + 1;
      else hi = mid;
    }
    const out: StoredPart[] = [];
    if (lo === dir.length || dir[lo]![0] !== ordinal) return out;
    if (!starts) {
      starts = new Int32Array(dir.length);
      for (let i = 1; i < dir.length; i++) starts[i] = starts[i - 1]! + dir[i - 1]![4] + 1;
    }
    for (let i = lo; i < dir.length && dir[i]![0] === ordinal; i++) {
      const d = dir[i]!;
      out.push({ uid, n: d[1], kind: d[2], label: d[3], text: text.slice(starts[i], starts[i]! + d[4]), group: d[5] });
    }
    // Stored in part order; sorted all the same, as a unit's parts are always shown.
    if (out.length > 1) out.sort((a, b) => a.n - b.n);
    return out;
  };
  return { id, session, partsOf };
}

/** A decoded chunk of terminal records: record k's parts sit at its offset in the text (RecordList). */
export function recordChunk(id: number, session: number, firstUnit: number, text: string, records: RecordList): StoredChunk {
  const partsOf = (uid: number): StoredPart[] => {
    const k = uid - firstUnit;
    const out: StoredPart[] = [];
    if (k < 0 || k >= records.count) return out;
    let at = records.start(k);
    for (let i = 0; i < 3; i++) {
      const length = records.partLength(k, i);
      if (length < 0) continue;
      out.push({ uid, n: i + 1, kind: RECORD_KINDS[i]!, label: null, text: text.slice(at, at + length), group: i + 1 });
      at += length + 1;
    }
    return out;
  };
  return { id, session, partsOf, records };
}

let keySet: KeySet | undefined;
let tokenBytes: Buffer | undefined;
const BASE36 = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz', 'latin1');

/**
 * The FTS5 row of a chunk: the distinct gram keys of its parts' texts as tokens (keyToken),
 * written as bytes. Keys are taken part by part: no query holds a NUL, so a gram across two
 * parts is never asked for (a match lies within one part). `body`: the texts in UTF-8 joined
 * by NUL, text i of `byteLengths[i]` bytes; their ASCII is read from it (KeySet.addUtf8Parts), and
 * the grams around the mark of a text the index cut from its pieces (`cuts[i]`, see CutText).
 */
function keyTokens(texts: readonly string[], body: Buffer, byteLengths: readonly number[], cuts: readonly (CutText | undefined)[]): string {
  const keys = packingKeys();
  keys.addUtf8Parts(body, texts, byteLengths, cuts);
  return keysAsTokens(keys);
}

/** The key set chunks are packed with, emptied (one per thread: 256 KB of bits, cleared key by key). */
export function packingKeys(): KeySet {
  const keys = (keySet ??= new KeySet());
  keys.next();
  return keys;
}

/** A chunk's FTS5 row: its distinct keys as tokens (see keyTokens). */
export function keysAsTokens(keys: KeySet): string {
  const list = keys.keys;
  // A key is below 2^21: at most five base-36 digits, and a space.
  const room = 6 * list.length;
  if (tokenBytes === undefined || tokenBytes.length < room) tokenBytes = Buffer.allocUnsafeSlow(Math.max(room, 64 * 1024));
  const out = tokenBytes;
  let at = 0;
  for (let i = 0; i < list.length; i++) {
    if (i > 0) out[at++] = 32;
    let key = list[i]!;
    const first = at;
    do {
      out[at++] = BASE36[key % 36]!;
      key = (key / 36) | 0;
    } while (key > 0);
    for (let a = first, b = at - 1; a < b; a++, b--) {
      const t = out[a]!;
      out[a] = out[b]!;
      out[b] = t;
    }
  }
  return out.toString('latin1', 0, at);
}

const SEPARATOR = Buffer.of(0);

/**
 * Groups consecutive units into chunks and lists each chunk's gram keys; the text is left raw:
 * the units' texts (see unitText) joined by NUL, as the parts' texts joined by NUL would be.
 */
function packRaw(docs: UnitDoc[]): { chunks: PackedChunk[]; raw: Buffer[] } {
  const chunks: PackedChunk[] = [];
  const raw: Buffer[] = [];
  let group: UnitDoc[] = [];
  let dir: PartDir[] = [];
  let texts: string[] = [];
  let cuts: (CutText | undefined)[] = [];
  let textBytes: number[] = [];
  let bytes: Buffer[] = [];
  let length = 0;
  let chars = 0;
  const flush = (): void => {
    const body = Buffer.concat(bytes, length);
    chunks.push({ lo: group[0]!.index, docs: group, parts: JSON.stringify(dir), nparts: dir.length, nchars: Math.max(0, chars - 1), keys: keyTokens(texts, body, textBytes, cuts), data: RAW, lead: leadOf(dir, texts), count: group.length });
    raw.push(body);
    group = [];
    dir = [];
    texts = [];
    cuts = [];
    textBytes = [];
    bytes = [];
    length = 0;
    chars = 0;
  };
  for (const doc of docs) {
    const ordinal = group.length;
    group.push(doc);
    if (doc.parts.length > 0) {
      if (bytes.length > 0) {
        bytes.push(SEPARATOR);
        length++;
      }
      const text = unitText(doc);
      bytes.push(text);
      length += text.length;
      for (const n of unitTextBytes(doc)) textBytes.push(n);
      doc.text = undefined; // the chunk holds it now
      doc.textBytes = undefined;
    }
    for (const p of doc.parts) {
      dir.push([ordinal, p.n, p.kind, p.label, p.text.length, p.group]);
      texts.push(p.text);
      cuts.push(p.cut);
      chars += p.text.length + 1;
    }
    if (chars >= CHUNK_CHARS) flush();
  }
  if (group.length > 0) flush();
  return { chunks, raw };
}

/** Small texts are not worth compressing; the memory index never compresses. */
export const worthCompressing = (raw: Buffer, compress: boolean): boolean => compress && raw.length >= 512;

export function packUnits(docs: UnitDoc[], storage: TextStorage): PackedChunk[] {
  return encode(packRaw(docs), storage);
}

export function encode({ chunks, raw }: { chunks: PackedChunk[]; raw: Buffer[] }, storage: TextStorage): PackedChunk[] {
  const compress = compressTexts(raw, storage);
  chunks.forEach((c, i) => {
    const body = raw[i]!;
    c.data = worthCompressing(body, compress) ? compressSync(body) : Buffer.concat([RAW, body]);
  });
  return chunks;
}

/** packUnits with the compressing done on libuv's thread pool, off the main thread. */
export async function packUnitsAsync(docs: UnitDoc[], storage: TextStorage): Promise<PackedChunk[]> {
  return encodeAsync(packRaw(docs), storage);
}

export async function encodeAsync({ chunks, raw }: { chunks: PackedChunk[]; raw: Buffer[] }, storage: TextStorage): Promise<PackedChunk[]> {
  const compress = compressTexts(raw, storage);
  await Promise.all(
    chunks.map(async (c, i) => {
      const body = raw[i]!;
      // An output buffer as large as the input: one trip to the thread pool instead of one per 16 KB.
      c.data = worthCompressing(body, compress) ? Buffer.concat([BROTLI, await brotliCompressAsync(body, { ...brotliOptions(body), chunkSize: body.length + 64 })]) : Buffer.concat([RAW, body]);
    }),
  );
  return chunks;
}

const UNIT_INSERT = 'INSERT INTO units (id, session, idx, at, at_text, cwd, status, title, complete, hash, chunk) VALUES ';
const UNIT_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
/** Unit rows per INSERT: a terminal log holds thousands of small records, and each statement run costs more than its row. */
const UNITS_PER_INSERT = 64;

/** Unit rows written UNITS_PER_INSERT at a time. */
class UnitRows {
  private values: (string | number | null)[] = [];
  private rows = 0;

  constructor(private readonly index: IndexDb) {}

  add(...row: (string | number | null)[]): void {
    for (const v of row) this.values.push(v);
    if (++this.rows === UNITS_PER_INSERT) this.flush();
  }

  private flush(): void {
    if (this.rows === 0) return;
    this.index.stmt(UNIT_INSERT + new Array(this.rows).fill(UNIT_VALUES).join(', ')).run(this.values);
    this.values = [];
    this.rows = 0;
  }

  finish(): void {
    this.flush();
  }
}

function unitsFrom(docs: UnitDoc[], start: number): UnitDoc[] {
  const from = start === -Infinity ? docs : docs.filter((d) => d.index >= start);
  for (let i = 1; i < from.length; i++) if (from[i - 1]!.index > from[i]!.index) return [...from].sort((a, b) => a.index - b.index);
  return from;
}

/** What replacing a session's units will do, decided from what the index holds now. */
export type ReplacePlan = { start: number; written: number; kept: number };

/** A chunk's lead as a long-lived process keeps it, lower-cased once. */
export type CachedLead = { chunk: number; session: number; firstUnit: number; dir: PartDir[]; text: string; lower: string };

/**
 * `leadOf`: a chunk's lead, by its place in `leads`. `postings`: the leads' words
 * (lead-postings.ts), built with the cache when it is read whole, kept up to date with it after.
 */
export type LeadCache = { leads: CachedLead[]; leadOf: Map<number, number>; sourceOf: Map<number, string>; chars: number; postings?: LeadPostings };

/** The meta key holding the id the next chunk written gets: ids only grow, so one is never reused. */
const NEXT_CHUNK = 'next_chunk';

/** Lead characters kept for listing the common terms at the end of a first build at most (see `unlisted`). */
const MAX_UNLISTED_CHARS = 64 * 1024 * 1024;

/** Lead characters a long-lived process keeps decoded at most (about twice as many bytes). */
const MAX_CACHED_LEAD_CHARS = 32 * 1024 * 1024;

export class IndexDb {
  private stmts = new Map<string, Statement>();
  /** Set by a long-lived process (the MCP server): the leads stay decoded between searches. */
  keepLeads = false;
  /** `next`: NEXT_CHUNK when the leads were read (undefined: not kept yet, so ids may have been reused). */
  private leadCache: { stamp: string; next: string | undefined; cache: LeadCache | undefined } | undefined;
  private kept: { stamp: string; values: Map<string, unknown> } | undefined;
  /** Write transactions run through this connection; with data_version (others'), says when the index changed. */
  private writes = 0;
  /** saveStamps made sure the triggers that drop stale stamps exist. */
  private stampTriggers = false;
  /** Gram rows held back until the end of the current write (see `writing`). */
  private deferredGrams: [number, string][] | undefined;
  /** The listed lead terms' counter (null: no term is listed yet), made at the first lead written. */
  private termCounter: LeadTermCounter | null | undefined;
  /** Leads written by the current write. */
  private leadsWritten: LeadSource[] = [];
  /**
   * Leads written by this connection while no term is listed, kept for choosing and listing the
   * terms at the end of the sync (reading them back was a third of that); undefined once too many.
   */
  private unlisted: LeadSource[] | undefined = [];
  private unlistedChars = 0;

  constructor(
    readonly db: Db,
    /** False for the in-memory index (`--no-index`, read-only data dir). */
    readonly persistent: boolean,
  ) {
    // Creating the schema costs a few ms of parsing: only a new or foreign file needs it.
    let ready = false;
    try {
      ready = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'grams'").get() !== undefined;
    } catch {
      ready = false;
    }
    if (!ready) db.exec(SCHEMA);
  }

  stmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  meta(key: string): string | undefined {
    return (this.stmt('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  /** Every meta row whose key starts with `prefix`, by key. */
  metaWithPrefix(prefix: string): Map<string, string> {
    const rows = this.stmt('SELECT key, value FROM meta WHERE key >= ? AND key < ?').all(prefix, prefix + '\uffff') as { key: string; value: string }[];
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  setMeta(key: string, value: string): void {
    this.stmt('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  file(key: string): FileRow | undefined {
    return this.stmt('SELECT * FROM files WHERE key = ?').get(key) as FileRow | undefined;
  }

  /** Every file row whose key starts with `prefix`, by key (one query instead of one per file). */
  filesWithPrefix(prefix: string): Map<string, FileRow> {
    const rows = this.stmt('SELECT * FROM files WHERE key >= ? AND key < ?').all(prefix, prefix + '\uffff') as FileRow[];
    return new Map(rows.map((r) => [r.key, r]));
  }

  /**
   * Every source's fingerprint (`watch:<source>`) and the stamps of its files (`stamps:<source>`,
   * see saveStamps), by key: what a search with nothing new reads, in one query.
   */
  freshnessMeta(): Map<string, string> {
    const rows = this.stmt(`SELECT key, value FROM meta WHERE key >= 'watch:' AND key < 'watch;' OR key >= '${STAMPS}' AND key < '${STAMPS_END}'`).raw().all() as [string, string][];
    return new Map(rows);
  }

  /** The size and mtime of every file row of `source`, as the freshness check compares them. */
  stampsOf(source: string): StampList {
    const prefix = `${source}:`;
    const rows = this.stmt('SELECT key, size, mtime FROM files WHERE key >= ? AND key < ?').raw().all(prefix, prefix + '\uffff') as [string, number, number][];
    const list: StampList = { paths: [], sizes: [], mtimes: [] };
    for (const [key, size, mtime] of rows) {
      list.paths.push(key.slice(prefix.length));
      list.sizes.push(size);
      list.mtimes.push(mtime);
    }
    return list;
  }

  /**
   * Keeps `source`'s file stamps as one meta value beside its fingerprint: the freshness check
   * then reads one value per source instead of a row per file (300 file rows cost ~2.5 M
   * instructions to read, several times the value's parse). Triggers on `files` delete the value
   * whenever a row of its source is written, by this version of sivtr or any other that shares
   * the file (an older one does not know the value), so a value that is there always equals the
   * rows; without one the check reads the rows. Made in one transaction with the rows it reads.
   */
  saveStamps(source: string): void {
    this.transaction(() => {
      if (!this.stampTriggers) {
        this.db.exec(STAMP_TRIGGERS);
        this.stampTriggers = true;
      }
      this.setMeta(stampsKey(source), JSON.stringify(this.stampsOf(source)));
    });
  }

  /** The stamps kept for a source (saveStamps), or undefined when there are none or they do not parse. */
  static parseStamps(text: string | undefined): StampList | undefined {
    if (text === undefined) return undefined;
    try {
      const list = JSON.parse(text) as StampList;
      return Array.isArray(list.paths) && Array.isArray(list.sizes) && Array.isArray(list.mtimes) && list.paths.length === list.sizes.length && list.paths.length === list.mtimes.length ? list : undefined;
    } catch {
      return undefined;
    }
  }

  setFile(row: FileRow): void {
    this.stmt(
      `INSERT INTO files (key, size, mtime, head, tail, parsed_bytes, positions) VALUES (@key, @size, @mtime, @head, @tail, @parsed_bytes, @positions)
       ON CONFLICT (key) DO UPDATE SET size = excluded.size, mtime = excluded.mtime, head = excluded.head, tail = excluded.tail,
       parsed_bytes = excluded.parsed_bytes, positions = excluded.positions`,
    ).run(row);
  }

  deleteFile(key: string): void {
    this.stmt('DELETE FROM files WHERE key = ?').run(key);
  }

  /** The session ids (sid) of a source, from the (source, sid) index alone: what display ids are made from. */
  sidsOf(source: string): string[] {
    return this.stmt('SELECT sid FROM sessions WHERE source = ?').pluck().all(source) as string[];
  }

  /** Session ids (sid) of a source with their row id and file key. */
  sessionsOf(source: string): { id: number; sid: string; location: string }[] {
    return this.stmt('SELECT id, sid, location FROM sessions WHERE source = ?').all(source) as { id: number; sid: string; location: string }[];
  }

  upsertSession(doc: SessionDoc): number {
    const row = this.stmt(
      `INSERT INTO sessions (source, sid, title, cwd, updated_at, location) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (source, sid) DO UPDATE SET title = excluded.title, cwd = excluded.cwd, updated_at = excluded.updated_at, location = excluded.location
       RETURNING id`,
    ).get(doc.source, doc.id, doc.title, doc.cwd, doc.updatedAt, doc.location) as { id: number };
    return row.id;
  }

  deleteSession(id: number): void {
    this.deleteUnitsFrom(id, -Infinity);
    this.stmt('DELETE FROM sessions WHERE id = ?').run(id);
  }

  /** Unit hashes of a session by index, to replace only the units that changed. */
  unitHashes(session: number): Map<number, string> {
    const rows = this.stmt('SELECT idx, hash FROM units WHERE session = ?').all(session) as { idx: number; hash: string }[];
    return new Map(rows.map((r) => [r.idx, r.hash]));
  }

  /** Removes units with an index ≥ `from`, and the chunks that hold them. */
  private deleteUnitsFrom(session: number, from: number): void {
    const lo = from === -Infinity ? -1e15 : from;
    if (this.deferredGrams && this.deferredGrams.length > 0) {
      // Chunks written earlier in this write and removed again must not get their gram rows later.
      const gone = new Set(this.stmt('SELECT id FROM chunks WHERE session = ? AND lo >= ?').pluck().all(session, lo) as number[]);
      if (gone.size > 0) this.deferredGrams = this.deferredGrams.filter(([id]) => !gone.has(id));
    }
    this.stmt('DELETE FROM grams WHERE rowid IN (SELECT id FROM chunks WHERE session = ? AND lo >= ?)').run(session, lo);
    this.stmt('DELETE FROM leads WHERE chunk IN (SELECT id FROM chunks WHERE session = ? AND lo >= ?)').run(session, lo);
    this.stmt('DELETE FROM chunks WHERE session = ? AND lo >= ?').run(session, lo);
    this.stmt('DELETE FROM units WHERE session = ? AND idx >= ?').run(session, lo);
  }

  /** The first unit index of the chunk holding unit `index` (chunks never split a unit). */
  private chunkStart(session: number, index: number): number {
    const row = this.stmt('SELECT max(lo) AS lo FROM chunks WHERE session = ? AND lo <= ?').get(session, index) as { lo: number | null };
    return row.lo ?? index;
  }

  /** Writes packed chunks (and their units) into a session. */
  writePacked(session: number, chunks: PackedChunk[]): void {
    if (chunks.length === 0) return;
    // A lead and its terms' lists are written together, or neither is.
    if (!this.db.inTransaction) return this.transaction(() => this.writePacked(session, chunks));
    // Ids only grow within a session's lifetime and are never shared: a chunk's units are
    // consecutive ids, deleted only together with the chunk.
    // Never an id a deleted chunk had (NEXT_CHUNK): a process keeping the leads tells new chunks by their ids.
    let chunkId = Math.max(this.stmt('SELECT coalesce(max(id), 0) + 1 FROM chunks').pluck().get() as number, Number(this.meta(NEXT_CHUNK) ?? 0));
    let unitId = (this.stmt('SELECT coalesce(max(id), 0) + 1 FROM units').pluck().get() as number);
    const units = new UnitRows(this);
    const insertChunk = this.stmt('INSERT INTO chunks (id, session, lo, first_unit, nparts, nchars, parts, data, records) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const insertGrams = this.stmt('INSERT INTO grams (rowid, keys) VALUES (?, ?)');
    const insertLead = this.stmt(INSERT_LEAD);
    for (const c of chunks) {
      let first: number;
      if (c.records) {
        first = recordsFirstUnit(chunkId);
        insertChunk.run(chunkId, session, c.lo, first, c.nparts, c.nchars, c.parts, c.data, c.records);
      } else {
        first = unitId;
        for (const d of c.docs) units.add(unitId++, session, d.index, d.at, d.atText, d.cwd, d.status, d.title, d.complete, d.hash, chunkId);
        insertChunk.run(chunkId, session, c.lo, first, c.nparts, c.nchars, c.parts, c.data, null);
      }
      if (c.lead) {
        insertLead.run(chunkId, session, first, c.lead.n, c.lead.dir, c.lead.text);
        this.listLeadTerms({ chunk: chunkId, session, firstUnit: first, dir: c.lead.dir, text: c.lead.text });
      }
      if (this.deferredGrams) this.deferredGrams.push([chunkId, c.keys]);
      else insertGrams.run(chunkId, c.keys);
      chunkId++;
    }
    units.finish();
    this.setMeta(NEXT_CHUNK, String(chunkId));
    if (!this.deferredGrams) this.writeLeadTerms();
  }

  /** The terms listed (lead-terms.ts), or undefined when none is. */
  leadTerms(): string[] | undefined {
    const value = this.meta(LEAD_TERMS_META);
    return value === undefined ? undefined : (JSON.parse(value) as string[]);
  }

  /** Counts the listed terms in a lead just written (the lists are written at the end of the write). */
  private listLeadTerms(lead: LeadSource): void {
    if (this.termCounter === undefined) {
      const terms = this.leadTerms();
      this.termCounter = terms ? new LeadTermCounter(terms) : null;
    }
    this.leadsWritten.push(lead);
    if (this.termCounter && this.termCounter.terms.length > 0) this.termCounter.add(lead, recordsFirstUnit(lead.chunk));
  }

  /** The leads of the index (ascending chunk), from those this connection wrote where they are still there. */
  private allLeadSources(): LeadSource[] {
    const live = this.stmt('SELECT chunk FROM leads INDEXED BY leads_count').pluck().all() as number[];
    const mine = new Map<number, LeadSource>();
    for (const lead of this.unlisted ?? []) mine.set(lead.chunk, lead);
    const missing = live.filter((c) => !mine.has(c));
    const read = missing.length === 0 ? [] : (this.stmt('SELECT chunk, session, first_unit, dir, text FROM leads WHERE chunk IN (SELECT value FROM json_each(?))').raw(true).all(JSON.stringify(missing)) as [number, number, number, Buffer, string][]);
    for (const [chunk, session, firstUnit, dir, text] of read) mine.set(chunk, { chunk, session, firstUnit, dir, text });
    return live.sort((a, b) => a - b).map((c) => mine.get(c)!);
  }

  /**
   * Once the index holds LEAD_TERMS.minLeads leads and no term is listed yet, chooses the terms
   * from its leads and lists them in all of them; called at the end of a sync, so the terms are
   * chosen from every source's leads (a first build writes them source by source). Listing is a
   * cache like the rest: a write that fails here leaves none.
   */
  listCommonLeadTerms(): void {
    if (!LITTLE_ENDIAN || this.meta(LEAD_TERMS_META) !== undefined) return;
    if ((this.stmt('SELECT count(*) FROM leads INDEXED BY leads_count').pluck().get() as number) < LEAD_TERMS.minLeads) return;
    try {
      this.transaction(() => {
        if (this.meta(LEAD_TERMS_META) !== undefined) return; // another process listed them meanwhile
        const all = this.allLeadSources();
        this.unlisted = undefined;
        const terms = chooseLeadTerms(all);
        const counter = new LeadTermCounter(terms);
        for (const lead of all) counter.add(lead, recordsFirstUnit(lead.chunk));
        if (counter.broken) {
          this.setMeta(LEAD_TERMS_META, '[]');
          return;
        }
        this.setMeta(LEAD_TERMS_META, JSON.stringify(terms));
        if (all.length > 0) this.insertLeadTerms(counter, all[0]!.chunk);
      });
    } catch {
      // nothing was written: searches read the leads, and the next sync tries again
    }
  }

  /** Writes the lists of the leads this write wrote. A term's lists are merged once there are LEAD_TERMS.maxBatches of them. */
  private writeLeadTerms(): void {
    const written = this.leadsWritten;
    const counter = this.termCounter;
    this.leadsWritten = [];
    // Made again from the meta row at the next write: a write rolled back may have chosen terms the index does not hold.
    this.termCounter = undefined;
    if (written.length === 0 || counter === undefined) return;
    if (counter === null && this.unlisted) {
      for (const lead of written) {
        this.unlisted.push(lead);
        this.unlistedChars += lead.text.length;
      }
      if (this.unlistedChars > MAX_UNLISTED_CHARS) this.unlisted = undefined;
    }
    let batch = written[0]!.chunk;
    for (const l of written) batch = Math.min(batch, l.chunk);
    if (counter?.broken) {
      // A lead whose first unit an entry cannot hold: no term is listed, for good (never met: ids stay far below 2^31).
      this.stmt('DELETE FROM lead_terms').run();
      this.setMeta(LEAD_TERMS_META, '[]');
      return;
    }
    if (counter === null || counter.added === 0) return;
    this.insertLeadTerms(counter, batch);
  }

  private insertLeadTerms(counter: LeadTermCounter, batch: number): void {
    const insert = this.stmt('INSERT INTO lead_terms (term, batch, entries) VALUES (?, ?, ?)');
    for (const [term, entries] of counter.take()) insert.run(term, batch, entries);
    const batches = Number(this.meta(LEAD_TERMS_BATCHES) ?? 0) + 1;
    if (batches < LEAD_TERMS.maxBatches) {
      this.setMeta(LEAD_TERMS_BATCHES, String(batches));
      return;
    }
    this.mergeLeadTerms();
    this.setMeta(LEAD_TERMS_BATCHES, '0');
  }

  /** Each term's rows made one, without the entries of chunks no longer there. */
  private mergeLeadTerms(): void {
    const live = new Set(this.stmt('SELECT chunk FROM leads INDEXED BY leads_count').pluck().all() as number[]);
    const terms = this.stmt('SELECT DISTINCT term FROM lead_terms').pluck().all() as string[];
    const rows = this.stmt('SELECT entries FROM lead_terms WHERE term = ? ORDER BY batch').pluck();
    for (const term of terms) {
      const kept: number[] = [];
      for (const entries of rows.all(term) as Buffer[]) {
        const ints = new Int32Array(entries.buffer.slice(entries.byteOffset, entries.byteOffset + entries.byteLength));
        for (let e = 0; e < ints.length; e += ENTRY_INTS) if (live.has(ints[e]!)) for (let k = 0; k < ENTRY_INTS; k++) kept.push(ints[e + k]!);
      }
      this.stmt('DELETE FROM lead_terms WHERE term = ?').run(term);
      if (kept.length === 0) continue;
      const ints = Int32Array.from(kept);
      this.stmt('INSERT INTO lead_terms (term, batch, entries) VALUES (?, ?, ?)').run(term, ints[0]!, Buffer.from(ints.buffer));
    }
  }

  /**
   * Runs a write transaction whose FTS5 rows are inserted last. FTS5 writes out its pending
   * terms as a new segment whenever a later statement opens a statement journal (an upsert does),
   * so interleaving gram rows with the other rows wrote one small segment per session and merged
   * them again: about three times the cost of writing them all at the end.
   */
  writing<T>(fn: () => T): T {
    return this.transaction(() => {
      this.deferredGrams = [];
      try {
        const out = fn();
        const insertGrams = this.stmt('INSERT INTO grams (rowid, keys) VALUES (?, ?)');
        for (const [id, keys] of this.deferredGrams) insertGrams.run(id, keys);
        this.writeLeadTerms();
        return out;
      } finally {
        this.deferredGrams = undefined;
        // A write that failed wrote none of what was counted for it.
        this.termCounter = undefined;
        this.leadsWritten = [];
      }
    });
  }

  /** Makes a session's records exactly those packed: records are rewritten whole, with no digest to keep any. */
  replaceRecords(session: number, packed: PackedChunk[]): void {
    this.deleteUnitsFrom(session, -Infinity);
    this.writePacked(session, packed);
  }

  /** Appends units after every unit the session holds. */
  appendUnits(session: number, docs: UnitDoc[]): void {
    this.writePacked(session, packUnits(docs, { persistent: this.persistent }));
  }

  /**
   * Which units replacing a session's units with `docs` must write: those from the first one
   * that changed on (rounded down to the start of its chunk: chunks never split). `written`
   * counts the units whose content is new, `kept` the others.
   */
  planReplace(session: number | undefined, docs: UnitDoc[]): ReplacePlan {
    if (session === undefined) return { start: -Infinity, written: docs.length, kept: 0 };
    const old = this.unitHashes(session);
    if (old.size === 0) return { start: -Infinity, written: docs.length, kept: 0 };
    let written = 0;
    let from = Infinity;
    const wanted = new Set<number>();
    for (const doc of docs) {
      wanted.add(doc.index);
      if (old.get(doc.index) === doc.hash) continue;
      written++;
      if (doc.index < from) from = doc.index;
    }
    for (const index of old.keys()) if (!wanted.has(index) && index < from) from = index;
    if (from === Infinity) return { start: Infinity, written: 0, kept: docs.length };
    return { start: this.chunkStart(session, from), written, kept: docs.length - written };
  }

  /** The row id of a session, if the index holds it. */
  sessionRow(source: string, sid: string): number | undefined {
    return this.stmt('SELECT id FROM sessions WHERE source = ? AND sid = ?').pluck().get(source, sid) as number | undefined;
  }

  /**
   * Makes a session's units exactly `docs`. `packed` are the units from `plan.start` on, packed
   * before the transaction; if the index changed since the plan was made (another search wrote
   * this session meanwhile), they are packed again here.
   */
  replaceUnits(session: number, docs: UnitDoc[], prepared?: { plan: ReplacePlan; packed: PackedChunk[] }): { written: number; kept: number } {
    const plan = this.planReplace(session, docs);
    if (plan.start === Infinity) return plan;
    this.deleteUnitsFrom(session, plan.start);
    this.writePacked(session, prepared && prepared.plan.start === plan.start ? prepared.packed : packUnits(unitsFrom(docs, plan.start), { persistent: this.persistent }));
    return plan;
  }

  /** Plans a replace and packs its units (compressing off the main thread) before the transaction. */
  async prepareReplace(source: string, sid: string, docs: UnitDoc[], sourceBytes?: number): Promise<{ plan: ReplacePlan; packed: PackedChunk[] }> {
    const plan = this.planReplace(this.sessionRow(source, sid), docs);
    const packed = plan.start === Infinity ? [] : await packUnitsAsync(unitsFrom(docs, plan.start), { persistent: this.persistent, sourceBytes });
    return { plan, packed };
  }

  /** Chunks holding every key of one of the key lists (an FTS5 query over the key tokens). */
  chunksWithKeys(alternatives: number[][]): number[] {
    const expr = alternatives.map((keys) => `(${keys.map((k) => `"${keyToken(k)}"`).join(' AND ')})`).join(' OR ');
    // One JSON array rather than a row per chunk: a common word's keys match nearly every chunk, and
    // making thousands of rows cost more than the match.
    return JSON.parse(this.stmt('SELECT json_group_array(rowid) FROM grams WHERE grams MATCH ?').pluck().get(expr) as string) as number[];
  }

  chunk(id: number): StoredChunk | undefined {
    const row = this.stmt('SELECT id, session, first_unit, parts, data, records FROM chunks WHERE id = ?').get(id) as ChunkRow | undefined;
    return row && decodeChunk(row);
  }

  /** How many parts and characters the index holds: the collection statistics for ranking. */
  totals(): { parts: number; chars: number } {
    const row = this.stmt('SELECT coalesce(sum(nparts), 0) AS parts, coalesce(sum(nchars), 0) AS chars FROM chunks').get() as { parts: number; chars: number };
    return row;
  }

  /** How many lead parts the index holds: the number of documents a term's frequency among them is counted against. */
  leadParts(): number {
    return this.stmt('SELECT coalesce(sum(nlead), 0) FROM leads').pluck().get() as number;
  }

  /** BEGIN IMMEDIATE: a concurrent search waits for the write lock (busy timeout) instead of failing to upgrade a read. */
  transaction<T>(fn: () => T): T {
    this.writes++;
    return this.db.transaction(fn).immediate();
  }

  /**
   * Every lead, decoded and lower-cased, kept while the index is unchanged (a commit by another
   * connection changes data_version, one by this connection `writes`); undefined unless
   * `keepLeads`, or when the leads are too large to keep.
   */
  cachedLeads(): LeadCache | undefined {
    if (!this.keepLeads) return undefined;
    const stamp = this.stamp();
    if (this.leadCache?.stamp === stamp) return this.leadCache.cache;
    const before = this.leadCache;
    this.leadCache = undefined;
    // Chunks are never rewritten and, once NEXT_CHUNK is kept, their ids never reused: the
    // leads of chunks still there are the ones kept, and every new lead's chunk is at least the
    // NEXT_CHUNK read last time. An agent asking sivtr while its own transcript grows changes the
    // index before nearly every search; reading every lead again cost more than the search.
    // One read transaction: the counter and the rows are of one state of the index.
    const { next, cache } = this.db.transaction(() => {
      const next = this.meta(NEXT_CHUNK);
      return { next, cache: before?.cache !== undefined && before.next !== undefined ? this.grownLeads(before.cache, Number(before.next)) : this.allLeads() };
    })();
    this.leadCache = { stamp, next, cache };
    return cache;
  }

  private allLeads(): LeadCache | undefined {
    const leads: CachedLead[] = [];
    let chars = 0;
    const rows = this.stmt('SELECT chunk, session, first_unit, dir, text FROM leads').raw(true).iterate() as Iterable<[number, number, number, Buffer, string]>;
    for (const [chunk, session, firstUnit, dir, text] of rows) {
      chars += text.length;
      if (chars > MAX_CACHED_LEAD_CHARS) return undefined;
      leads.push({ chunk, session, firstUnit, dir: decodeLeadDir(dir), text, lower: text.toLowerCase() });
    }
    const cache = this.leadCacheOf(leads, chars);
    cache.postings = LeadPostings.build(leads);
    return cache;
  }

  /** `kept` brought up to date: the leads of deleted chunks dropped, those of chunks from `from` on read. */
  private grownLeads(kept: LeadCache, from: number): LeadCache | undefined {
    const live = new Set(this.stmt('SELECT chunk FROM leads INDEXED BY leads_count').pluck().all() as number[]);
    const leads: CachedLead[] = [];
    let chars = 0;
    const gone: number[] = [];
    for (const l of kept.leads) {
      if (live.has(l.chunk) && l.chunk < from) {
        leads.push(l);
        chars += l.text.length;
      } else gone.push(l.chunk);
    }
    const added: CachedLead[] = [];
    const rows = this.stmt('SELECT chunk, session, first_unit, dir, text FROM leads WHERE chunk >= ? ORDER BY chunk').raw(true).iterate(from) as Iterable<[number, number, number, Buffer, string]>;
    for (const [chunk, session, firstUnit, dir, text] of rows) {
      chars += text.length;
      if (chars > MAX_CACHED_LEAD_CHARS) return undefined;
      added.push({ chunk, session, firstUnit, dir: decodeLeadDir(dir), text, lower: text.toLowerCase() });
    }
    for (const l of added) leads.push(l);
    const cache = this.leadCacheOf(leads, chars);
    const postings = kept.postings ?? LeadPostings.build([]);
    for (const chunk of gone) postings.remove(chunk);
    for (const l of added) postings.add(l);
    cache.postings = postings.worthRebuilding ? LeadPostings.build(leads) : postings;
    return cache;
  }

  private leadCacheOf(leads: CachedLead[], chars: number): LeadCache {
    const sourceOf = new Map((this.stmt('SELECT id, source FROM sessions').raw(true).all() as [number, string][]).map(([id, source]) => [id, source]));
    return { leads, leadOf: new Map(leads.map((l, i) => [l.chunk, i])), sourceOf, chars };
  }

  /** Says when the index changed: a commit by another connection changes data_version, one by this connection `writes`. */
  private stamp(): string {
    return `${this.db.pragma('data_version', { simple: true }) as number}:${this.writes}`;
  }

  /**
   * What `make` gives, kept under `key` while the index is unchanged when the process keeps the
   * leads (a long-lived one), else made at each call: the display ids of a thousand sessions
   * cost a warm search of common words as much as ranking its hits.
   */
  keptWhileUnchanged<T>(key: string, make: () => T): T {
    if (!this.keepLeads) return make();
    const stamp = this.stamp();
    if (this.kept?.stamp !== stamp) this.kept = { stamp, values: new Map() };
    if (this.kept.values.has(key)) return this.kept.values.get(key) as T;
    const value = make();
    this.kept.values.set(key, value);
    return value;
  }

  close(): void {
    this.db.close();
  }
}

function removeDbFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
}

const makeSchema = (db: Db): void => {
  db.exec(SCHEMA);
};

function openPersistent(path: string, version: string): IndexDb {
  ensurePrivateDir(dirname(path));
  const fresh = !existsSync(path);
  let index = new IndexDb(openDb(path, { setUp: makeSchema }), true);
  // A file made just now holds the schema and nothing else: it is stamped, not made a second
  // time (closing, deleting and creating it again was a tenth of a cold build of 10,000 records).
  if (fresh && index.meta('version') === undefined) index.setMeta('version', version);
  else if (index.meta('version') !== version) {
    // A different parser (or schema) wrote this cache: start over rather than mix rows.
    const hadVersion = index.meta('version') !== undefined;
    index.close();
    removeDbFiles(path);
    index = new IndexDb(openDb(path, { setUp: makeSchema }), true);
    index.setMeta('version', version);
    if (hadVersion && process.env.SIVTR_DEBUG) warn('index format changed: rebuilding');
  }
  return index;
}

export type OpenedIndex = { index: IndexDb; fallbackReason?: string };

/**
 * The file index when it can be used; a corrupt file is deleted and rebuilt, an unwritable
 * place falls back to an in-memory index (the caller says so on stderr).
 */
export function openIndex(path: string, version: string, opts: { noIndex?: boolean } = {}): OpenedIndex {
  if (opts.noIndex) return { index: memoryIndex(version) };
  try {
    return { index: openPersistent(path, version) };
  } catch (error) {
    if (isCorruptionError(error)) {
      warn(`${path} was unreadable — rebuilding it`);
      try {
        removeDbFiles(path);
        return { index: openPersistent(path, version) };
      } catch (again) {
        return { index: memoryIndex(version), fallbackReason: describe(again) };
      }
    }
    if (isUnwritableError(error) || !existsSync(dirname(path))) return { index: memoryIndex(version), fallbackReason: describe(error) };
    throw error;
  }
}

export function memoryIndex(version: string): IndexDb {
  const index = new IndexDb(openMemoryDb(), false);
  index.setMeta('version', version);
  return index;
}

function describe(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return e.code ?? e.message ?? String(error);
}

export { removeDbFiles };
