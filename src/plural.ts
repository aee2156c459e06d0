// Counted nouns in messages: `1 line`, `3 lines`, `3 replies` — never `reply(s)`.
const IRREGULAR: Record<string, string> = { entry: 'entries', reply: 'replies', child: 'children' };

export function plural(noun: string): string {
  if (IRREGULAR[noun]) return IRREGULAR[noun];
  if (/[^aeiou]y$/.test(noun)) return noun.slice(0, -1) + 'ies';
  if (/(s|x|z|ch|sh)$/.test(noun)) return noun + 'es';
  return noun + 's';
}

/** `count(3, 'reply')` → `3 replies`; the noun may be a phrase whose last word is counted. */
export function count(n: number, noun: string): string {
  if (n === 1) return `1 ${noun}`;
  const words = noun.split(' ');
  words[words.length - 1] = plural(words[words.length - 1]!);
  return `${n} ${words.join(' ')}`;
}
