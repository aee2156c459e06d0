// `sivtr errors`: the failed terminal commands and agent tool calls, newest first, one line each
// with the ref that opens it. Failure is memory/failure.ts's definition; the index finds the
// failed units, their sessions are opened to name the failed parts.
import { SivtrError, UsageError } from '../../errors.js';
import { count } from '../../plural.js';
import type { OpenedSession, Part, Unit } from '../../memory/types.js';
import { localTime, note, oneLine, outJson, shortPath, table } from '../output.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { listOptions, SCOPE_FLAGS } from './common.js';

export const spec: CommandSpec = {
  name: 'errors',
  usage: '[target]',
  describe: 'failed terminal commands and agent tool calls, newest first',
  positionals: [{ name: 'target', describe: 'all (default), terminal, agent, or a provider (claude, codex, …)' }],
  flags: {
    since: { type: 'string', describe: 'not before T (RFC 3339, Unix s/ms, 30m, 2h, 7d, today, yesterday)' },
    ...SCOPE_FLAGS,
    limit: { type: 'number', alias: 'n', describe: 'at most N failures', default: 50 },
    json: { type: 'boolean', describe: 'print JSON' },
    index: { type: 'boolean', describe: 'use the index cache (--no-index reads the sources directly)', default: true },
  },
  examples: [
    ['sivtr errors', 'what failed in this workspace'],
    ['sivtr errors claude --since 2h --global', 'Claude Code tool calls that failed in the last two hours'],
  ],
};

export type Failure = {
  ref: string;
  source: string;
  session: string;
  unit: number;
  part: number;
  at?: string;
  cwd?: string;
  /** The command (a terminal record's, or the tool call's command / arguments). */
  command: string;
  label?: string;
  exitCode?: number;
  isError?: boolean;
  output: string;
};

/** What a tool call ran: its `command`/`cmd` argument when it has one, else its text. */
function callText(call: Part | undefined): string {
  if (!call) return '';
  try {
    const args = JSON.parse(call.text) as unknown;
    if (typeof args === 'object' && args !== null) {
      const a = args as Record<string, unknown>;
      const cmd = a.command ?? a.cmd;
      if (typeof cmd === 'string') return cmd;
      if (Array.isArray(cmd)) return cmd.join(' ');
    }
  } catch {
    // not JSON: the call's own text
  }
  return call.text;
}

/** The call a tool output answers: the call with its id, else the nearest call before it. */
function callOf(unit: Unit, output: Part): Part | undefined {
  if (output.callId) {
    const byId = unit.parts.find((p) => p.kind === 'tool_call' && p.callId === output.callId);
    if (byId) return byId;
  }
  return unit.parts.slice(0, output.n - 1).findLast((p) => p.kind === 'tool_call');
}

/** The failures of one unit of an opened session, with refs by full session id (they keep resolving). */
export async function failuresOf(unit: Unit, session: OpenedSession): Promise<Failure[]> {
  const [{ failedParts }, { jsonRef }] = await Promise.all([import('../../memory/failure.js'), import('../../memory/json.js')]);
  return failedParts(unit).map((p) => {
    const terminal = p.kind === 'output' || p.kind === 'command';
    const failure: Failure = {
      ref: jsonRef(unit, session, terminal ? undefined : p.n),
      source: unit.source,
      session: session.info.id,
      unit: unit.index,
      part: p.n,
      command: terminal ? (unit.parts.find((q) => q.kind === 'command')?.text ?? '') : callText(callOf(unit, p)),
      output: p.text,
    };
    const at = p.timestamp ?? unit.at;
    if (at !== undefined) failure.at = at;
    if (unit.cwd !== undefined) failure.cwd = unit.cwd;
    if (p.label !== undefined) failure.label = p.label;
    const exit = terminal ? unit.exitCode : p.exitCode;
    if (exit !== undefined) failure.exitCode = exit;
    if (p.isError) failure.isError = true;
    return failure;
  });
}

const lastLine = (text: string): string => text.trimEnd().split('\n').findLast((l) => l.trim() !== '') ?? '';

export async function run(args: ParsedArgs): Promise<number> {
  const [{ isSourceName, sourceNames, getSource }, { requireTime }, { runSearch }, { scopeMatcher }] = await Promise.all([
    import('../../memory/sources.js'),
    import('../../store/time.js'),
    import('../../store/engine.js'),
    import('../../agents/workspace.js'),
  ]);
  const target = args._[0] ?? 'all';
  if (!['all', 'agent', ...sourceNames()].includes(target) && !isSourceName(target)) {
    throw new UsageError(`${target} is not a source — use all, terminal, agent or one of: ${sourceNames().join(', ')}`);
  }
  if (args._.length > 1) throw new UsageError(`unexpected ${args._.slice(1).join(' ')} — sivtr errors takes one target at most`);
  const limit = args.limit as number;
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit ${String(args.limit)} is not a positive whole number`);
  const now = Date.now();
  const since = typeof args.since === 'string' ? requireTime('since', args.since, now) : undefined;
  const scope = listOptions(args);
  const { global, cwd } = scope;
  const inWorkspace = scopeMatcher({ cwd, global, subtree: scope.scope });

  const result = await runSearch(
    { target, query: '', field: 'content', status: 'failure', since, limit: Number.MAX_SAFE_INTEGER, now, current: [], includeSelf: true },
    { env: process.env, noIndex: args.index === false },
  );
  const hits = result.hits.filter((h) => inWorkspace(h.cwd ? [h.cwd] : undefined));
  // One open per session; its units give the failed parts.
  const bySession = new Map<string, typeof hits>();
  for (const h of hits) {
    const key = `${h.source}\u0000${h.session}`;
    bySession.set(key, [...(bySession.get(key) ?? []), h]);
  }
  const failures: Failure[] = [];
  const opts = { env: process.env, cwd, global: true };
  for (const group of bySession.values()) {
    const first = group[0]!;
    let opened;
    try {
      opened = await getSource(first.source).open(first.session, opts);
    } catch (error) {
      if (error instanceof SivtrError) continue; // gone since it was indexed
      throw error;
    }
    for (const h of group) {
      const unit = opened.units.find((u) => u.index === h.index);
      if (unit) failures.push(...(await failuresOf(unit, opened)));
    }
  }
  failures.sort((a, b) => (b.at ?? '').localeCompare(a.at ?? '') || a.ref.localeCompare(b.ref));
  const shown = failures.slice(0, limit);

  if (args.json) {
    outJson(shown);
    return 0;
  }
  if (shown.length === 0) {
    note(`no failures${since !== undefined ? ` since ${args.since as string}` : ''}${global ? '' : ` in ${shortPath(cwd)} — add --global to see every workspace`}`);
    return 0;
  }
  const rows = [['WHEN', 'REF', 'EXIT', 'COMMAND', 'LAST LINE']];
  for (const f of shown) {
    const exit = f.exitCode !== undefined ? String(f.exitCode) : 'error';
    const what = f.label && f.source !== 'terminal' ? `${f.label}: ${f.command}` : f.command;
    rows.push([localTime(f.at), f.ref, exit, oneLine(what, 60), oneLine(lastLine(f.output), 60)]);
  }
  process.stdout.write(table(rows));
  if (failures.length > shown.length) note(`${shown.length} of ${count(failures.length, 'failure')} — use --limit N for more`);
  return 0;
}
