// One stream of every command that ran, newest first: the user's own (terminal records and
// `sivtr run` captures) and every shell command an agent ran (a shell tool call and its output).
// Each is a record like a terminal one — command, output, exit code when one was recorded, cwd,
// start and end — with its author. An agent's run is named by the ref of its tool output part
// (`claude/3f2a9c1d/2/p4`; the call's part when the output is missing), so show and diff read it
// like any part.
import { allProviders } from '../agents/registry.js';
import { SivtrError } from '../errors.js';
import { count } from '../plural.js';
import { scopeMatcher } from '../agents/workspace.js';
import { HistoryStore } from '../session/history-db.js';
import { listTerminalLogs } from '../session/log.js';
import { agentSessionsNewestFirst } from './agent-source.js';
import { displayIds } from './display-id.js';
import { partFailed } from './failure.js';
import { historyUnit } from './history-source.js';
import { isOwnCommand } from './recent.js';
import { formatRef, partRef } from './ref.js';
import { isSivtrReadOnly } from './self-commands.js';
import { unitsText, type Aspect, type RenderOptions } from './render.js';
import type { Recency } from './selector.js';
import { shellCalls, shellOutputText } from './shell-calls.js';
import { logUnits } from './terminal-source.js';
import type { ListOptions, Unit } from './types.js';

export type Author = 'me' | 'agent';
export type RunStatus = 'success' | 'failure' | 'unknown';

export type Run = {
  /** Where show and diff find it: a terminal record, a history capture, or an agent's tool output part. */
  ref: string;
  /** The same ref with the session's full id (what JSON prints, so it keeps resolving). */
  fullRef: string;
  by: Author;
  /** `terminal`, `history`, or the agent's provider name. */
  source: string;
  /** The session's full id (a terminal log, a capture id, an agent session). */
  sessionId: string;
  command: string;
  output: string;
  exitCode?: number;
  /** Set when the agent marked the output as an error without an exit code. */
  isError?: boolean;
  cwd?: string;
  startedAt?: string;
  endedAt?: string;
  /** Agent runs: the shell tool's name and the ref of the call. */
  tool?: string;
  callRef?: string;
  /** The call id the agent gave the call. */
  callId?: string;
  /**
   * The run as a record (p1 prompt, p2 command, p3 output), so copy renders it like any terminal
   * record; its `ref` is the run's ref.
   */
  unit: Unit;
};

export type ByFilter = Author | 'all';

export type RunsQuery = {
  by: ByFilter;
  /** Keep sivtr's own read-only commands (copy, show, search…), left out by default. */
  includeSelf?: boolean;
  status?: RunStatus;
  /** Stop once this many runs (after the filters) are certain to be the newest. */
  limit?: number;
};

/** The one failure definition (failure.ts); a run with neither an exit code nor an error flag is unknown. */
export function runStatus(run: Pick<Run, 'exitCode' | 'isError'>): RunStatus {
  if (partFailed({ kind: 'output', exitCode: run.exitCode, isError: run.isError })) return 'failure';
  return run.exitCode !== undefined ? 'success' : 'unknown';
}

const ms = (iso: string | undefined): number | undefined => {
  if (iso === undefined) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
};

/** A run and when it happened, for ordering: its end, else its start, else its session's last change. */
type Timed = { run: Run; t: number };

/**
 * One session's runs, newest first, read only when the merge reaches it; `bound`: nothing in it
 * is newer (the session's last change).
 */
type Stream = { bound: number; open(): Promise<Iterator<Timed>> };

/** A terminal record or history capture as a run. */
export function recordRun(unit: Unit, sessionId: string): Run {
  const [, command, output] = unit.parts;
  const fullRef = unit.source === 'terminal' ? formatRef('terminal', sessionId, unit.index) : unit.ref;
  const run: Run = { ref: unit.ref, fullRef, by: 'me', source: unit.source, sessionId, command: command?.text ?? '', output: output?.text ?? '', unit };
  if (unit.exitCode !== undefined) run.exitCode = unit.exitCode;
  if (unit.cwd !== undefined) run.cwd = unit.cwd;
  if (unit.at !== undefined) {
    run.endedAt = unit.at;
    const end = ms(unit.at);
    if (end !== undefined && unit.durationMs !== undefined) run.startedAt = new Date(end - unit.durationMs).toISOString();
  }
  return run;
}

/** The shell commands of one agent turn as runs, in the order they ran. */
export function turnRuns(turn: Unit, sessionId: string): Run[] {
  return shellCalls(turn.parts).map((call) => {
    const shownPart = call.output ?? call.call;
    const ref = partRef(turn, shownPart.n);
    const output = call.output ? shellOutputText(call.output.text) : '';
    const cwd = call.cwd === undefined ? turn.cwd : call.cwd.startsWith('/') || turn.cwd === undefined ? call.cwd : `${turn.cwd.replace(/\/$/, '')}/${call.cwd}`;
    const exitCode = call.output?.exitCode;
    const unit: Unit = {
      ref,
      source: turn.source,
      session: turn.session,
      index: turn.index,
      parts: [
        { n: 1, kind: 'prompt', text: '' },
        { n: 2, kind: 'command', text: call.command },
        { n: 3, kind: 'output', text: output },
      ],
      title: call.command.split('\n')[0]!,
    };
    const run: Run = { ref, fullRef: formatRef(turn.source, sessionId, turn.index, shownPart.n), by: 'agent', source: turn.source, sessionId, command: call.command, output, tool: call.tool, callRef: formatRef(turn.source, sessionId, turn.index, call.call.n), unit };
    if (call.call.callId !== undefined) run.callId = call.call.callId;
    if (exitCode !== undefined) run.exitCode = unit.exitCode = exitCode;
    if (call.output?.isError) run.isError = true;
    if (cwd !== undefined) run.cwd = unit.cwd = cwd;
    if (call.call.timestamp !== undefined) run.startedAt = call.call.timestamp;
    const end = call.output?.timestamp ?? call.call.timestamp;
    if (end !== undefined) run.endedAt = unit.at = end;
    return run;
  });
}

function myStreams(opts: ListOptions): Stream[] {
  const logs = listTerminalLogs(opts.env);
  const ids = displayIds(logs.map((l) => l.id));
  const streams: Stream[] = logs.map((log) => ({
    bound: log.mtimeMs,
    // Walked back from the newest record, so only the records passed are read from the log.
    open: async () => {
      const units = logUnits(log.path, ids.get(log.id)!, opts.env);
      let i = units.length;
      return {
        next: (): IteratorResult<Timed> => {
          if (i === 0) return { done: true, value: undefined };
          const run = recordRun(units[--i]!, log.id);
          return { done: false, value: { run, t: ms(run.endedAt) ?? log.mtimeMs } };
        },
      };
    },
  }));
  const store = HistoryStore.openForRead(opts.env);
  if (store) {
    try {
      const newest = store.newest();
      if (newest) {
        streams.push({
          bound: ms(newest.ended_at) ?? Date.now(),
          open: async () => {
            const again = HistoryStore.openForRead(opts.env);
            if (!again) return newestFirst([], 0);
            try {
              // Only `sivtr run` captures ran a command; a piped capture has none.
              const runs = [...again.since(0)].filter((e) => e.kind === 'run' && e.command !== '').map((e) => recordRun(historyUnit(e), String(e.id)));
              return newestFirst(runs, ms(newest.ended_at) ?? 0);
            } finally {
              again.close();
            }
          },
        });
      }
    } finally {
      store.close();
    }
  }
  return streams;
}

async function agentStreams(opts: ListOptions): Promise<Stream[]> {
  const streams: Stream[] = [];
  for (const provider of allProviders()) {
    let sessions;
    try {
      sessions = await agentSessionsNewestFirst(provider, opts);
    } catch {
      continue; // a provider whose data cannot be listed has no runs to give
    }
    for (const s of sessions) {
      streams.push({
        bound: ms(s.info.updatedAt) ?? 0,
        open: async () => {
          const bound = ms(s.info.updatedAt) ?? 0;
          try {
            return newestFirst((await s.units()).flatMap((turn) => turnRuns(turn, s.info.id)), bound);
          } catch {
            return newestFirst([], bound); // unreadable right now: `sessions` and `show` say why
          }
        },
      });
    }
  }
  return streams;
}

/** A session's runs (oldest first, as recorded) as an iterator newest first; runs without a time sit at the session's end. */
function newestFirst(runs: Run[], bound: number): Iterator<Timed> {
  const timed = runs.map((run, order) => ({ run, t: ms(run.endedAt) ?? ms(run.startedAt) ?? bound, order }));
  // Equal times: later in the session is newer.
  timed.sort((a, b) => b.t - a.t || b.order - a.order);
  return timed.values();
}

/**
 * The runs newest first: a merge of every session's runs, where a session is read only once
 * its last change is newer than every run already in hand — so the first runs cost the sessions
 * that can hold them, not every session there is.
 */
export async function* runsNewestFirst(query: Omit<RunsQuery, 'limit'>, opts: ListOptions): AsyncGenerator<Run> {
  const inScope = scopeMatcher({ cwd: opts.cwd, global: opts.global, subtree: opts.scope });
  const pending = [...(query.by === 'agent' ? [] : myStreams(opts)), ...(query.by === 'me' ? [] : await agentStreams(opts))];
  pending.sort((a, b) => b.bound - a.bound);
  const keep = (run: Run): boolean =>
    (query.includeSelf === true || (run.by === 'me' ? !isOwnCommand(run.unit) : !isSivtrReadOnly(run.command))) &&
    (query.status === undefined || runStatus(run) === query.status) &&
    inScope(run.cwd === undefined ? undefined : [run.cwd]);
  // A fork replays its parent's turns (same call ids and times): one run, not one per session carrying it.
  const seen = new Set<string>();
  const once = (run: Run): boolean => {
    if (run.by === 'me' || run.startedAt === undefined) return true;
    const key = `${run.source}\0${run.callId ?? ''}\0${run.startedAt}\0${run.command}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  const heads: { it: Iterator<Timed>; head: Timed }[] = [];
  let next = 0;
  for (;;) {
    let best = -1;
    for (let k = 0; k < heads.length; k++) if (best === -1 || heads[k]!.head.t > heads[best]!.head.t) best = k;
    const waiting = pending[next];
    if (waiting !== undefined && (best === -1 || waiting.bound >= heads[best]!.head.t)) {
      next++;
      const it = await waiting.open();
      const first = it.next();
      if (!first.done) heads.push({ it, head: first.value });
      continue;
    }
    if (best === -1) return;
    const taken = heads[best]!;
    const run = taken.head.run;
    const after = taken.it.next();
    if (after.done) heads.splice(best, 1);
    else taken.head = after.value;
    if (keep(run) && once(run)) yield run;
  }
}

/** The newest `limit` runs (all of them without a limit), newest first. */
export async function collectRuns(query: RunsQuery, opts: ListOptions): Promise<Run[]> {
  const found: Run[] = [];
  const limit = query.limit ?? Infinity;
  if (limit <= 0) return found;
  for await (const run of runsNewestFirst(query, opts)) {
    found.push(run);
    if (found.length >= limit) break;
  }
  return found;
}

/** Runs by recency (1 = the newest run), oldest first, like records picked from a log. */
export async function selectRecentRuns(query: RunsQuery, recency: Recency, opts: ListOptions): Promise<Run[]> {
  const runs = await collectRuns({ ...query, limit: recency.to }, opts);
  const who = query.by === 'me' ? 'by you' : query.by === 'agent' ? 'by an agent' : 'by you or an agent';
  const where = opts.global ? '' : ' in this workspace';
  if (runs.length === 0) throw new SivtrError(`no command run ${who}${where} yet`, opts.global ? 'run one first, then try again' : 'add --global to count every workspace');
  if (runs.length < recency.to) throw new SivtrError(`only ${count(runs.length, 'command')} run ${who}${where}`, 'try a smaller selector');
  return runs.slice(recency.from - 1, recency.to).reverse();
}

/** What `copy … --by` copies: the runs as records, with what was copied named by their refs. */
export function pickRuns(runs: Run[], aspect: Aspect, opts: RenderOptions): { text: string; plain: string; what: string; ref?: string } {
  const units = runs.map((r) => r.unit);
  const text = unitsText(units, aspect, opts);
  const plain = opts.ansi ? unitsText(units, aspect, { ...opts, ansi: false }) : text;
  const first = runs[0]!;
  const what = runs.length === 1 ? `${first.ref} ${first.unit.title}` : `${first.ref}–${runs.at(-1)!.ref}`;
  // One run has a ref that shows all of it (what copy --budget names when it cuts).
  return { text, plain, what, ...(runs.length === 1 ? { ref: first.fullRef } : {}) };
}
