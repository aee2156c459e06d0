// Search as you type: every word of the query must occur in the entry (case-insensitively);
// the list keeps its order, newest first. A query that only grew narrows the last result
// instead of the whole list, so a keystroke at 10,000 entries touches only what still matches.
import type { PickEntry } from './types.js';

export const queryWords = (query: string): string[] => query.toLowerCase().split(/\s+/).filter(Boolean);

export function matches(entry: PickEntry, words: readonly string[]): boolean {
  const hay = entry.haystack;
  for (const w of words) if (!hay.includes(w)) return false;
  return true;
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
    const result = words.length === 0 ? this.all : from.filter((e) => matches(e, words));
    this.lastQuery = query;
    this.lastResult = result;
    return result;
  }
}

/**
 * Reads every entry's haystack a slice at a time between events, so the first letter typed
 * does not pay for lower-casing 10,000 outputs. Returns what stops it.
 */
export function warmHaystacks(entries: readonly PickEntry[], slice = 500): () => void {
  let i = 0;
  let timer: NodeJS.Immediate | undefined;
  const step = (): void => {
    const end = Math.min(entries.length, i + slice);
    for (; i < end; i++) void entries[i]!.haystack;
    timer = i < entries.length ? setImmediate(step) : undefined;
  };
  timer = setImmediate(step);
  return () => {
    if (timer) clearImmediate(timer);
  };
}
