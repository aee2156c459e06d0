// Turns what a person types into SQL over a trigram FTS5 table. Trigrams make every substring of
// three or more characters findable (CJK, `PR1137`, `snake_case`); shorter terms (two-character
// CJK words, `go`) cannot use trigrams and are matched with instr() instead. Several words are
// first required together; the caller then widens to any of them so a natural-language query
// never silently returns nothing.

export type QueryTerms = { long: string[]; short: string[] };

/** Words of a query; a double-quoted phrase stays one term. */
export function queryTerms(query: string): QueryTerms {
  const terms: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(query); m; m = re.exec(query)) {
    const term = (m[1] ?? m[2] ?? '').trim();
    if (term !== '' && !terms.includes(term)) terms.push(term);
  }
  const long: string[] = [];
  const short: string[] = [];
  for (const t of terms) ([...t].length >= 3 ? long : short).push(t);
  return { long, short };
}

export const hasTerms = (t: QueryTerms): boolean => t.long.length + t.short.length > 0;

/** An FTS5 string literal: the term is matched as a phrase of its trigrams. */
const ftsPhrase = (term: string): string => `"${term.replace(/"/g, '""')}"`;

export type TermMode = 'all' | 'any';

/** The FTS5 MATCH expression for the long terms, or undefined when there are none. */
export function ftsExpression(terms: QueryTerms, mode: TermMode): string | undefined {
  if (terms.long.length === 0) return undefined;
  return terms.long.map(ftsPhrase).join(mode === 'all' ? ' AND ' : ' OR ');
}

/**
 * A SQL condition (with its parameters) on `column` for the short terms: every one of them in
 * `all` mode; in `any` mode, any of them (or'ed with the FTS match by the caller).
 */
export function shortTermsCondition(terms: QueryTerms, column: string, mode: TermMode): { sql: string; params: string[] } | undefined {
  if (terms.short.length === 0) return undefined;
  const one = `instr(lower(${column}), ?) > 0`;
  const sql = terms.short.map(() => one).join(mode === 'all' ? ' AND ' : ' OR ');
  return { sql: `(${sql})`, params: terms.short.map((t) => t.toLowerCase()) };
}

/** A one-line excerpt of `text` around the first query term it contains. */
export function snippet(text: string, terms: QueryTerms, width = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  let at = -1;
  let len = 0;
  for (const t of [...terms.long, ...terms.short]) {
    const i = lower.indexOf(t.toLowerCase());
    if (i !== -1 && (at === -1 || i < at)) {
      at = i;
      len = t.length;
    }
  }
  if (flat.length <= width) return flat;
  const from = at === -1 ? 0 : Math.max(0, Math.min(at - Math.floor((width - len) / 3), flat.length - width));
  const [start, end] = wholeWords(flat, from, from + (at === -1 ? width - 1 : width));
  return (start > 0 ? '…' : '') + flat.slice(start, end) + (end < flat.length ? '…' : '');
}

// Secrets are masked when the excerpt is printed; a token cut in half there no longer matches its
// rule, so an excerpt widens to the token-like word it would cut (up to the longest token a rule
// knows); prose in scripts without spaces is cut where it was.
const LONGEST_WORD = 260;
const TOKEN_CHAR = /[A-Za-z0-9_+/=.:@-]/;

function wholeWords(flat: string, start: number, end: number): [number, number] {
  let s = start;
  while (s > 0 && start - s < LONGEST_WORD && TOKEN_CHAR.test(flat[s - 1]!) && TOKEN_CHAR.test(flat[s]!)) s--;
  let e = end;
  while (e < flat.length && e - end < LONGEST_WORD && TOKEN_CHAR.test(flat[e]!) && TOKEN_CHAR.test(flat[e - 1]!)) e++;
  return [s, e];
}
