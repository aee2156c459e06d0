// How hits print: `full` (ref, time, title, snippet), `refs` (one ref a line, for scripts and
// `xargs sivtr show`), `json` (hits with their fields, the total and how many were folded) and
// `timeline` (oldest first, one line each).
import type { Hit, SearchResult } from '../store/search.js';
import { localTime, oneLine, styles } from './output.js';

export type SearchFormat = 'full' | 'refs' | 'json' | 'timeline';

const NO_TIME = '????-??-?? ??:??';

function jsonHit(hit: Hit): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ref: hit.fullRef,
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
    open: hit.fullOpen,
  };
  if (hit.cwd) out.cwd = hit.cwd;
  return out;
}

export function formatHits(result: SearchResult, format: SearchFormat, colour: boolean): string {
  const { hits } = result;
  switch (format) {
    case 'json':
      return JSON.stringify({ hits: hits.map(jsonHit), total: result.total, ...(result.totalAtLeast ? { total_at_least: true } : {}), folded: result.folded, ...(result.coverage ? { coverage: result.coverage } : {}) }) + '\n';
    case 'refs':
      return hits.map((h) => h.fullRef + '\n').join('');
    case 'timeline':
      return [...hits]
        .sort((a, b) => (a.at ? Date.parse(a.at) : 0) - (b.at ? Date.parse(b.at) : 0) || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0))
        .map((h) => `${localTime(h.at, NO_TIME)}  ${h.ref}  ${oneLine(h.snippet || h.title)}\n`)
        .join('');
    case 'full': {
      const { bold, dim, red } = styles(colour);
      return hits
        .map((h) => {
          const status = h.status === 'failure' ? `  ${red('failed')}` : '';
          const head = `${bold(h.ref)}  ${dim(localTime(h.at, NO_TIME))}  ${oneLine(h.title, 80)}${status}`;
          return `${head}\n    ${h.snippet}\n    ${dim(h.open)}\n`;
        })
        .join('\n');
    }
  }
}
