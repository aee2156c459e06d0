// `sivtr search [TARGET] [QUERY]`: one ranked list of refs over terminals, history and agents.
import { SivtrError, UsageError } from '../../errors.js';
import { count } from '../../plural.js';
import { note, out, useColor } from '../output.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import type { EngineResult, WarmSearch } from '../../store/engine.js';
import type { Progress } from '../../store/sync.js';
import { listOptions, SCOPE_FLAGS } from './common.js';

/** The part kinds `--kind` takes: what agents' turns are made of (the MCP search tool's `kind` too). */
export const PART_KINDS = ['user', 'assistant', 'tool_call', 'tool_output', 'thinking'] as const;

/** Where `--in` looks (the MCP search tool's `in`). */
export const SEARCH_FIELDS = ['content', 'command', 'output', 'input', 'title'] as const;

function requireKinds(value: string): string[] {
  const kinds = [...new Set(value.split(',').map((k) => k.trim()).filter((k) => k !== ''))];
  const bad = kinds.filter((k) => !(PART_KINDS as readonly string[]).includes(k));
  if (kinds.length === 0 || bad.length > 0) throw new UsageError(`--kind ${value}: ${bad.length > 0 ? `unknown kind ${bad.join(', ')}` : 'no kind given'}`, `use one or more of ${PART_KINDS.join(', ')}, comma-separated`);
  return kinds;
}

function requireTerms(value: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((t) => typeof t === 'string' && t.trim() !== '')) {
    throw new UsageError(`--terms ${value} is not a JSON array of non-empty strings`, `write it as --terms '["first term","second"]'`);
  }
  return parsed as string[];
}

export const spec: CommandSpec = {
  name: 'search',
  usage: '[target] [query..]',
  describe: 'search terminal records, captured history and agent sessions',
  positionals: [
    { name: 'target', describe: 'all (default), terminal, agent, history, or a provider (claude, codex, …)' },
    { name: 'query', describe: 'words to look for (every word first, then all but one, and so on)', variadic: true },
  ],
  flags: {
    match: { type: 'string', describe: 'keep hits with a part matching this JavaScript regex' },
    in: { type: 'string', describe: 'where to look', choices: [...SEARCH_FIELDS], default: 'content' },
    status: { type: 'string', describe: 'only successful, failed or unknown outcomes', choices: ['success', 'failure', 'unknown'] },
    since: { type: 'string', describe: 'not before T (RFC 3339, Unix s/ms, 30m, 2h, 7d, today, yesterday)' },
    until: { type: 'string', describe: 'not after T (same forms as --since)' },
    last: { type: 'string', describe: 'within the last DUR (30m, 2h, 7d)' },
    limit: { type: 'number', describe: 'hits to show', default: 5 },
    format: { type: 'string', describe: 'output format', choices: ['full', 'refs', 'json', 'timeline'], default: 'full' },
    index: { type: 'boolean', describe: 'use the index cache (--no-index reads the sources directly)', default: true },
    'include-self': { type: 'boolean', describe: "keep sivtr's own copy/show/diff/search… records and this session's echo" },
    ...SCOPE_FLAGS,
    by: { type: 'string', describe: 'search the commands that ran (as `sivtr runs` lists them): by me, agent or all', choices: ['me', 'agent', 'all'] },
    kind: { type: 'string', describe: `only parts of these kinds (comma-separated): ${PART_KINDS.join(', ')}` },
    terms: { type: 'string', describe: 'the terms as a JSON array of strings, each an exact substring (instead of QUERY)' },
    operator: { type: 'string', describe: 'and: every term in one message (or one tool call with its output); or: any term', choices: ['and', 'or'] },
    sort: { type: 'string', describe: 'order of hits: best first, or newest first', choices: ['relevance', 'time'], default: 'relevance' },
  },
  examples: [
    ['sivtr search "connection refused"', 'find it in terminals, history and agent sessions'],
    ['sivtr search claude 会话 --last 7d', 'Claude Code turns of the past week'],
    ['sivtr search terminal --status failure --since today --format refs', 'refs of today’s failed commands'],
    ['sivtr search --terms \'["npm test","ECONNREFUSED"]\' --operator and --kind tool_call,tool_output', 'tool calls whose command and output hold both'],
  ],
};

/** What a search is asked for, as typed (the CLI's flags, the MCP tool's arguments). */
export type SearchInput = {
  words: string[];
  match?: string;
  field: 'content' | 'command' | 'output' | 'input' | 'title';
  status?: 'success' | 'failure' | 'unknown';
  since?: string;
  until?: string;
  last?: string;
  limit: number;
  includeSelf: boolean;
  noIndex: boolean;
  env: NodeJS.ProcessEnv;
  progress?: Progress;
  /** A long-lived process's open index (the MCP server); one-shot commands leave it out. */
  warm?: WarmSearch;
  /** Only units whose cwd `accepts` takes (`--cwd`, `--scope`); `key` names it for the warm cache. */
  scope?: { key: string; accepts: (cwd: string | null) => boolean };
  /** Only parts of these kinds (`--kind`). */
  kinds?: string[];
  /** Exact terms instead of the query words (`--terms`). */
  terms?: string[];
  operator?: 'and' | 'or';
  sort?: 'relevance' | 'time';
};

/** The scope `--cwd DIR` or `--scope PATH` asks for; search reads every workspace without them. */
export async function searchScope(args: ParsedArgs): Promise<SearchInput['scope']> {
  if (args.cwd === undefined && args.scope === undefined) return undefined;
  const opts = listOptions(args);
  if (opts.global) return undefined;
  const { scopeMatcher } = await import('../../agents/workspace.js');
  const matches = scopeMatcher({ cwd: opts.cwd, subtree: opts.scope });
  return { key: opts.scope !== undefined ? `scope:${opts.scope}` : `cwd:${opts.cwd}`, accepts: (cwd) => matches(cwd === null ? undefined : [cwd]) };
}

/** The target word (when the first word names one), the query, and the ranked hits. */
export async function searchFor(input: SearchInput): Promise<EngineResult & { target: string; query: string }> {
  const [{ isSourceName, sourceNames }, { requireDuration, requireTime }, { currentSessions }, { runSearch }] = await Promise.all([
    import('../../memory/sources.js'),
    import('../../store/time.js'),
    import('../../store/search.js'),
    import('../../store/engine.js'),
  ]);
  const positionals = [...input.words];
  const targets = new Set(['all', 'agent', 'history', ...sourceNames()]);
  let target = 'all';
  if (positionals.length > 0 && (targets.has(positionals[0]!) || isSourceName(positionals[0]!))) target = positionals.shift()!;
  const query = positionals.join(' ');
  if (input.terms && query !== '') throw new UsageError(`both QUERY (${JSON.stringify(query)}) and --terms were given`, 'give the words either as QUERY or as --terms, not both');
  // The operator joins the query's words or the --terms; with neither it would join nothing and
  // every unit would be listed as if it had not been given.
  if (input.operator && !input.terms && query === '') throw new UsageError(`--operator ${input.operator} has no words to join`, `give QUERY words or --terms '["a","b"]' with it`);
  const limit = input.limit;
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit ${limit} is not a positive whole number`);
  const now = Date.now();
  let match: RegExp | undefined;
  if (typeof input.match === 'string') {
    try {
      match = new RegExp(input.match);
    } catch (error) {
      throw new SivtrError(`--match ${input.match}: ${(error as Error).message}`, 'use JavaScript regex syntax');
    }
  }
  let since = typeof input.since === 'string' ? requireTime('since', input.since, now) : undefined;
  const until = typeof input.until === 'string' ? requireTime('until', input.until, now) : undefined;
  if (typeof input.last === 'string') {
    const from = now - requireDuration('last', input.last);
    since = since === undefined ? from : Math.max(since, from);
  }
  const req = {
    target,
    query,
    match,
    field: input.field,
    status: input.status,
    since,
    until,
    limit,
    now,
    current: currentSessions(input.env),
    includeSelf: input.includeSelf,
    inScope: input.scope?.accepts,
    kinds: input.kinds,
    terms: input.terms,
    operator: input.operator,
    sort: input.sort,
  };
  // The request as typed (relative times unresolved): the same words asked again are the same answer.
  const key = JSON.stringify([input.words, input.match, input.field, input.status, input.since, input.until, input.last, limit, input.includeSelf, input.scope?.key, input.kinds, input.terms, input.operator, input.sort]);
  const result = input.warm ? await input.warm.search(req, key) : await runSearch(req, { env: input.env, noIndex: input.noIndex, progress: input.progress });
  return { ...result, target, query };
}

export async function run(args: ParsedArgs): Promise<number> {
  const { formatHits } = await import('../search-format.js');
  if (args.by !== undefined) return searchRunsCommand(args);
  const result = await searchFor({
    words: args._,
    match: typeof args.match === 'string' ? args.match : undefined,
    field: args.in as 'content',
    status: args.status as 'success' | undefined,
    since: typeof args.since === 'string' ? args.since : undefined,
    until: typeof args.until === 'string' ? args.until : undefined,
    last: typeof args.last === 'string' ? args.last : undefined,
    limit: args.limit as number,
    includeSelf: args['include-self'] === true,
    noIndex: args.index === false,
    env: process.env,
    scope: await searchScope(args),
    kinds: typeof args.kind === 'string' ? requireKinds(args.kind) : undefined,
    terms: typeof args.terms === 'string' ? requireTerms(args.terms) : undefined,
    operator: args.operator as 'and' | 'or' | undefined,
    sort: args.sort as 'relevance' | 'time',
  });
  const { target, query } = result;
  // A search that built the index from nothing ran a build's code: the launcher leaves the code
  // cache to a later search, whose start-up it is for (bin/sivtr.js).
  if (result.stats.fromEmpty) (globalThis as { __sivtrAtypicalRun?: () => void }).__sivtrAtypicalRun?.();
  if (process.env.SIVTR_INDEX_STATS) process.stderr.write(`sivtr-index-stats ${JSON.stringify(result.stats)}\n`);
  const format = args.format as 'full' | 'refs' | 'json' | 'timeline';
  out(formatHits(result, format, useColor(args)));
  if (format !== 'json') {
    if (result.own > 0) note(`left out ${count(result.own, 'record')} of sivtr's own commands — add --include-self to see them`);
    if (result.folded > 0) note(`folded ${count(result.folded, 'hit')} from this session's last minutes (the search itself)`);
    const terms = typeof args.terms === 'string' ? (JSON.parse(args.terms) as string[]) : undefined;
    const asked = terms ? terms.map((t) => JSON.stringify(t)).join(args.operator === 'or' ? ' or ' : ' and ') : query && JSON.stringify(query);
    if (result.hits.length === 0) note(`no hits${asked ? ` for ${asked}` : ''} in ${target}`);
    else if (result.total > result.hits.length || (result.coverage && result.coverage.least < result.coverage.of)) note(`${result.hits.length} of ${totalWords(result)} hits${coverageWords(result)} — use --limit N for more`);
    if (result.hits.some((h) => !h.all_terms)) note('some hits hold only some of the words');
  }
  return 0;
}

/** The total as a number, or "at least N" when units that could not reach the page were left uncounted (SearchResult.totalAtLeast). */
export function totalWords(result: EngineResult): string {
  return `${result.totalAtLeast ? 'at least ' : ''}${result.total}`;
}

/** What `total` counted when hits holding fewer words were not read (see SearchResult.coverage). */
export function coverageWords(result: EngineResult): string {
  const c = result.coverage;
  if (!c) return '';
  return c.least === c.of ? ' holding every word' : ` holding at least ${c.least} of the ${c.of} words`;
}

/** `search … --by`: over the runs stream (see search-runs.ts), with the same filters and formats. */
async function searchRunsCommand(args: ParsedArgs): Promise<number> {
  const [{ formatHits }, { searchRuns }, { isSourceName }, { requireDuration, requireTime }] = await Promise.all([
    import('../search-format.js'),
    import('../search-runs.js'),
    import('../../memory/sources.js'),
    import('../../store/time.js'),
  ]);
  for (const flag of ['terms', 'operator'] as const) {
    if (args[flag] !== undefined) throw new UsageError(`search --by does not take --${flag}: it matches the runs' commands and outputs by QUERY words`, `drop --${flag}, or drop --by to search every part with it`);
  }
  const words = [...args._];
  const target = words.length > 0 && (['all', 'agent', 'history'].includes(words[0]!) || isSourceName(words[0]!)) ? words.shift()! : 'all';
  const query = words.join(' ');
  const limit = args.limit as number;
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit ${limit} is not a positive whole number`);
  let match: RegExp | undefined;
  if (typeof args.match === 'string') {
    try {
      match = new RegExp(args.match);
    } catch (error) {
      throw new SivtrError(`--match ${args.match}: ${(error as Error).message}`, 'use JavaScript regex syntax');
    }
  }
  const now = Date.now();
  let since = typeof args.since === 'string' ? requireTime('since', args.since, now) : undefined;
  const until = typeof args.until === 'string' ? requireTime('until', args.until, now) : undefined;
  if (typeof args.last === 'string') since = Math.max(since ?? -Infinity, now - requireDuration('last', args.last));
  const scope = await searchScope(args);
  const result = await searchRuns(
    { by: args.by as 'all', target, query, match, field: args.in as 'content', status: args.status as 'failure' | undefined, since, until, limit, includeSelf: args['include-self'] === true, inScope: scope?.accepts },
    process.env,
  );
  const format = args.format as 'full' | 'refs' | 'json' | 'timeline';
  out(formatHits(result, format, useColor(args)));
  if (format !== 'json') {
    if (result.hits.length === 0) note(`no runs${query ? ` holding ${JSON.stringify(query)}` : ''}${args.status ? ` with status ${String(args.status)}` : ''}`);
    else if (result.total > result.hits.length || (result.coverage && result.coverage.least < result.coverage.of)) note(`${result.hits.length} of ${result.total} runs — use --limit N for more`);
  }
  return 0;
}
