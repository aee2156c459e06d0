// Damaged lines in a terminal log (an editor's text, a write cut short by a crash) are blanked in
// place, after the whole file is copied aside. Blanking keeps every other byte where it was, so
// appends by a live shell or recorder (they only ever go to the end) can never be lost to it,
// readers skip blank lines, and cached offsets of valid entries stay true.
import { chmodSync, closeSync, copyFileSync, existsSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import { parseRawEntryLine } from './entry.js';
import { bufferLines } from './jsonl.js';

export type ByteRange = { start: number; end: number };

/** The bytes [from, to) of an open file. */
export function readBytes(fd: number, from: number, to: number): Buffer {
  const buf = Buffer.alloc(Math.max(0, to - from));
  let n = 0;
  while (n < buf.length) {
    const got = readSync(fd, buf, n, buf.length - n, from + n);
    if (got === 0) break;
    n += got;
  }
  return buf.subarray(0, n);
}

/**
 * Unreadable newline-terminated lines in `bytes` (file bytes starting at `base`). An unterminated
 * last line is not judged: its writer may still be writing it.
 */
export function unreadableLines(bytes: Buffer, base: number): ByteRange[] {
  const bad: ByteRange[] = [];
  for (const line of bufferLines(bytes, base)) {
    if (!line.terminated) break;
    const text = bytes.toString('utf8', line.start - base, line.end - base);
    if (text.trim() !== '' && !parseRawEntryLine(text)) bad.push({ start: line.start, end: line.end });
  }
  return bad;
}

function utcStamp(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/** Copies the log to `<name>.corrupt-<stamp>` (private, never overwriting an earlier copy). */
export function keepOriginal(path: string): string {
  let backup = `${path}.corrupt-${utcStamp()}`;
  for (let n = 2; existsSync(backup); n++) backup = `${path}.corrupt-${utcStamp()}-${n}`;
  copyFileSync(path, backup);
  chmodSync(backup, 0o600);
  return backup;
}

/** Overwrites each range with spaces, in place: the file keeps its size and every other byte. */
export function blankRanges(path: string, ranges: readonly ByteRange[], fd?: number): void {
  const own = fd === undefined ? openSync(path, 'r+') : fd;
  try {
    for (const r of ranges) writeSync(own, Buffer.alloc(r.end - r.start, 0x20), 0, r.end - r.start, r.start);
  } finally {
    if (fd === undefined) closeSync(own);
  }
}

export function salvageMessage(path: string, backup: string, lines: number): string {
  return `${path} held ${lines === 1 ? 'an unreadable line' : `${lines} unreadable lines`}: kept the original as ${basename(backup)} and blanked ${lines === 1 ? 'it' : 'them'} (every valid entry stays)`;
}

/**
 * Salvages every unreadable complete line of the log at `path`: the original is kept beside it,
 * the lines are blanked. Returns the backup and how many lines were blanked (none: no backup).
 */
export function salvageDamagedLines(path: string): { backup?: string; blanked: number } {
  // Opened for writing first: a log that cannot be changed gets no backup either, however often it is read.
  const fd = openSync(path, 'r+');
  try {
    const bad = unreadableLines(readBytes(fd, 0, fstatSync(fd).size), 0);
    if (bad.length === 0) return { blanked: 0 };
    const backup = keepOriginal(path);
    blankRanges(path, bad, fd);
    return { backup, blanked: bad.length };
  } finally {
    closeSync(fd);
  }
}
