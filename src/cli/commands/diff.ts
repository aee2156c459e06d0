// sivtr diff A B — compare two records, turns or parts (outputs by default). The older side is
// `---` (left with --side-by-side) and the newer `+++`, whatever order they were typed in.
import { SivtrError } from '../../errors.js';
import type { Aspect } from '../../memory/render.js';
import type { RecencyOptions } from '../../memory/recent.js';
import type { ByFilter } from '../../memory/runs.js';
import type { ListOptions } from '../../memory/types.js';
import type { Run } from '../../memory/runs.js';
import { olderFirst, resolveSide, runSide, type Side } from '../../memory/side.js';
import { describeMasked, maskNoise, type NoiseKind } from '../../text/noise.js';
import { compareReports, parseTestReport, RUNNER_NAMES, type Failure } from '../../text/test-report.js';
import { sideBySideDiff, unifiedDiff } from '../diff-format.js';
import { requireRefSource } from '../source-name.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { localTime, masked, note, oneLine, out, shortPath, useColor } from '../output.js';
import { authorOf } from './runs.js';
import { listOptions } from './common.js';

export const spec: CommandSpec = {
  name: 'diff',
  usage: '[left] [right]',
  describe: 'diff two records, turns or parts (outputs by default), or a run against the previous run of its command (--prev); + lines are the newer side',
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
    prev: { type: 'boolean', describe: 'compare one run (default: the last) with the previous run of the same command in its workspace, by anyone' },
    mask: { type: 'boolean', describe: 'mask what changes on every run (times, durations, pids, temp paths, ids, colours, progress) before comparing; on with --prev, --no-mask for raw' },
    summary: { type: 'boolean', describe: 'for test runners and checkers: newly failing, fixed and still failing, with file:line' },
    by: { type: 'string', describe: 'count N back through every command run here (as `sivtr runs` lists them): by me, agent or all', choices: ['me', 'agent', 'all'] },
    pick: { type: 'boolean', describe: 'choose the two sides in the picker (Ctrl-T marks one, Enter on the other)' },
  },
  examples: [
    ['sivtr diff 2 1', 'what changed from the output before the last to the last'],
    ['sivtr diff terminal/current/4 claude/3f2a9c1d/2/p3 --side-by-side', 'a record against an agent tool output'],
    ['sivtr diff --prev', 'the last command against its previous run, noise masked'],
    ['sivtr diff --prev --summary', 'which tests broke, which were fixed, which still fail'],
  ],
};

export type DiffView = {
  color: boolean;
  sideBySide: boolean;
  width: number;
  /** Mask run-to-run noise (times, durations, pids, temp paths, ids, colours, progress) first. */
  mask?: boolean;
  /** Newly failing, fixed and still-failing tests instead of a line diff. */
  summary?: boolean;
};

export type DiffResult = { text: string; same: boolean; masked?: Map<NoiseKind, number> };

/** The diff of two sides, older first (`no differences` when they are the same text). */
export async function diffText(
  leftSpec: string,
  rightSpec: string,
  aspect: Aspect,
  opts: ListOptions & RecencyOptions & { by?: ByFilter },
  view: DiffView,
): Promise<DiffResult> {
  const [left, right] = olderFirst(await resolveSide(leftSpec, aspect, opts), await resolveSide(rightSpec, aspect, opts));
  return compareSides(left, right, view);
}

/** Two sides, older first, compared as `view` asks. */
export async function compareSides(left: Side, right: Side, view: DiffView): Promise<DiffResult> {
  if (view.summary) return summaryText(left, right);
  let noise: Map<NoiseKind, number> | undefined;
  if (view.mask) {
    const a = maskNoise(left.text);
    const b = maskNoise(right.text);
    left.text = a.text;
    right.text = b.text;
    noise = new Map<NoiseKind, number>();
    for (const counts of [a.counts, b.counts]) for (const [k, n] of counts) noise.set(k, (noise.get(k) ?? 0) + n);
  }
  // Masked before comparing, so a secret never reaches a diff line and columns stay aligned.
  left.text = masked(left.text);
  right.text = masked(right.text);
  if (left.text === right.text) return { text: 'no differences\n', same: true, masked: noise };
  const text = view.sideBySide ? await sideBySideDiff(left, right, view.width, view.color) : await unifiedDiff(left, right, view.color);
  return { text, same: false, masked: noise };
}

function summaryText(left: Side, right: Side): DiffResult {
  const before = parseTestReport(left.text);
  const after = parseTestReport(right.text);
  const missing = !after ? right : !before ? left : undefined;
  if (missing || !before || !after) {
    throw new SivtrError(`no test runner output recognised in ${missing!.ref}`, `--summary reads ${RUNNER_NAMES.join(', ')}; leave it out for a line diff`);
  }
  const d = compareReports(before, after);
  const line = (f: Failure): string => `  ${f.location ?? '?'}  ${f.name}`;
  const parts = [
    `${d.runner}: ${d.newlyFailing.length} newly failing, ${d.fixed.length} fixed, ${d.stillFailing.length} still failing (${left.ref} → ${right.ref})`,
  ];
  if (d.newlyFailing.length > 0) parts.push('newly failing:', ...d.newlyFailing.map(line));
  if (d.fixed.length > 0) parts.push('fixed:', ...d.fixed.map(line));
  if (d.stillFailing.length > 0) parts.push('still failing:', ...d.stillFailing.map(line));
  return { text: masked(parts.join('\n') + '\n'), same: d.newlyFailing.length === 0 && d.fixed.length === 0 };
}

/** `sivtr diff --prev [SELECTOR]`: a run against the previous run of its command, masked unless --no-mask. */
async function runPrev(args: ParsedArgs): Promise<number> {
  if (args._.length > 1) throw new SivtrError('--prev takes one run', 'e.g. `sivtr diff --prev` (the last command) or `sivtr diff --prev terminal/current/12`', 2);
  const aspects = (['block', 'input', 'cmd'] as const).filter((a) => args[a]);
  if (aspects.length > 0) throw new SivtrError(`--prev compares outputs, not --${aspects[0]}`, 'the commands are the same by definition', 2);
  const { namedRun, previousRun } = await import('../../memory/prev-run.js');
  const opts = { ...listOptions(args), includeSelf: Boolean(args['include-self']), by: args.by as ByFilter | undefined };
  const current = await namedRun(args._[0], opts);
  const previous = await previousRun(current, opts);
  if (!previous) {
    throw new SivtrError(`no earlier run of \`${oneLine(current.command, 60)}\` in the workspace of ${shortPath(current.cwd ?? opts.cwd)}`, 'run it again, then `sivtr diff --prev`; `sivtr runs` lists what ran');
  }
  const side = (run: Run): Side => {
    const s = runSide(run, 'output');
    s.about = `(${run.by === 'me' ? 'me' : authorOf(run)}, ${localTime(run.endedAt ?? run.startedAt)}) ${oneLine(run.command, 60)}`;
    return s;
  };
  const width = process.stdout.columns || Number(process.env.COLUMNS) || 100;
  const mask = args.mask === undefined ? true : Boolean(args.mask);
  const { text, same, masked } = await compareSides(side(previous), side(current), { color: useColor(args), sideBySide: Boolean(args['side-by-side']), width, mask, summary: Boolean(args.summary) });
  out(text);
  if (masked && masked.size > 0) note(`masked ${describeMasked(masked)} — --no-mask compares them as printed`);
  if (same) return 0;
  return args['exit-code'] ? 1 : 0;
}

export async function run(args: ParsedArgs): Promise<number> {
  if (args.pick) {
    if (args._.length > 1 || (args._[0] !== undefined && args._[0].includes('/'))) throw new SivtrError('--pick takes a source, not the sides', 'e.g. `sivtr diff --pick`: mark one side with Ctrl-T, Enter on the other', 2);
    const { pickAndAct } = await import('./pick.js');
    return pickAndAct(args, { mode: 'diff', source: args._[0], print: 'instead' });
  }
  if (args.prev) return runPrev(args);
  const [leftSpec, rightSpec] = args._;
  if (leftSpec === undefined || rightSpec === undefined) throw new SivtrError('diff needs two sides', 'e.g. `sivtr diff 1 2`, or `sivtr diff --prev` for the last command against its previous run', 2);
  const aspects = (['output', 'block', 'input', 'cmd'] as const).filter((a) => args[a]);
  if (aspects.length > 1) throw new SivtrError(`choose one of --${aspects.join(', --')}`, 'they pick what is compared', 2);
  const aspect: Aspect = ({ output: 'output', block: 'block', input: 'input', cmd: 'command' } as const)[aspects[0] ?? 'output'];
  requireRefSource(leftSpec);
  requireRefSource(rightSpec);
  const opts = { ...listOptions(args), includeSelf: Boolean(args['include-self']), by: args.by as ByFilter | undefined };
  const width = process.stdout.columns || Number(process.env.COLUMNS) || 100;
  const { text, same, masked } = await diffText(leftSpec, rightSpec, aspect, opts, { color: useColor(args), sideBySide: Boolean(args['side-by-side']), width, mask: Boolean(args.mask), summary: Boolean(args.summary) });
  out(text);
  if (masked && masked.size > 0) note(`masked ${describeMasked(masked)} — leave out --mask to compare them as printed`);
  if (same) return 0;
  return args['exit-code'] ? 1 : 0;
}
