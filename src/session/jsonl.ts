// The one JSONL reader: streams a file, splits on \n only (never on a lone \r or U+2028),
// tolerates CRLF, skips blank and NUL-padded lines, counts malformed ones, and ignores a last
// line that is still being written (no trailing newline and not parseable).
import { createReadStream } from 'node:fs';

export type JsonlStats = { malformed: number; nulPadded: number; partialTail: boolean };

export const newJsonlStats = (): JsonlStats => ({ malformed: 0, nulPadded: 0, partialTail: false });

/** One raw line → parsed value, or undefined (counted in `stats`). */
export function parseJsonlLine(line: string, stats: JsonlStats, isUnterminatedTail = false): unknown {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (text.trim() === '') return undefined;
  if (text.includes('\0')) {
    stats.nulPadded++;
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    if (isUnterminatedTail) stats.partialTail = true;
    else stats.malformed++;
    return undefined;
  }
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

/** Parsed records of a JSONL file, streamed. */
export async function* readJsonl(path: string, stats: JsonlStats = newJsonlStats(), opts: { start?: number } = {}): AsyncGenerator<unknown> {
  for await (const { line, terminated } of jsonlLines(path, opts)) {
    const value = parseJsonlLine(line, stats, !terminated);
    if (value !== undefined) yield value;
  }
}
