// The one JSONL line reader of sivtr: terminal logs, agent transcripts, imports and format
// detection all split and parse lines here, with one rule:
// - a line ends at \n only (never at a lone \r or U+2028, which JSON strings may hold);
// - one trailing \r is dropped (a file written with CRLF);
// - a blank line is skipped and not counted;
// - a line holding NUL (the zero padding a crash leaves in a file) is skipped and counted;
// - a line that does not parse is counted as malformed, except the last line of a file when it
//   has no newline yet: a writer may still be finishing it, so it is only flagged (`partialTail`).
// Whether a flagged tail is worth a warning is the caller's choice; everything else is not.
import { isAscii } from 'node:buffer';
import { closeSync, createReadStream, openSync, readFileSync, readSync } from 'node:fs';

export type JsonlStats = { malformed: number; nulPadded: number; partialTail: boolean };

export const newJsonlStats = (): JsonlStats => ({ malformed: 0, nulPadded: 0, partialTail: false });

/** Lines the rule skipped that a reader would call unreadable (a partial tail included). */
export const skippedLines = (stats: JsonlStats): number => stats.malformed + stats.nulPadded + (stats.partialTail ? 1 : 0);

/**
 * One line (without its \n) → parsed value, or undefined (counted in `stats`). The line is
 * parsed first and looked at only when that fails: no blank line parses, nor one holding NUL
 * (JSON allows no raw control character), and a trailing \r is JSON whitespace. Checking every
 * line for NUL first was a pass over every byte of a transcript.
 */
export function parseJsonlLine(line: string, stats: JsonlStats = newJsonlStats(), isUnterminatedTail = false): unknown {
  try {
    return JSON.parse(line);
  } catch {
    // classified below
  }
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (text.trim() === '') return undefined;
  if (text.includes('\0')) stats.nulPadded++;
  else if (isUnterminatedTail) stats.partialTail = true;
  else stats.malformed++;
  return undefined;
}

/** True for a line the rule skips without a word: blank, or blank once the \r is gone. */
const isBlank = (line: string): boolean => line.trim() === '';

export type TextLine = { line: string; terminated: boolean };

/**
 * The lines of text held in memory. `cutHead`: the text starts mid-line (a window onto the end
 * of a file), so its first line is a fragment and is dropped. `cutTail`: the text stops before
 * the file does, so an unterminated last line is a fragment and is dropped too.
 */
export function* textLines(text: string, opts: { cutHead?: boolean; cutTail?: boolean } = {}): Generator<TextLine> {
  let from = 0;
  if (opts.cutHead) {
    const nl = text.indexOf('\n');
    if (nl === -1) return;
    from = nl + 1;
  }
  for (;;) {
    const nl = text.indexOf('\n', from);
    if (nl === -1) break;
    yield { line: text.slice(from, nl), terminated: true };
    from = nl + 1;
  }
  if (from < text.length && !opts.cutTail) yield { line: text.slice(from), terminated: false };
}

/** Parsed records of text held in memory (see `textLines` for the cuts). */
export function textRecords(text: string, stats: JsonlStats = newJsonlStats(), opts: { cutHead?: boolean; cutTail?: boolean } = {}): unknown[] {
  const out: unknown[] = [];
  for (const { line, terminated } of textLines(text, opts)) {
    const value = parseJsonlLine(line, stats, !terminated);
    if (value !== undefined) out.push(value);
  }
  return out;
}

/** The first line of a head that the rule does not skip (blank or NUL-padded), raw and parsed. */
export function firstLine(head: string): { line: string; value: unknown } | undefined {
  for (const { line, terminated } of textLines(head)) {
    if (isBlank(line) || line.includes('\0')) continue;
    return { line: line.endsWith('\r') ? line.slice(0, -1) : line, value: parseJsonlLine(line, newJsonlStats(), !terminated) };
  }
  return undefined;
}

/** The first record of a head, or undefined when its first line is not JSON. */
export const firstRecord = (head: string): unknown => firstLine(head)?.value;

export type ByteLine = { start: number; end: number; terminated: boolean };

/** Byte ranges [start, end) of the lines of `buf` (without their \n), offset by `base`. */
export function* bufferLines(buf: Buffer, base = 0): Generator<ByteLine> {
  let from = 0;
  for (;;) {
    const nl = buf.indexOf(10, from);
    if (nl === -1) break;
    yield { start: base + from, end: base + nl, terminated: true };
    from = nl + 1;
  }
  if (from < buf.length) yield { start: base + from, end: base + buf.length, terminated: false };
}

/** Up to `max` bytes of a file from `start`. */
export function readBytes(path: string, start: number, max: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(Math.max(0, max));
    let got = 0;
    while (got < max) {
      const n = readSync(fd, buf, got, max - got, start + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** Up to `max` bytes from `start` of a file, as text (a cut multi-byte character is harmless). */
export const readRange = (path: string, start: number, max: number): string => readBytes(path, start, max).toString('utf8');

/**
 * Records of the first `max` bytes; a line the window cuts is dropped. When not even one line
 * fits (a first prompt with a pasted image), up to 16× more is read once.
 */
export function headRecords(path: string, max: number, size?: number): unknown[] {
  let text = readRange(path, 0, max);
  if (!text.includes('\n') && (size === undefined || size > max)) {
    max *= 16;
    text = readRange(path, 0, max);
  }
  return textRecords(text, newJsonlStats(), { cutTail: size === undefined || size > max });
}

/** Records of the last `max` bytes of a file of `size` bytes; a line the window cuts is dropped. */
export function tailRecords(path: string, size: number, max: number): unknown[] {
  const start = Math.max(0, size - max);
  return textRecords(readRange(path, start, size - start), newJsonlStats(), { cutHead: start > 0 });
}

/** Every record of a file read at once (small files: indexes, titles). */
export function readJsonlSync(path: string, stats: JsonlStats = newJsonlStats()): unknown[] {
  return textRecords(readFileSync(path, 'utf8'), stats);
}

/** Raw lines of a file, streamed; the last element may be an unterminated tail (flagged). */
export async function* jsonlLines(path: string, opts: { start?: number } = {}): AsyncGenerator<{ line: string; terminated: boolean; end: number }> {
  const stream = createReadStream(path, { highWaterMark: 1 << 20, start: opts.start ?? 0 });
  let pending: Buffer[] = [];
  let offset = opts.start ?? 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let from = 0;
    let nl = chunk.indexOf(10, from);
    while (nl !== -1) {
      let line: string;
      if (pending.length > 0) {
        pending.push(chunk.subarray(from, nl));
        line = Buffer.concat(pending).toString('utf8');
        pending = [];
      } else {
        line = chunk.toString('utf8', from, nl);
      }
      yield { line, terminated: true, end: offset + nl + 1 };
      from = nl + 1;
      nl = chunk.indexOf(10, from);
    }
    if (from < chunk.length) pending.push(chunk.subarray(from));
    offset += chunk.length;
  }
  if (pending.length > 0) yield { line: Buffer.concat(pending).toString('utf8'), terminated: false, end: offset };
}

/** Bytes a synchronous read takes at once. */
const READ_BYTES = 1 << 20;
/** Bytes of whole lines decoded into one string at most (beneath V8's large-object size). */
const DECODE_BYTES = 64 * 1024;
/**
 * Read buffers given back by finished readers: a fresh 1 MiB buffer per file was fresh pages
 * for every file of a cold build. Each reader takes its own, so readers may interleave.
 */
const readBuffers: Buffer[] = [];

/** A test over decoded text, as a RegExp's: whether it finds something anywhere in `text`. */
export type TextHint = { test(text: string): boolean };

/**
 * `jsonlLines` read synchronously, for a caller that handles every line at once (the index reading
 * a terminal log): no promise per line, which cost more than parsing a short record.
 * `hinted`: whether `hint` (a regex, or a test like one) matches the line (undefined without one).
 * It is tested once over each window of lines decoded together, and line by line only in a window
 * where it matched, so lines it rarely matches cost one test per window. What it finds in no
 * window it must find in no line of it: a regex without anchor, lookaround or global flag.
 */
export function* jsonlLinesSync(path: string, opts: { start?: number; hint?: TextHint } = {}): Generator<{ line: string; terminated: boolean; end: number; hinted: boolean | undefined }> {
  const hint = opts.hint;
  for (const w of jsonlWindowsSync(path, opts)) {
    if (!w.lines) {
      yield { line: w.text, terminated: w.terminated, end: w.end, hinted: w.hinted };
      continue;
    }
    // Where the text has as many characters as bytes, each byte became one character and
    // offsets agree; elsewhere each line's end is found in the bytes.
    const { text, bytes, from } = w;
    const ascii = text.length === w.end - w.offset - from;
    const base = w.offset + from;
    let at = 0;
    let byte = from;
    while (at < text.length) {
      const nl = text.indexOf('\n', at);
      const end = ascii ? base + nl + 1 : w.offset + (byte = bytes.indexOf(10, byte) + 1);
      const line = text.slice(at, nl);
      yield { line, terminated: true, end, hinted: w.hinted && hint!.test(line) };
      at = nl + 1;
    }
  }
}

/**
 * What jsonlWindowsSync hands over: whole lines decoded together (`lines`: `text` is one or
 * more lines, each followed by its \n, read from `bytes` at `from`, which lie at `offset` in the
 * file), or one line without its \n (a line carried across two reads, or an unterminated last
 * line). `end`: the file offset after it; `hinted`: whether the hint matched it anywhere.
 */
export type JsonlWindow =
  | { lines: true; text: string; terminated: true; end: number; hinted: boolean | undefined; bytes: Buffer; from: number; offset: number }
  | { lines: false; text: string; terminated: boolean; end: number; hinted: boolean | undefined };

/**
 * The lines of a file as jsonlLinesSync reads them, a window of whole lines at a time (the
 * same rule: a window's lines are split at \n by the caller). The window's bytes are valid
 * only until the next one is asked for (the read buffer is reused).
 */
export function* jsonlWindowsSync(path: string, opts: { start?: number; hint?: TextHint } = {}): Generator<JsonlWindow> {
  const hint = opts.hint;
  const fd = openSync(path, 'r');
  const chunk = readBuffers.pop() ?? Buffer.allocUnsafe(READ_BYTES);
  try {
    let pending: Buffer[] = [];
    let offset = opts.start ?? 0;
    for (;;) {
      const got = readSync(fd, chunk, 0, chunk.length, offset);
      if (got === 0) break;
      const buf = chunk.subarray(0, got);
      let from = 0;
      if (pending.length > 0) {
        const nl = buf.indexOf(10);
        if (nl !== -1) {
          pending.push(buf.subarray(0, nl));
          const line = Buffer.concat(pending).toString('utf8');
          pending = [];
          yield { lines: false, text: line, terminated: true, end: offset + nl + 1, hinted: hint?.test(line) };
          from = nl + 1;
        }
      }
      const last = pending.length > 0 ? -1 : buf.lastIndexOf(10);
      while (last >= from) {
        // The whole lines of a window of this read decoded at once (one call instead of one per
        // line): a newline byte is a newline character and never part of another, so the text
        // splits into the very lines the bytes do. A window ends at the last newline within
        // DECODE_BYTES (or at the end of a longer line): a string of the whole read (1 MiB) was
        // allocated outside V8's young generation, on fresh pages each time (~250 page faults a read).
        let end = last - from <= DECODE_BYTES ? last : buf.lastIndexOf(10, from + DECODE_BYTES);
        if (end < from) end = buf.indexOf(10, from + DECODE_BYTES);
        // ASCII read as Latin-1 is the same string, copied instead of decoded (most terminal logs).
        const text = buf.toString(isAscii(buf.subarray(from, end + 1)) ? 'latin1' : 'utf8', from, end + 1);
        yield { lines: true, text, terminated: true, end: offset + end + 1, hinted: hint?.test(text), bytes: buf, from, offset };
        from = end + 1;
      }
      // The buffer is reused: a fragment carried to the next read is copied out of it.
      if (from < got) pending.push(Buffer.from(buf.subarray(from)));
      offset += got;
    }
    if (pending.length > 0) {
      const line = Buffer.concat(pending).toString('utf8');
      yield { lines: false, text: line, terminated: false, end: offset, hinted: hint?.test(line) };
    }
  } finally {
    closeSync(fd);
    if (readBuffers.length < 4) readBuffers.push(chunk);
  }
}

/**
 * The values of a window of whole lines of objects (each line followed by its \n) parsed in one
 * call, one per line, when that is certain to give what parsing each line alone gives; undefined
 * otherwise (the caller parses them one by one). One call instead of one per line: a terminal
 * log's lines are short, and the calls, their line strings and the optimised code made for them
 * were a fifth of a cold build's instructions.
 *
 * Why the values are the lines': the lines are joined by "\n," inside one array. A raw newline
 * cannot be inside a JSON string, so each comma added is outside every string; it is followed by
 * the next line's first character, which must be "{", and after a comma an object wants a key
 * (a string), so each comma added separates the elements of an array. Without nested arrays
 * (no "[" in the text, or no value holding an object or array) that array is the outer one, so
 * every line is a whole element; as many elements as lines means no line held more than one.
 */
export function parseWholeLines(text: string): unknown[] | undefined {
  let lines = 0;
  for (let at = 0; at < text.length; lines++) {
    if (text.charCodeAt(at) !== 0x7b) return undefined;
    at = text.indexOf('\n', at) + 1;
  }
  let values: unknown;
  try {
    values = JSON.parse(`[${text.slice(0, -1).replaceAll('\n', '\n,')}]`);
  } catch {
    return undefined;
  }
  if (!Array.isArray(values) || values.length !== lines) return undefined;
  if (text.includes('[')) {
    for (const value of values) {
      for (const key in value) {
        const v = (value as Record<string, unknown>)[key];
        if (typeof v === 'object' && v !== null) return undefined;
      }
    }
  }
  return values;
}

/**
 * Parsed records of a JSONL file, one at a time. The file is read synchronously (in 1 MiB reads):
 * a stream's reads wait on libuv's thread pool, where the index compresses its chunks, and cost more
 * per record than parsing a short one.
 */
export async function* readJsonl(path: string, stats: JsonlStats = newJsonlStats(), opts: { start?: number } = {}): AsyncGenerator<unknown> {
  for (const { line, terminated } of jsonlLinesSync(path, opts)) {
    const value = parseJsonlLine(line, stats, !terminated);
    if (value !== undefined) yield value;
  }
}

/** Parsed records of a JSONL file with their 1-based line numbers (blank lines counted), read as `readJsonl` reads. */
export async function* readJsonlNumbered(path: string, stats: JsonlStats = newJsonlStats()): AsyncGenerator<{ value: unknown; line: number }> {
  let n = 0;
  for (const { line, terminated } of jsonlLinesSync(path)) {
    n++;
    const value = parseJsonlLine(line, stats, !terminated);
    if (value !== undefined) yield { value, line: n };
  }
}
