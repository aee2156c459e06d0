// What `sivtr run` and `sivtr pipe` keep of a command's output: the raw bytes of its start and its
// end, so a build log of any size costs bounded memory and a bounded history row, and a plain log
// costs no more than a copy. The kept bytes are rendered by the one text model when the command ends
// (docs/capture.md "sivtr run").
import type { NewHistoryEntry } from '../session/history-db.js';
import { renderTerminalText, type RenderedText } from '../text/terminal-text.js';

/** An explicit capture keeps more than the shell recorder: its first 1 MiB and last 3 MiB. */
export const KEPT_HEAD_BYTES = 1024 * 1024;
export const KEPT_TAIL_BYTES = 3 * 1024 * 1024;

export type KeptOutputOptions = { headBytes?: number; tailBytes?: number };

/** The output as raw text when all of it was kept (the store renders it), else head and tail rendered. */
export type Kept = { raw: string } | { rendered: RenderedText };

/** A capture's output as history stores it: raw when all of it was kept, else already rendered. */
export function keptFields(kept: Kept): Pick<NewHistoryEntry, 'output' | 'outputAnsi'> {
  return 'raw' in kept ? { output: kept.raw } : { output: kept.rendered.plain, outputAnsi: kept.rendered.ansi };
}

export class KeptOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headUsed = 0;
  private tail: Buffer[] = [];
  private tailUsed = 0;
  private dropped = 0;

  constructor(options: KeptOutputOptions = {}) {
    this.headLimit = options.headBytes ?? KEPT_HEAD_BYTES;
    this.tailLimit = options.tailBytes ?? KEPT_TAIL_BYTES;
  }

  write(bytes: Buffer): void {
    let rest = bytes;
    if (this.headUsed < this.headLimit) {
      const take = Math.min(rest.length, this.headLimit - this.headUsed);
      this.head.push(Buffer.from(rest.subarray(0, take))); // a copy: the caller's buffer may be reused
      this.headUsed += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(Buffer.from(rest));
    this.tailUsed += rest.length;
    // Whole chunks leave the front; the kept tail is cut to its limit only at the end.
    let first = 0;
    while (first < this.tail.length && this.tailUsed - this.tail[first]!.length >= this.tailLimit) {
      this.tailUsed -= this.tail[first]!.length;
      this.dropped += this.tail[first]!.length;
      first++;
    }
    if (first > 0) this.tail = this.tail.slice(first);
  }

  end(): Kept {
    const head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    let dropped = this.dropped;
    if (tail.length > this.tailLimit) {
      dropped += tail.length - this.tailLimit;
      tail = tail.subarray(tail.length - this.tailLimit);
    }
    if (dropped === 0) return { raw: Buffer.concat([head, tail]).toString('utf8') };
    // Cut on whole lines (a line model must not start inside a line), or on a character boundary
    // when a line is longer than what is kept.
    const headEnd = head.lastIndexOf(0x0a) >= 0 ? head.lastIndexOf(0x0a) + 1 : charBoundaryBefore(head, head.length);
    const nl = tail.indexOf(0x0a);
    const tailStart = nl >= 0 && nl + 1 < tail.length ? nl + 1 : charBoundaryAfter(tail, 0);
    const omitted = dropped + (head.length - headEnd) + tailStart;
    const first = renderTerminalText(head.subarray(0, headEnd).toString('utf8'));
    const last = renderTerminalText(tail.subarray(tailStart).toString('utf8'));
    const note = `[… ${omitted} bytes omitted …]`;
    const join = (a: string, b: string): string => [a, note, b].filter((s) => s !== '').join('\n');
    return { rendered: { plain: join(first.plain, last.plain), ansi: join(first.ansi, last.ansi) } };
  }
}

/** The end of the last whole UTF-8 character in `bytes`: a sequence cut short at the end is left out. */
function charBoundaryBefore(bytes: Buffer, at: number): number {
  let start = at - 1;
  while (start > 0 && (bytes[start]! & 0xc0) === 0x80) start--;
  if (start < 0) return 0;
  const lead = bytes[start]!;
  const size = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + size <= at ? at : start;
}

/** The smallest index ≥ at that does not split a UTF-8 sequence. */
function charBoundaryAfter(bytes: Buffer, at: number): number {
  let i = at;
  while (i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i++;
  return i;
}
