// sivtr diff A B — compare two records, turns or parts (outputs by default). The older side is
// `---` (left with --side-by-side) and the newer `+++`, whatever order they were typed in.
import { SivtrError } from '../../errors.js';
import type { Aspect } from '../../memory/render.js';
import type { RecencyOptions } from '../../memory/recent.js';
import type { ByFilter } from '../../memory/runs.js';
import type { ListOptions } from '../../memory/types.js';
import { olderFirst, resolveSide } from '../../memory/side.js';
import { sideBySideDiff, unifiedDiff } from '../diff-format.js';
import { requireRefSource } from '../source-name.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { masked, out, useColor } from '../output.js';
import { listOptions } from './common.js';

export const spec: CommandSpec = {
  name: 'diff',
  usage: '<left> <right>',
  describe: 'diff two records, turns or parts (outputs by default); + lines are the newer side',
  positionals: [
    { name: 'left', describe: 'a recency selector (1 = newest) or a ref' },
    { name: 'right', describe: 'a recency selector or a ref' },
  ],
  flags: {
    output: { type: 'boolean', describe: 'compare outputs (default)' },
    block: { type: 'boolean', describe: 'compare whole blocks (input and output)' },
    input: { type: 'boolean', describe: 'compare rendered inputs' },
    cmd: { type: 'boolean', describe: 'compare bare commands' },
    'side-by-side': { type: 'boolean', alias: 'y', describe: 'two columns, aligned to the terminal width' },
    'exit-code': { type: 'boolean', describe: 'exit 1 when the sides differ' },
    'include-self': { type: 'boolean', describe: "count sivtr's own copy/show/diff/search… records in N" },
    by: { type: 'string', describe: 'count N back through every command run here (as `sivtr runs` lists them): by me, agent or all', choices: ['me', 'agent', 'all'] },
    pick: { type: 'boolean', describe: 'choose the two sides in the picker (Ctrl-T marks one, Enter on the other)' },
  },
  examples: [
    ['sivtr diff 2 1', 'what changed from the output before the last to the last'],
    ['sivtr diff terminal/current/4 claude/3f2a9c1d/2/p3 --side-by-side', 'a record against an agent tool output'],
  ],
};

/** The diff of two sides, older first (`no differences` when they are the same text). */
export async function diffText(
  leftSpec: string,
  rightSpec: string,
  aspect: Aspect,
  opts: ListOptions & RecencyOptions & { by?: ByFilter },
  view: { color: boolean; sideBySide: boolean; width: number },
): Promise<{ text: string; same: boolean }> {
  const [left, right] = olderFirst(await resolveSide(leftSpec, aspect, opts), await resolveSide(rightSpec, aspect, opts));
  // Masked before comparing, so a secret never reaches a diff line and columns stay aligned.
  left.text = masked(left.text);
  right.text = masked(right.text);
  if (left.text === right.text) return { text: 'no differences\n', same: true };
  const text = view.sideBySide ? await sideBySideDiff(left, right, view.width, view.color) : await unifiedDiff(left, right, view.color);
  return { text, same: false };
}

export async function run(args: ParsedArgs): Promise<number> {
  if (args.pick) {
    if (args._.length > 1 || (args._[0] !== undefined && args._[0].includes('/'))) throw new SivtrError('--pick takes a source, not the sides', 'e.g. `sivtr diff --pick`: mark one side with Ctrl-T, Enter on the other', 2);
    const { pickAndAct } = await import('./pick.js');
    return pickAndAct(args, { mode: 'diff', source: args._[0], print: 'instead' });
  }
  const [leftSpec, rightSpec] = args._;
  if (leftSpec === undefined || rightSpec === undefined) throw new SivtrError('diff needs two sides', 'e.g. `sivtr diff 1 2`', 2);
  const aspects = (['output', 'block', 'input', 'cmd'] as const).filter((a) => args[a]);
  if (aspects.length > 1) throw new SivtrError(`choose one of --${aspects.join(', --')}`, 'they pick what is compared', 2);
  const aspect: Aspect = ({ output: 'output', block: 'block', input: 'input', cmd: 'command' } as const)[aspects[0] ?? 'output'];
  requireRefSource(leftSpec);
  requireRefSource(rightSpec);
  const opts = { ...listOptions(args), includeSelf: Boolean(args['include-self']), by: args.by as ByFilter | undefined };
  const width = process.stdout.columns || Number(process.env.COLUMNS) || 100;
  const { text, same } = await diffText(leftSpec, rightSpec, aspect, opts, { color: useColor(args), sideBySide: Boolean(args['side-by-side']), width });
  out(text);
  if (same) return 0;
  return args['exit-code'] ? 1 : 0;
}
