// `sivtr search [TARGET] [QUERY]`: one ranked list of refs over terminals, history and agents.
import { SivtrError, UsageError } from '../../errors.js';
import { count } from '../../plural.js';
import { note, out, useColor } from '../output.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';

export const spec: CommandSpec = {
  name: 'search',
  usage: '[target] [query..]',
  describe: 'search terminal records, captured history and agent sessions',
  positionals: [
    { name: 'target', describe: 'all (default), terminal, agent, history, or a provider (claude, codex, …)' },
    { name: 'query', describe: 'words to look for (every word first, then any of them)', variadic: true },
  ],
  flags: {
    match: { type: 'string', describe: 'keep hits with a part matching this JavaScript regex' },
    in: { type: 'string', describe: 'where to look', choices: ['content', 'command', 'output', 'input', 'title'], default: 'content' },
    status: { type: 'string', describe: 'only successful, failed or unknown outcomes', choices: ['success', 'failure', 'unknown'] },
    since: { type: 'string', describe: 'not before T (RFC 3339, Unix s/ms, 30m, 2h, 7d, today, yesterday)' },
    until: { type: 'string', describe: 'not after T (same forms as --since)' },
    last: { type: 'string', describe: 'within the last DUR (30m, 2h, 7d)' },
    limit: { type: 'number', describe: 'hits to show', default: 5 },
    format: { type: 'string', describe: 'output format', choices: ['full', 'refs', 'json', 'timeline'], default: 'full' },
    index: { type: 'boolean', describe: 'use the index cache (--no-index reads the sources directly)', default: true },
    'include-self': { type: 'boolean', describe: "keep sivtr's own copy/show/diff/search… records and this session's echo" },
  },
  examples: [
    ['sivtr search "connection refused"', 'find it in terminals, history and agent sessions'],
    ['sivtr search claude 会话 --last 7d', 'Claude Code turns of the past week'],
    ['sivtr search terminal --status failure --since today --format refs', 'refs of today’s failed commands'],
  ],
};

export async function run(args: ParsedArgs): Promise<number> {
  const [{ isSourceName, sourceNames }, { requireDuration, requireTime }, { currentSessions }, { runSearch }, { formatHits }] = await Promise.all([
    import('../../memory/sources.js'),
    import('../../store/time.js'),
    import('../../store/search.js'),
    import('../../store/engine.js'),
    import('../search-format.js'),
  ]);
  const positionals = [...args._];
  const targets = new Set(['all', 'agent', 'history', ...sourceNames()]);
  let target = 'all';
  if (positionals.length > 0 && (targets.has(positionals[0]!) || isSourceName(positionals[0]!))) target = positionals.shift()!;
  const query = positionals.join(' ');
  const limit = args.limit as number;
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit ${limit} is not a positive whole number`);
  const now = Date.now();
  let match: RegExp | undefined;
  if (typeof args.match === 'string') {
    try {
      match = new RegExp(args.match);
    } catch (error) {
      throw new SivtrError(`--match ${args.match}: ${(error as Error).message}`, 'use JavaScript regex syntax');
    }
  }
  let since = typeof args.since === 'string' ? requireTime('since', args.since, now) : undefined;
  const until = typeof args.until === 'string' ? requireTime('until', args.until, now) : undefined;
  if (typeof args.last === 'string') {
    const from = now - requireDuration('last', args.last);
    since = since === undefined ? from : Math.max(since, from);
  }
  const result = await runSearch(
    {
      target,
      query,
      match,
      field: args.in as 'content',
      status: args.status as 'success' | undefined,
      since,
      until,
      limit,
      now,
      current: currentSessions(process.env),
      includeSelf: args['include-self'] === true,
    },
    { env: process.env, noIndex: args.index === false },
  );
  if (process.env.SIVTR_INDEX_STATS) process.stderr.write(`sivtr-index-stats ${JSON.stringify(result.stats)}\n`);
  const format = args.format as 'full' | 'refs' | 'json' | 'timeline';
  out(formatHits(result, format, useColor(args)));
  if (format !== 'json') {
    if (result.own > 0) note(`left out ${count(result.own, 'record')} of sivtr's own commands — add --include-self to see them`);
    if (result.folded > 0) note(`folded ${count(result.folded, 'hit')} from this session's last minutes (the search itself)`);
    if (result.hits.length === 0) note(`no hits${query ? ` for ${JSON.stringify(query)}` : ''} in ${target}`);
    else if (result.total > result.hits.length) note(`${result.hits.length} of ${result.total} hits — use --limit N for more`);
    if (result.hits.some((h) => !h.all_terms)) note('some hits hold only some of the words');
  }
  return 0;
}
