// `sivtr history [list|search Q|show ID]`: what `run` and `pipe` kept.
import { UsageError } from '../../errors.js';
import { HISTORY_SOURCE } from '../../memory/history-source.js';
import { out } from '../output.js';
import { unknownWord } from '../suggest.js';
import { GLOBAL_FLAGS, type CommandModule, type CommandSpec, type ParsedArgs } from '../spec.js';

export const spec: CommandSpec = {
  name: 'history',
  usage: '[action] [args..]',
  describe: 'list, search or show outputs kept by `sivtr run` and `sivtr pipe`',
  positionals: [
    { name: 'action', describe: 'list (default), search QUERY, or show [ID]' },
    { name: 'args', describe: 'the query or the id', variadic: true },
  ],
  flags: {
    limit: { type: 'number', describe: 'entries to list or hits to return (list: 20, search: 5)' },
    json: { type: 'boolean', describe: 'machine-readable output' },
    ansi: { type: 'boolean', describe: 'show: keep the colours the command printed' },
  },
  examples: [
    ['sivtr history', 'newest captures first'],
    ['sivtr history search "connection refused"', 'find a captured output'],
    ['sivtr history show 12', 'print capture 12 (also `sivtr show history/12`)'],
  ],
};

/** Another command's run, with its defaults, as if typed with these words and flags. */
async function runAs(load: () => Promise<CommandModule>, words: string[], flags: Record<string, unknown>): Promise<number> {
  const module = await load();
  const args: ParsedArgs = { _: words };
  for (const [name, flag] of Object.entries({ ...GLOBAL_FLAGS, ...module.spec.flags })) if (flag.default !== undefined) args[name] = flag.default;
  Object.assign(args, flags);
  return (await module.run(args)) ?? 0;
}

// `history search` is `search history`, `history show N` is `show history/N`: one code path each.
const searchHistory = (query: string[], limit: number | undefined, json: boolean, color: unknown): Promise<number> =>
  runAs(() => import('./search.js'), [HISTORY_SOURCE, ...query], { limit: limit ?? 5, format: json ? 'json' : 'full', color });

const showHistory = (key: string | undefined, json: boolean, ansi: boolean): Promise<number> =>
  runAs(() => import('./show.js'), [`${HISTORY_SOURCE}/${(key ?? 'current').replace(/^history\//, '')}`], { json, ansi });

export async function run(args: ParsedArgs): Promise<number> {
  const [action = 'list', ...rest] = args._;
  const json = args.json === true;
  const ansi = args.ansi === true;
  const limit = typeof args.limit === 'number' ? args.limit : undefined;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new UsageError(`--limit ${limit} is not a positive whole number`);
  switch (action) {
    case 'list':
    case 'ls': {
      if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`, 'usage: sivtr history list [--limit N]');
      const view = await import('../history-list.js');
      out(view.listHistory({ limit: limit ?? 20, json }));
      return 0;
    }
    case 'search':
      if (rest.join(' ').trim() === '') throw new UsageError('no query given', 'usage: sivtr history search QUERY');
      return searchHistory(rest, limit, json, args.color);
    case 'show':
      if (rest.length > 1) throw new UsageError(`unexpected argument: ${rest[1]}`, 'usage: sivtr history show [ID]');
      return showHistory(rest[0], json, ansi);
    default:
      if (/^(history\/)?\d+$/.test(action) && rest.length === 0) return showHistory(action, json, ansi);
      throw unknownWord('history action', action, ['list', 'search', 'show'], { otherwise: 'use `sivtr history list`, `search QUERY` or `show ID`' });
  }
}
