// Recency selectors: `1` (or nothing) = newest, `2` = the one before, `A..B` = a range.
import { SivtrError } from '../errors.js';
import { count } from '../plural.js';

export type Recency = { from: number; to: number }; // 1-based recency, from <= to

const POSITIVE = /^[1-9]\d*$/;

export function parseRecency(text: string | undefined): Recency {
  if (text === undefined || text === '') return { from: 1, to: 1 };
  const range = text.split('..');
  if (range.length === 1 && POSITIVE.test(text)) {
    const n = Number(text);
    return { from: n, to: n };
  }
  if (range.length === 2 && POSITIVE.test(range[0]!) && POSITIVE.test(range[1]!)) {
    const a = Number(range[0]);
    const b = Number(range[1]);
    return { from: Math.min(a, b), to: Math.max(a, b) };
  }
  throw new SivtrError(`invalid selector "${text}"`, 'use N (1 = newest, 2 = the one before) or a range A..B such as 2..4');
}

/** Picks items by recency from a list ordered oldest → newest; the result is oldest first. */
export function selectRecent<T>(items: readonly T[], recency: Recency, noun = 'command'): T[] {
  if (items.length === 0) throw new SivtrError(`no ${noun} recorded yet`, 'run one first, then try again');
  if (recency.to > items.length) {
    throw new SivtrError(`only ${count(items.length, noun)} recorded`, 'try a smaller selector');
  }
  return items.slice(items.length - recency.to, items.length - recency.from + 1);
}
