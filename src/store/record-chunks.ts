// Terminal records as the index keeps them: a log's records are packed into chunks like any
// units, but no row is written per record. A record chunk carries its records' metadata itself
// (one compact list, compressed) and its records' unit ids are computed from the chunk's id, so a
// build writes one row per chunk instead of one per record, and search reads a record's time,
// status, cwd and title from its chunk (docs/formats.md, "index.db"). Agent turns keep their
// unit rows: a grown transcript rewrites only the turns that changed, which needs their digests.
import { zlib } from './lazy-zlib.js';
import { findSource } from '../memory/sources.js';
import { epochMs, type StatusName } from './docs.js';

/**
 * Record k of chunk c has the unit id -c·RECORD_SPAN + k: negative, so it never meets a unit
 * row's id, and the chunk is known from the id alone.
 */
const RECORD_SPAN = 2 ** 20;

/**
 * Records per chunk at most. Never reached: a record has a part that is not blank, so it adds
 * at least two characters to a chunk of 64 K. Chunks end where unit chunks would, so the
 * collection statistics ranking reads are those of unit rows.
 */
export const MAX_RECORDS = RECORD_SPAN - 1;

export const recordsFirstUnit = (chunkId: number): number => -chunkId * RECORD_SPAN;
export const isRecordUnit = (uid: number): boolean => uid < 0;
export const chunkOfRecord = (uid: number): number => Math.ceil(-uid / RECORD_SPAN);

/** Sources whose sessions are logs of records (the terminal): the sessions whose units are stored this way. */
export function storesRecords(source: string): boolean {
  const s = findSource(source);
  return s !== undefined && s.unitKind === 'record' && s.sessionIsUnit !== true;
}

/** A record's parts, always these three in this order (p1 prompt, p2 command, p3 output). */
export const RECORD_KINDS = ['prompt', 'command', 'output'] as const;

const STATUS_OF_LETTER: Record<string, StatusName> = { s: 'success', f: 'failure', u: 'unknown' };

/**
 * One record as its chunk lists it: its index in the log, its time as written, cwd, status
 * letter, title, then the length of each part's kept text (-1: blank, not kept).
 */
export type RecordEntry = [index: number, atText: string | null, cwd: string | null, status: string, title: string, prompt: number, command: number, output: number];

/** A record's metadata as search reads it. */
export type RecordMeta = { idx: number; at: number | null; atText: string | null; cwd: string | null; status: StatusName; title: string };

export function recordMeta(e: RecordEntry): RecordMeta {
  return { idx: e[0], at: epochMs(e[1] ?? undefined), atText: e[1], cwd: e[2], status: STATUS_OF_LETTER[e[3]] ?? 'unknown', title: e[4] };
}

/**
 * A chunk's record list as search reads it: the records' part lengths as binary integers (their
 * offsets summed once), and the metadata of one record read only when it is asked for: its
 * index, time, cwd, title and status are integers (a string is its place in the chunk's table of
 * strings), so a record is read without parsing anything, and a search that reads a few records
 * of a chunk holding a thousand touches only theirs (docs/formats.md, "index.db").
 */
export class RecordList {
  readonly count: number;
  /** Per record, the lengths of p1-p3's kept text (-1: blank). */
  private readonly lengths: Int32Array;
  /** Where each record's first part starts in the chunk's text. */
  private readonly starts: Int32Array;
  /** The list as stored: per record five int32 from `meta`, the table's string starts from `table`, its bytes from `strings`. */
  private readonly body: Buffer;
  private readonly meta: number;
  private readonly table: number;
  private readonly strings: number;
  private readonly encoding: 'utf8' | 'utf16le';
  private readonly entries: (RecordEntry | undefined)[];

  constructor(body: Buffer) {
    const count = body.readUInt32LE(0);
    this.count = count;
    this.body = body;
    // Copied out of the blob: its bytes need not be aligned for a typed view.
    this.lengths = new Int32Array(count * 3);
    new Uint8Array(this.lengths.buffer).set(body.subarray(4, 4 + count * 12));
    this.meta = 4 + count * 12;
    this.encoding = body.readUInt32LE(this.meta + count * 20) === 1 ? 'utf16le' : 'utf8';
    const nstrings = body.readUInt32LE(this.meta + count * 20 + 4);
    this.table = this.meta + count * 20 + 8;
    this.strings = this.table + 4 * (nstrings + 1);
    // Offsets are stored as lengths and summed here, in one plain loop over the records.
    const lengths = this.lengths;
    const starts = (this.starts = new Int32Array(count));
    let text = 0;
    for (let k = 0; k < count; k++) {
      starts[k] = text;
      for (let i = 3 * k; i < 3 * k + 3; i++) if (lengths[i]! >= 0) text += lengths[i]! + 1;
    }
    this.entries = new Array(count);
  }

  /** Where record k's first part starts in the chunk's text. */
  start(k: number): number {
    return this.starts[k]!;
  }

  /** The length of record k's part i (0 prompt, 1 command, 2 output), -1 when blank. */
  partLength(k: number, i: number): number {
    return this.lengths[k * 3 + i]!;
  }

  /** The record whose parts hold text offset `at`: the last one starting at or before it. */
  recordAt(at: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** String `ref` of the table, or null for -1. */
  private string(ref: number): string | null {
    if (ref < 0) return null;
    const { body, table, strings } = this;
    return body.toString(this.encoding, strings + body.readUInt32LE(table + 4 * ref), strings + body.readUInt32LE(table + 4 * ref + 4));
  }

  /** Record k as its chunk lists it (read once). */
  entry(k: number): RecordEntry {
    let e = this.entries[k];
    if (e === undefined) {
      const { body } = this;
      const at = this.meta + 20 * k;
      e = [body.readInt32LE(at), this.string(body.readInt32LE(at + 4)), this.string(body.readInt32LE(at + 8)), String.fromCharCode(body.readInt32LE(at + 16)), this.string(body.readInt32LE(at + 12)) ?? '', this.partLength(k, 0), this.partLength(k, 1), this.partLength(k, 2)];
      this.entries[k] = e;
    }
    return e;
  }
}

/** The stored list (one byte saying how: 0 as is, 1 deflated, 2 brotli, then the body of encodeRecords). */
export function decodeRecords(blob: Buffer): RecordList {
  const body = blob.subarray(1);
  return new RecordList(blob[0] === 2 ? zlib().brotliDecompressSync(body) : blob[0] === 1 ? zlib().inflateRawSync(body) : body);
}
