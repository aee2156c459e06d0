// `diff --prev`: the run a selector or ref names, and the run of the same command before it in
// the same workspace, by anyone — your shell, an agent, `sivtr run`.
import { SivtrError } from '../errors.js';
import { selectRecentRecords, type RecencyOptions } from './recent.js';
import { formatRef, looksLikeRef, partRef } from './ref.js';
import { isTerminalUnit } from './render.js';
import { resolveRef } from './resolve.js';
import { recordRun, runsNewestFirst, selectRecentRuns, turnRuns, type ByFilter, type Run } from './runs.js';
import { parseRecency } from './selector.js';
import { getSource } from './sources.js';
import type { ListOptions } from './types.js';

/**
 * A command line as `--prev` compares it: whitespace runs as one space, a leading `cd DIR && `
 * (agents prefix their commands with one) and a trailing `2>&1` left out.
 */
export function normaliseCommand(command: string): string {
  let c = command.trim().replace(/\s+/g, ' ');
  c = c.replace(/^cd (?:"[^"]*"|'[^']*'|[^\s;&|]+) && /, '');
  c = c.replace(/ 2>&1$/, '').replace(/ *;$/, '');
  return c;
}

/** The run a recency selector (this terminal's, or the runs stream's with `by`) or a ref names. */
export async function namedRun(spec: string | undefined, opts: ListOptions & RecencyOptions & { by?: ByFilter }): Promise<Run> {
  if (spec !== undefined && looksLikeRef(spec)) {
    const { units, part, session } = await resolveRef(spec, opts);
    if (units.length !== 1) throw new SivtrError(`--prev takes one run, "${spec}" names ${units.length}`, 'give a single index, e.g. terminal/current/3');
    const unit = units[0]!;
    if (isTerminalUnit(unit)) return recordRun(unit, session.info.id);
    const runs = turnRuns(unit, session.info.id);
    const named = part === undefined ? (runs.length === 1 ? runs[0] : undefined) : runs.find((r) => r.ref === partRef(unit, part.n) || r.callRef === formatRef(unit.source, session.info.id, unit.index, part.n));
    if (named) return named;
    const parts = runs.map((r) => r.ref).join(', ');
    throw new SivtrError(
      part === undefined ? `${spec} ran ${runs.length === 0 ? 'no shell command' : `${runs.length} shell commands`}` : `${spec} is not a shell command or its output`,
      runs.length > 0 ? `name one of its runs: ${parts}` : 'pick a terminal record or an agent shell call (`sivtr runs --by agent` lists them)',
    );
  }
  const recency = parseRecency(spec);
  if (recency.from !== recency.to) throw new SivtrError(`--prev takes one run, not the range "${spec}"`, 'use N (1 = newest) or a ref');
  if (opts.by !== undefined) return (await selectRecentRuns({ by: opts.by, includeSelf: opts.includeSelf }, recency, opts))[0]!;
  const session = await getSource('terminal').open('current', opts);
  const [unit] = selectRecentRecords(session.units, recency, opts);
  return recordRun(unit!, session.info.id);
}

const timeOf = (run: Run): number | undefined => {
  const t = Date.parse(run.endedAt ?? run.startedAt ?? '');
  return Number.isNaN(t) ? undefined : t;
};

/** The newest run before `current` of the same command line, in `current`'s workspace. */
export async function previousRun(current: Run, opts: ListOptions & RecencyOptions): Promise<Run | undefined> {
  const want = normaliseCommand(current.command);
  const at = timeOf(current);
  const scope: ListOptions = { env: opts.env, cwd: current.cwd ?? opts.cwd, global: false };
  let passed = false;
  for await (const run of runsNewestFirst({ by: 'all', includeSelf: opts.includeSelf }, scope)) {
    if (run.fullRef === current.fullRef) {
      passed = true;
      continue;
    }
    const t = timeOf(run);
    const older = passed || (t !== undefined && at !== undefined && t < at);
    if (older && normaliseCommand(run.command) === want) return run;
  }
  return undefined;
}
