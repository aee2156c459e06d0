// Terminal records packed into chunks as they are read (docs/formats.md, "index.db"). Each
// record's kept texts are written straight into its chunk's text buffer, its part lengths and
// metadata straight into the chunk's record list (the layout RecordList reads), its command into
// the chunk's lead; the gram keys are taken from the chunk's buffer once the chunk is full. Per
// record nothing is made but its metadata's JSON: no unit, doc, part list or entry array is built,
// and nothing of a record is kept but its bytes. The chunks are those the same records packed as
// unit rows would fill: the same texts, boundaries, keys and lead (record-chunks.test.ts).
import type { RecordVisitor, Unit } from '../memory/types.js';
import { recordTitle } from '../session/entry.js';
import { keptText, statusOf, type StatusName } from './docs.js';
import { CHUNK_CHARS, compressSync, compressTexts, encode, isLeadKind, keysAsTokens, LEAD_KINDS, packingKeys, RAW, worthCompressing, type PackedChunk, type TextStorage } from './index-db.js';
import { MAX_RECORDS, RECORD_KINDS } from './record-chunks.js';

/** Which of a record's parts (p1 prompt, p2 command, p3 output) are of a lead kind, and that kind's place in LEAD_KINDS. */
const RECORD_LEAD = RECORD_KINDS.map((kind) => (isLeadKind(kind) ? LEAD_KINDS.indexOf(kind) : -1));

const STATUS_LETTER: Record<StatusName, string> = { success: 's', failure: 'f', unknown: 'u' };

/** A record's status letter from its exit code, as statusOf tells a record's (its parts carry no outcome of their own). */
const statusOfExit = (exitCode: number | undefined): string => (exitCode === undefined ? 'u' : exitCode === 0 ? 's' : 'f');

/** 32-bit integers pushed one after another into an array that doubles when full. */
class IntRun {
  a: Int32Array;
  n = 0;

  constructor(size: number) {
    this.a = new Int32Array(size);
  }

  push(v: number): void {
    if (this.n === this.a.length) {
      const grown = new Int32Array(2 * this.a.length);
      grown.set(this.a);
      this.a = grown;
    }
    this.a[this.n++] = v;
  }

  /** The integers pushed, as bytes in the platform's order (little-endian wherever sivtr runs). */
  bytes(): Uint8Array {
    return new Uint8Array(this.a.buffer, 0, 4 * this.n);
  }
}

/**
 * A chunk's part lengths, lead directory, texts, metadata and lead texts being filled: reused
 * from chunk to chunk and, once a packer is done, by the next one. The lists of strings too: a
 * new [] holds small integers until its first push, and V8's code for the pushes, made for a
 * list of strings, deoptimised on meeting one (once for each log packed).
 */
type Scratch = { lengths: IntRun; lead: IntRun; meta: IntRun; texts: string[]; strings: string[]; leadTexts: string[] };
const scratchPool: Scratch[] = [];
const takeScratch = (): Scratch => scratchPool.pop() ?? { lengths: new IntRun(3 * 1024), lead: new IntRun(5 * 1024), meta: new IntRun(5 * 1024), texts: [], strings: [], leadTexts: [] };

/** A string not yet in the chunk's table: the first record of a chunk adds its cwd and title. */
const NONE = Symbol('none');

/** Whether a string holds no lone surrogate half (String.prototype.isWellFormed, which Node 20's types do not declare). */
const isWellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Packed record chunks before they are stored: each chunk's text and record list, still raw. */
export type PackedRecords = { chunks: PackedChunk[]; raw: Buffer[]; lists: Buffer[]; count: number };

/** Packs records into chunks as they are handed over (`visit`, or `addUnit`); `finish` ends the last chunk. */
export class RecordPacker {
  private readonly chunks: PackedChunk[] = [];
  private readonly raw: Buffer[] = [];
  private readonly lists: Buffer[] = [];
  /** Records packed in all. */
  count = 0;
  private scratch: Scratch | undefined;
  // The chunk being filled: its records, first record's index, kept parts and their characters
  // plus one each (as packRaw counts them). Its texts and its records' metadata are joined and
  // encoded once, when the chunk is full: one call instead of one per part.
  private records = 0;
  private lo = 0;
  private nparts = 0;
  private chars = 0;
  private cwd: string | null | typeof NONE = NONE;
  private cwdRef = -1;
  private title: string | typeof NONE = NONE;
  private titleRef = -1;

  constructor(private readonly fallbackAt?: string) {}

  /** A record as a terminal log holds it, normalised. */
  readonly visit: RecordVisitor = (entry, index) => {
    this.add(index, entry.prompt, entry.command, entry.output, entry.ended_at ?? this.fallbackAt ?? null, entry.cwd ?? null, statusOfExit(entry.exit_code), recordTitle(entry));
  };

  /** A record already made a unit (parts p1 prompt, p2 command, p3 output). */
  addUnit(unit: Unit): void {
    const parts = unit.parts;
    if (parts.length !== 3) throw new Error(`a terminal record has parts p1-p3, not ${parts.length}`);
    for (let i = 0; i < 3; i++) {
      if (parts[i]!.n !== i + 1 || parts[i]!.kind !== RECORD_KINDS[i]) throw new Error(`a terminal record's p${i + 1} is its ${RECORD_KINDS[i]}`);
    }
    this.add(unit.index, parts[0]!.text, parts[1]!.text, parts[2]!.text, unit.at ?? this.fallbackAt ?? null, unit.cwd ?? null, STATUS_LETTER[statusOf(unit)], unit.title);
  }

  private add(index: number, prompt: string, command: string, output: string, at: string | null, cwd: string | null, status: string, title: string): void {
    const s = (this.scratch ??= takeScratch());
    if (this.records === 0) this.lo = index;
    const ordinal = this.records++;
    this.count++;
    this.part(s, 0, prompt, ordinal);
    this.part(s, 1, command, ordinal);
    this.part(s, 2, output, ordinal);
    // Index, time as written, cwd, title (places in the chunk's table of strings, -1: none) and
    // status letter (see RecordList). A log's records mostly share their cwd, and often their
    // title, with the record before: the table holds such a string once for the run of them.
    const strings = s.strings;
    if (cwd !== this.cwd) {
      this.cwd = cwd;
      this.cwdRef = cwd === null ? -1 : strings.push(cwd) - 1;
    }
    if (title !== this.title) this.titleRef = strings.push((this.title = title)) - 1;
    const m = s.meta;
    m.push(index);
    m.push(at === null ? -1 : strings.push(at) - 1);
    m.push(this.cwdRef);
    m.push(this.titleRef);
    m.push(status.charCodeAt(0));
    if (this.chars >= CHUNK_CHARS || this.records >= MAX_RECORDS) this.flush();
  }

  private part(s: Scratch, i: number, text: string, ordinal: number): void {
    const kept = keptText(RECORD_KINDS[i]!, text);
    if (kept === undefined) {
      s.lengths.push(-1);
      return;
    }
    s.lengths.push(kept.length);
    s.texts.push(kept);
    this.nparts++;
    this.chars += kept.length + 1;
    const lead = RECORD_LEAD[i]!;
    if (lead >= 0) {
      const d = s.lead;
      d.push(ordinal);
      d.push(i + 1);
      d.push(lead);
      d.push(kept.length);
      d.push(i + 1);
      s.leadTexts.push(kept);
    }
  }

  private flush(): void {
    const s = this.scratch!;
    const count = this.records;
    const text = Buffer.from(s.texts.join('\u0000'), 'utf8');
    // Keys part by part (no query holds a NUL, so no gram across two parts is asked for). A
    // text of as many bytes as characters is ASCII: its parts are read in place from its bytes.
    const keys = packingKeys();
    if (text.length === Math.max(0, this.chars - 1)) {
      keys.addAsciiParts(text, s.lengths.a, 3 * count);
    } else {
      for (const t of s.texts) keys.addTextLowering(t);
    }
    // The list: the record count (u32), per record its part lengths (int32 ×3, -1: blank), per
    // record its index, time, cwd, title and status (int32 ×5), the table's encoding (u32: 0
    // UTF-8, 1 UTF-16LE, for strings holding a lone surrogate half, which UTF-8 cannot keep),
    // its number of strings (u32), where each starts and the last ends (u32, bytes), then the
    // strings (see RecordList).
    const strings = s.strings;
    const nstrings = strings.length;
    const joined = strings.join('');
    const wide = !isWellFormed(joined);
    const encoding = wide ? 'utf16le' : 'utf8';
    const stringBytes = Buffer.byteLength(joined, encoding);
    const at = 4 + 32 * count;
    const list = Buffer.allocUnsafe(at + 8 + 4 * (nstrings + 1) + stringBytes);
    list.writeUInt32LE(count, 0);
    list.set(s.lengths.bytes(), 4);
    list.set(s.meta.bytes(), 4 + 12 * count);
    list.writeUInt32LE(wide ? 1 : 0, at);
    list.writeUInt32LE(nstrings, at + 4);
    const starts = new Uint32Array(nstrings + 1);
    const sameLength = stringBytes === joined.length;
    for (let k = 0, start = 0; k < nstrings; k++) {
      starts[k] = start;
      start += sameLength ? strings[k]!.length : wide ? 2 * strings[k]!.length : Buffer.byteLength(strings[k]!, 'utf8');
    }
    starts[nstrings] = stringBytes;
    list.set(new Uint8Array(starts.buffer), at + 8);
    list.write(joined, at + 8 + 4 * (nstrings + 1), encoding);
    const nlead = s.leadTexts.length;
    const lead = nlead === 0 ? null : { n: nlead, dir: Buffer.from(s.lead.bytes()), text: s.leadTexts.join('\u0000') };
    this.chunks.push({ lo: this.lo, docs: [], parts: '', nparts: this.nparts, nchars: Math.max(0, this.chars - 1), keys: keysAsTokens(keys), data: RAW, lead, count });
    this.raw.push(text);
    this.lists.push(list);
    s.lengths.n = 0;
    s.lead.n = 0;
    s.meta.n = 0;
    this.cwd = NONE;
    this.title = NONE;
    this.records = 0;
    this.nparts = 0;
    this.chars = 0;
    s.texts.length = 0;
    s.strings.length = 0;
    s.leadTexts.length = 0;
  }

  /** Ends the last chunk: the records handed over, packed but not yet encoded for storage. */
  finish(): PackedRecords {
    if (this.records > 0) this.flush();
    if (this.scratch) scratchPool.push(this.scratch);
    this.scratch = undefined;
    return { chunks: this.chunks, raw: this.raw, lists: this.lists, count: this.count };
  }
}

/** A record list as stored: compressed when large enough and its log's texts are (a search that reads one reads both). */
const storedList = (list: Buffer, compress: boolean): Buffer => (worthCompressing(list, compress) ? compressSync(list) : Buffer.concat([RAW, list]));

/**
 * Packed records encoded for storage here and now. On this thread rather than libuv's pool: a
 * log's text is small, and handing each chunk to the pool cost the main thread more than
 * compressing it (one zlib stream made, called back and resolved per chunk; measured with
 * callgrind on 10,000 records: 670 M instructions on the main thread with the pool, 657 M
 * without it, and 50 M fewer in all threads).
 */
export function encodeRecords(packed: PackedRecords, storage: TextStorage): PackedChunk[] {
  const compress = compressTexts(packed.raw, storage);
  packed.chunks.forEach((c, i) => (c.records = storedList(packed.lists[i]!, compress)));
  return encode(packed, storage);
}

/** Terminal records already made units, packed and encoded (the helper thread's way). */
export function packRecords(units: Unit[], fallbackAt: string | undefined, storage: TextStorage): PackedChunk[] {
  const packer = new RecordPacker(fallbackAt);
  for (const unit of units) packer.addUnit(unit);
  return encodeRecords(packer.finish(), storage);
}
