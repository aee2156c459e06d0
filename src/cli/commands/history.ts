// `sivtr history [list|search Q|show ID]`: what `run` and `pipe` kept.
import { SivtrError, UsageError } from '../../errors.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';

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

export async function run(args: ParsedArgs): Promise<number> {
  const [action = 'list', ...rest] = args._;
  const view = await import('../../store/history-view.js');
  const json = args.json === true;
  const limit = typeof args.limit === 'number' ? args.limit : undefined;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new UsageError(`--limit ${limit} is not a positive whole number`);
  switch (action) {
    case 'list':
    case 'ls':
      if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`, 'usage: sivtr history list [--limit N]');
      process.stdout.write(view.listHistory({ limit: limit ?? 20, json }));
      return 0;
    case 'search': {
      const query = rest.join(' ');
      if (query.trim() === '') throw new UsageError('no query given', 'usage: sivtr history search QUERY');
      process.stdout.write(view.searchHistory(query, { limit: limit ?? 5, json }));
      return 0;
    }
    case 'show':
      if (rest.length > 1) throw new UsageError(`unexpected argument: ${rest[1]}`, 'usage: sivtr history show [ID]');
      process.stdout.write(view.showHistory(rest[0], { json, ansi: args.ansi === true }));
      return 0;
    default:
      if (/^(history\/)?\d+$/.test(action) && rest.length === 0) {
        process.stdout.write(view.showHistory(action, { json, ansi: args.ansi === true }));
        return 0;
      }
      throw new SivtrError(`unknown history action: ${action}`, 'use `sivtr history list`, `search QUERY` or `show ID`');
  }
}
