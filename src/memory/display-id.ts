// Display ids: the first 8 characters of an id, longer where needed to stay unique, plus a
// little headroom so a session that appears later with a similar id (time-ordered ids such as
// UUIDv7 share long prefixes) does not make a printed ref ambiguous.
export const DISPLAY_MIN = 8;
/** Characters kept beyond the shortest unique prefix when that prefix is longer than the minimum. */
export const DISPLAY_HEADROOM = 2;

export function displayIds(ids: readonly string[], min = DISPLAY_MIN): Map<string, string> {
  const out = new Map<string, string>();
  const sorted = [...new Set(ids)].sort();
  sorted.forEach((id, i) => out.set(id, displayIdBetween(id, sorted[i - 1], sorted[i + 1], min)));
  return out;
}

/**
 * The display id of `id` among ids whose sorted order puts `before` and `after` next to it
 * (undefined: none), as displayIds gives it: it reads nothing else.
 */
export function displayIdBetween(id: string, before: string | undefined, after: string | undefined, min = DISPLAY_MIN): string {
  let unique = 1;
  for (const other of [before, after]) {
    if (other === undefined) continue;
    let common = 0;
    while (common < id.length && id[common] === other[common]) common++;
    unique = Math.max(unique, common + 1);
  }
  let len = Math.max(min, unique + DISPLAY_HEADROOM);
  // A separator carries no headroom (every UUID has its dash there): take the next character too.
  if (len < id.length && /[-_.]/.test(id[len - 1]!)) len++;
  return id.slice(0, len);
}

/** Ids matching a key exactly or by prefix; an exact match wins over prefixes. */
export function matchId<T extends { id: string }>(items: readonly T[], key: string): T[] {
  const exact = items.filter((i) => i.id === key);
  if (exact.length > 0) return exact;
  return items.filter((i) => i.id.startsWith(key));
}
