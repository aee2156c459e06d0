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
 * offsets summed once), and the metadata of one record parsed only when it is asked for. A
 * search reads a few records of a chunk that holds a thousand (the ones holding a hit), so it
 * never parses the others' JSON nor builds their parts (docs/formats.md, "index.db").
 */
export class RecordList {
  readonly count: number;
  /** Per record, the lengths of p1-p3's kept text (-1: blank). */
  private readonly lengths: Int32Array;
  /** Where each record's first part starts in the chunk's text, and its metadata in `meta`. */
  private readonly starts: Int32Array;
  private readonly metaStarts: Uint32Array;
  private readonly meta: Buffer;
  private readonly entries: (RecordEntry | undefined)[];

  constructor(body: Buffer) {
    const count = body.readUInt32LE(0);
    this.count = count;
    // Copied out of the blob: its bytes need not be aligned for a typed view.
    let at = 4;
    this.lengths = new Int32Array(count * 3);
    new Uint8Array(this.lengths.buffer).set(body.subarray(at, (at += count * 12)));
    const metaLengths = new Uint32Array(count);
    new Uint8Array(metaLengths.buffer).set(body.subarray(at, (at += count * 4)));
    this.meta = body.subarray(at);
    // Offsets are stored as lengths (they deflate to half the size) and summed here, in one
    // plain loop over the records.
    const lengths = this.lengths;
    const starts = (this.starts = new Int32Array(count));
    const metaStarts = (this.metaStarts = new Uint32Array(count + 1));
    let text = 0;
    let meta = 0;
    for (let k = 0; k < count; k++) {
      starts[k] = text;
      metaStarts[k] = meta;
      meta += metaLengths[k]!;
      for (let i = 3 * k; i < 3 * k + 3; i++) if (lengths[i]! >= 0) text += lengths[i]! + 1;
    }
    metaStarts[count] = meta;
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

  /** Record k as its chunk lists it (parsed once). */
  entry(k: number): RecordEntry {
    let e = this.entries[k];
    if (e === undefined) {
      const m = JSON.parse(this.meta.toString('utf8', this.metaStarts[k], this.metaStarts[k + 1])) as [number, string | null, string | null, string, string];
      e = [m[0], m[1], m[2], m[3], m[4], this.partLength(k, 0), this.partLength(k, 1), this.partLength(k, 2)];
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
