// Search as you type: every word of the query must occur in the entry (case-insensitively);
// the list keeps its order, newest first. A query that only grew narrows the last result
// instead of the whole list, so a keystroke at 10,000 entries touches only what still matches.
import type { PickEntry } from './types.js';

export const queryWords = (query: string): string[] => query.toLowerCase().split(/\s+/).filter(Boolean);

/**
 * The entries of `from[start, end)` that hold every word, in their order, added to `out`. One
 * plain loop rather than a callback per entry: V8 optimises a loop while it runs, where a
 * callback ran unoptimised through the first scan of 10,000 entries (most of the first key's time).
 */
function select(from: readonly PickEntry[], words: readonly string[], start: number, end: number, out: PickEntry[]): PickEntry[] {
  const n = words.length;
  for (let i = start; i < end; i++) {
    const entry = from[i]!;
    const hay = entry.haystack;
    let k = 0;
    while (k < n && hay.includes(words[k]!)) k++;
    if (k === n) out.push(entry);
  }
  return out;
}

export class Filter {
  private lastQuery = '';
  private lastResult: readonly PickEntry[];

  constructor(private all: readonly PickEntry[]) {
    this.lastResult = all;
  }

  /** The whole list changed (entries arrived later): the next query starts from it. */
  reset(all: readonly PickEntry[]): void {
    this.all = all;
    this.lastQuery = '\u0000';
  }

  run(query: string): readonly PickEntry[] {
    const words = queryWords(query);
    const narrows = this.lastQuery !== '\u0000' && query.startsWith(this.lastQuery) && queryWords(this.lastQuery).length > 0;
    const from = narrows ? this.lastResult : this.all;
    const result = words.length === 0 ? this.all : select(from, words, 0, from.length, []);
    this.lastQuery = query;
    this.lastResult = result;
    return result;
  }
}

/** A word no text holds (text has no NUL): the warming pass runs the search without keeping anything. */
const NOTHING = ['\u0000'];

/**
 * Reads every entry's haystack a slice at a time between events, so the first letter typed
 * does not pay for lower-casing 10,000 outputs; it reads them through the search itself, so the
 * first letter also finds that loop compiled. Returns what stops it.
 */
export function warmHaystacks(entries: readonly PickEntry[], slice = 500): () => void {
  let i = 0;
  let timer: NodeJS.Immediate | undefined;
  const step = (): void => {
    const end = Math.min(entries.length, i + slice);
    select(entries, NOTHING, i, end, []);
    i = end;
    timer = i < entries.length ? setImmediate(step) : undefined;
  };
  timer = setImmediate(step);
  return () => {
    if (timer) clearImmediate(timer);
  };
}
