// `search … --by me|agent|all`: the search over the runs stream — every command that ran, yours
// and your agents' — instead of over turns and records. A hit is one run (an agent's run by the
// ref of its tool output), so `--status failure --by agent` lists the commands agents ran that
// failed, and only those.
import { collectRuns, runStatus, type ByFilter, type Run } from '../memory/runs.js';
import type { Hit, SearchField, SearchRequest, SearchResult } from '../store/search.js';

/** The search request's own fields (store/search.ts), plus whose runs and where. */
export type RunSearch = Pick<SearchRequest, 'target' | 'query' | 'match' | 'field' | 'status' | 'since' | 'until' | 'limit'> & {
  by: ByFilter;
  includeSelf: boolean;
  /** `--cwd`/`--scope`: only runs whose cwd this takes (every workspace without it, as search reads). */
  inScope?: (cwd: string | null) => boolean;
};

function texts(run: Run, field: SearchField): string[] {
  if (field === 'command') return [run.command];
  if (field === 'output') return [run.output];
  if (field === 'title') return [run.command.split('\n')[0]!];
  return [run.command, run.output];
}

/** The first output line holding a query word (or the regex), else the output's first line. */
function snippetOf(run: Run, words: string[], match: RegExp | undefined): string {
  const lines = run.output.split('\n');
  const hit = lines.find((l) => (match && match.test(l)) || words.some((w) => l.toLowerCase().includes(w)));
  return (hit ?? lines.find((l) => l.trim() !== '') ?? '').trim().slice(0, 200);
}

function hitOf(run: Run, words: string[], match: RegExp | undefined): Hit {
  const [, session, index, part] = run.ref.split('/');
  const partNo = part === undefined ? 3 : Number(part.slice(1));
  return {
    ref: run.ref,
    fullRef: run.fullRef,
    source: run.source,
    session: run.sessionId,
    index: run.source === 'history' ? 1 : Number(index ?? session),
    part: partNo,
    kind: run.by === 'me' ? 'output' : 'tool_output',
    title: run.command.split('\n')[0]!,
    snippet: snippetOf(run, words, match),
    at: run.endedAt ?? run.startedAt ?? null,
    cwd: run.cwd ?? null,
    status: runStatus(run),
    all_terms: true,
    open: `sivtr show ${run.ref}`,
    fullOpen: `sivtr show ${run.fullRef}`,
  };
}

export async function searchRuns(req: RunSearch, env: NodeJS.ProcessEnv): Promise<SearchResult> {
  const runs = await collectRuns({ by: req.by, status: req.status, includeSelf: req.includeSelf }, { env, cwd: process.cwd(), global: true });
  const words = req.query.toLowerCase().split(/\s+/).filter(Boolean);
  const wanted = (run: Run): boolean => {
    if (req.target === 'agent' && run.by !== 'agent') return false;
    if (req.target !== 'all' && req.target !== 'agent' && run.source !== req.target) return false;
    if (req.inScope && !req.inScope(run.cwd ?? null)) return false;
    const at = Date.parse(run.endedAt ?? run.startedAt ?? '');
    if (req.since !== undefined && !(at >= req.since)) return false;
    if (req.until !== undefined && !(at <= req.until)) return false;
    const haystack = texts(run, req.field);
    if (req.match && !haystack.some((t) => req.match!.test(t))) return false;
    const lower = haystack.map((t) => t.toLowerCase());
    return words.every((w) => lower.some((t) => t.includes(w)));
  };
  const matched = runs.filter(wanted);
  return { hits: matched.slice(0, req.limit).map((r) => hitOf(r, words, req.match)), total: matched.length, folded: 0, own: 0 };
}
