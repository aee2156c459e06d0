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
  if (at === -1) return flat.slice(0, width - 1) + '…';
  const start = Math.max(0, Math.min(at - Math.floor((width - len) / 3), flat.length - width));
  const body = flat.slice(start, start + width);
  return (start > 0 ? '…' : '') + body + (start + width < flat.length ? '…' : '');
}
