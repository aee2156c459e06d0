// The keys that edit the query or move the selection, and what they do to the list. Both key
// readers use this one code: the main bundle's (early-keys.ts), from the first frame until Ink
// has loaded, and Ink's screen (app.ts) after it, so a key means the same whoever reads it.
import type { Filter } from './filter.js';
import type { PickEntry } from './types.js';

/** The part of the screen's state these keys change. */
export type ListState = {
  shown: readonly PickEntry[];
  query: string;
  cursor: number;
  top: number;
  scroll: number;
};

/** Ink's key flags, those these keys are told by. */
export type KeyFlags = { upArrow?: boolean; downArrow?: boolean; backspace?: boolean; delete?: boolean; ctrl?: boolean; meta?: boolean };

/** Selects entry `index` of the list (kept within it), scrolling the list to keep it in view. */
export function moveTo(s: ListState, index: number, listRows: number): void {
  const i = Math.max(0, Math.min(index, s.shown.length - 1));
  s.cursor = i;
  s.scroll = 0;
  if (i < s.top) s.top = i;
  else if (i >= s.top + listRows) s.top = i - listRows + 1;
}

/** The list for a new query, from its top. */
export function search(s: ListState, filter: Filter, next: string): void {
  s.query = next;
  s.shown = filter.run(next);
  s.top = 0;
  s.cursor = 0;
  s.scroll = 0;
}

/**
 * Applies `input` (with Ink's `key` flags) when it is text, Backspace, Ctrl-U, Up/Down or
 * Ctrl-P/Ctrl-N; false for any other key, which is left to the caller.
 */
export function listKey(s: ListState, filter: Filter, input: string, key: KeyFlags, listRows: number): boolean {
  if (key.upArrow || (key.ctrl && input === 'p')) return moveTo(s, s.cursor - 1, listRows), true;
  if (key.downArrow || (key.ctrl && input === 'n')) return moveTo(s, s.cursor + 1, listRows), true;
  if (key.ctrl && input === 'u') return search(s, filter, ''), true;
  if (key.backspace || key.delete) return search(s, filter, [...s.query].slice(0, -1).join('')), true;
  if (key.ctrl || key.meta || input === '') return false;
  // Typed (or pasted) text goes into the query; control characters do not.
  const typed = input.replace(/[\x00-\x1f\x7f]/g, '');
  if (typed !== '') search(s, filter, s.query + typed);
  return true;
}
