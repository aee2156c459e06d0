// sivtr runs [--by me|agent|all] [--status S] [--cwd DIR] [--json] — every command that ran in
// this workspace, yours and your agents', newest first, one line each with its ref. The number
// in front is the recency selector that `copy out N --by …` and `diff N M --by …` take.
import { UsageError } from '../../errors.js';
import { collectRuns, runStatus, type ByFilter, type Run, type RunStatus } from '../../memory/runs.js';
import { localTime, note, oneLine, out, outJson, styles, table, useColor } from '../output.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { listOptions, SCOPE_FLAGS, str } from './common.js';

export const BY_CHOICES = ['me', 'agent', 'all'] as const;

export const spec: CommandSpec = {
  name: 'runs',
  usage: '',
  describe: 'every command that ran here, by you or an agent, newest first, with refs',
  flags: {
    by: { type: 'string', describe: 'who ran it', choices: BY_CHOICES, default: 'all' },
    status: { type: 'string', describe: 'only successful, failed or unknown outcomes', choices: ['success', 'failure', 'unknown'] },
    ...SCOPE_FLAGS,
    limit: { type: 'number', describe: 'runs to list', default: 20 },
    json: { type: 'boolean', describe: 'print JSON' },
    'include-self': { type: 'boolean', describe: "keep sivtr's own copy/show/diff/search… commands" },
  },
  examples: [
    ['sivtr runs', 'the last 20 commands of this workspace, yours and your agents’'],
    ['sivtr runs --by agent --status failure', 'the commands agents ran that failed'],
    ['sivtr copy out 2 --by all', 'the output of the second line of `sivtr runs`'],
  ],
};

/** `me`, or the agent and its session: `claude 3e5c5f9d`. */
export function authorOf(run: Run): string {
  return run.by === 'me' ? 'me' : `${run.source} ${run.ref.split('/')[1]}`;
}

function statusCell(run: Run, s: ReturnType<typeof styles>): string {
  if (run.exitCode !== undefined) return run.exitCode === 0 ? s.green('0') : s.red(String(run.exitCode));
  return run.isError ? s.red('err') : s.dim('?');
}

function runJson(run: Run, n: number): Record<string, unknown> {
  const json: Record<string, unknown> = { n, ref: run.fullRef, by: run.by, source: run.source, session: run.sessionId, command: run.command, output: run.output };
  if (run.exitCode !== undefined) json.exit_code = run.exitCode;
  json.status = runStatus(run);
  if (run.cwd !== undefined) json.cwd = run.cwd;
  if (run.startedAt !== undefined) json.started_at = run.startedAt;
  if (run.endedAt !== undefined) json.ended_at = run.endedAt;
  if (run.tool !== undefined) json.tool = run.tool;
  if (run.callRef !== undefined) json.call_ref = run.callRef;
  return json;
}

export async function run(args: ParsedArgs): Promise<number> {
  const limit = args.limit as number;
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit ${limit} is not a positive whole number`, 'e.g. --limit 50');
  const opts = listOptions(args);
  const by = (str(args.by) ?? 'all') as ByFilter;
  const runs = await collectRuns({ by, status: args.status as RunStatus | undefined, includeSelf: Boolean(args['include-self']), limit }, opts);
  if (args.json) {
    outJson(runs.map((r, i) => runJson(r, i + 1)));
    return 0;
  }
  if (runs.length === 0) {
    note(`no commands${by === 'me' ? ' run by you' : by === 'agent' ? ' run by an agent' : ''}${args.status ? ` with status ${String(args.status)}` : ''}${opts.global ? '' : opts.scope !== undefined ? ` under ${opts.scope}` : ' in this workspace — add --global for every workspace'}`);
    return 0;
  }
  const s = styles(useColor(args));
  const rows = runs.map((r, i) => [String(i + 1), localTime(r.endedAt ?? r.startedAt), statusCell(r, s), authorOf(r), oneLine(r.command, 60), s.dim(r.ref)]);
  out(table(rows));
  return 0;
}
