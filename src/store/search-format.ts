// How hits print: `full` (ref, time, title, snippet), `refs` (one ref a line, for scripts and
// `xargs sivtr show`), `json` (cli.md §6) and `timeline` (oldest first, one line each).
import type { Hit, SearchResult } from './search.js';

export type SearchFormat = 'full' | 'refs' | 'json' | 'timeline';

function localTime(iso: string | null): string {
  if (!iso) return '????-??-?? ??:??';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso.slice(0, 16);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

function oneLine(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

function jsonHit(hit: Hit): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ref: hit.ref,
    source: hit.source,
    title: hit.title,
    snippet: hit.snippet,
    at: hit.at,
    session: hit.session,
    index: hit.index,
    part: hit.part,
    kind: hit.kind,
    status: hit.status,
    all_terms: hit.all_terms,
  };
  if (hit.cwd) out.cwd = hit.cwd;
  return out;
}

export function formatHits(result: SearchResult, format: SearchFormat, colour: boolean): string {
  const { hits } = result;
  switch (format) {
    case 'json':
      return JSON.stringify({ hits: hits.map(jsonHit), total: result.total, folded: result.folded }) + '\n';
    case 'refs':
      return hits.map((h) => h.ref + '\n').join('');
    case 'timeline':
      return [...hits]
        .sort((a, b) => (a.at ? Date.parse(a.at) : 0) - (b.at ? Date.parse(b.at) : 0) || a.ref.localeCompare(b.ref))
        .map((h) => `${localTime(h.at)}  ${h.ref}  ${oneLine(h.snippet || h.title)}\n`)
        .join('');
    case 'full': {
      const bold = (s: string) => (colour ? `\x1b[1m${s}\x1b[0m` : s);
      const dim = (s: string) => (colour ? `\x1b[2m${s}\x1b[0m` : s);
      const red = (s: string) => (colour ? `\x1b[31m${s}\x1b[0m` : s);
      return hits
        .map((h) => {
          const status = h.status === 'failure' ? `  ${red('failed')}` : '';
          const head = `${bold(h.ref)}  ${dim(localTime(h.at))}  ${oneLine(h.title, 80)}${status}`;
          return `${head}\n    ${h.snippet}\n`;
        })
        .join('\n');
    }
  }
}
