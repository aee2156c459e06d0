// Terminal records as the index keeps them: a log's records are packed into chunks like any
// units, but no row is written per record. A record chunk carries its records' metadata itself
// (one compact list, deflated) and its records' unit ids are computed from the chunk's id, so a
// build writes one row per chunk instead of one per record, and search reads a record's time,
// status, cwd and title from its chunk (docs/formats.md, "index.db"). Agent turns keep their
// unit rows: a grown transcript rewrites only the turns that changed, which needs their digests.
import { inflateRawSync } from 'node:zlib';
import { findSource } from '../memory/sources.js';
import type { Unit } from '../memory/types.js';
import { epochMs, keptText, statusOf, type StatusName } from './docs.js';

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

const STATUS_LETTER: Record<StatusName, string> = { success: 's', failure: 'f', unknown: 'u' };
const STATUS_OF_LETTER: Record<string, StatusName> = { s: 'success', f: 'failure', u: 'unknown' };

/**
 * One record as its chunk lists it: its index in the log, its time as written, cwd, status
 * letter, title, then the length of each part's kept text (-1: blank, not kept).
 */
export type RecordEntry = [index: number, atText: string | null, cwd: string | null, status: string, title: string, prompt: number, command: number, output: number];

/** A record's kept part texts (undefined: blank) and its entry, built in one pass over its parts. */
export function recordEntry(unit: Unit, texts: (string | undefined)[], fallbackAt?: string): RecordEntry {
  const parts = unit.parts;
  if (parts.length !== 3) throw new Error(`a terminal record has parts p1-p3, not ${parts.length}`);
  const lengths = [-1, -1, -1];
  for (let i = 0; i < 3; i++) {
    const p = parts[i]!;
    if (p.n !== i + 1 || p.kind !== RECORD_KINDS[i]) throw new Error(`a terminal record's p${i + 1} is its ${RECORD_KINDS[i]}`);
    const text = keptText(p.kind, p.text);
    texts[i] = text;
    if (text !== undefined) lengths[i] = text.length;
  }
  return [unit.index, unit.at ?? fallbackAt ?? null, unit.cwd ?? null, STATUS_LETTER[statusOf(unit)], unit.title, lengths[0]!, lengths[1]!, lengths[2]!];
}

/** A record's metadata as search reads it. */
export type RecordMeta = { idx: number; at: number | null; atText: string | null; cwd: string | null; status: StatusName; title: string };

export function recordMeta(e: RecordEntry): RecordMeta {
  return { idx: e[0], at: epochMs(e[1] ?? undefined), atText: e[1], cwd: e[2], status: STATUS_OF_LETTER[e[3]] ?? 'unknown', title: e[4] };
}

/** The stored list (one byte saying how: 0 as is, 1 deflated, then JSON). */
export function decodeRecords(blob: Buffer): RecordEntry[] {
  const body = blob.subarray(1);
  return JSON.parse((blob[0] === 1 ? inflateRawSync(body) : body).toString('utf8')) as RecordEntry[];
}
