// "Did you mean …?" for usage errors: the known word closest to what was typed, when it is close
// enough to be a typo (a few edits, or a prefix) rather than a different word.
import { UsageError } from '../errors.js';

function distance(a: string, b: string): number {
  // Optimal string alignment: a swapped pair (`otu` → `out`) costs one edit, as a typist sees it.
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate the user most likely meant, or undefined when none is close. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const score = c.startsWith(typed) && typed.length >= 2 ? 0.5 : distance(typed, c.toLowerCase());
    if (score < bestScore) [best, bestScore] = [c, score];
  }
  const allowed = Math.max(1, Math.floor(typed.length / 3));
  return bestScore <= allowed ? best : undefined;
}

export type HintOptions = { display?: (c: string) => string; otherwise?: string };

/** `did you mean out?` when one candidate is near, else what is valid. */
export function hint(word: string, candidates: readonly string[], opts: HintOptions = {}): string {
  const display = opts.display ?? ((c: string) => c);
  const near = closest(word, candidates);
  if (near !== undefined) return `did you mean ${display(near)}?`;
  return opts.otherwise ?? `use ${orList(candidates.map(display))}`;
}

export function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** A usage error for a word that is not one of `candidates`: `unknown mode "otu" — did you mean out? …`. */
export function unknownWord(kind: string, word: string, candidates: readonly string[], opts?: HintOptions): UsageError {
  return new UsageError(`unknown ${kind} "${word}"`, hint(word, candidates, opts));
}
