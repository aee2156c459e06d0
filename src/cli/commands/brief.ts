// sivtr brief [--budget N] [--since 2h] [--cwd DIR] — a context pack to paste into an agent.
import { parseBudget } from '../../memory/budget.js';
import { buildBrief } from '../../memory/brief.js';
import { requireTime } from '../../store/time.js';
import { masked, out, shortPath } from '../output.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { listOptions, SCOPE_FLAGS } from './common.js';

export const spec: CommandSpec = {
  name: 'brief',
  usage: '',
  describe: "a context pack for the next agent: this workspace's recent requests, conclusions, failed commands and files written, with refs",
  flags: {
    budget: { type: 'string', describe: 'at most N tokens (2k, estimated) or N characters (8000c)', default: '2k' },
    since: { type: 'string', describe: 'not before T (RFC 3339, Unix s/ms, 30m, 2h, 7d, today, yesterday)', default: '24h' },
    ...SCOPE_FLAGS,
  },
  examples: [
    ['sivtr brief', 'the last day of this workspace in about 2,000 tokens'],
    ['sivtr brief --since 2h --budget 8000c | pbcopy', 'the last two hours in 8,000 characters'],
  ],
};

export async function run(args: ParsedArgs): Promise<number> {
  const budget = parseBudget(String(args.budget ?? '2k'));
  const now = Date.now();
  const sinceText = String(args.since ?? '24h');
  const since = requireTime('since', sinceText, now);
  const opts = listOptions(args);
  const where = opts.global ? 'every workspace' : shortPath(opts.scope ?? opts.cwd);
  out(await buildBrief(opts, { since, budget, now, label: `${where}, since ${sinceText} (budget ${budget.label})`, mask: masked }));
  return 0;
}
