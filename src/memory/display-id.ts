// Display ids: the first 8 characters of an id, longer where needed to stay unique.
export function displayIds(ids: readonly string[], min = 8): Map<string, string> {
  const out = new Map<string, string>();
  const sorted = [...new Set(ids)].sort();
  sorted.forEach((id, i) => {
    let len = Math.min(min, id.length);
    for (const other of [sorted[i - 1], sorted[i + 1]]) {
      if (other === undefined) continue;
      let common = 0;
      while (common < id.length && id[common] === other[common]) common++;
      len = Math.max(len, Math.min(id.length, common + 1));
    }
    out.set(id, id.slice(0, len));
  });
  return out;
}

/** Ids matching a key exactly or by prefix; an exact match wins over prefixes. */
export function matchId<T extends { id: string }>(items: readonly T[], key: string): T[] {
  const exact = items.filter((i) => i.id === key);
  if (exact.length > 0) return exact;
  return items.filter((i) => i.id.startsWith(key));
}
