// What overview, turns and export count in one unit (an agent turn or a terminal record):
// parts by kind, commands run, failures, tokens, and when it started and ended. One place, so
// the three views always agree.
// TEMPORARY pieces, each to be replaced by the shared module once it is on main: failure
// (memory/failure.ts), shell commands (memory/shell-calls.ts), tokens (Part.usage) and the
// provider's end-of-turn record (Unit.ended) are read here from what exists today.
import type { Part, PartKind, Unit } from './types.js';

/** Tokens as the provider recorded them, each count apart: a cache re-read is not input. */
export type Tokens = { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };

/** The provider's own record of how a turn ended (see the `ended` fact on units). */
export type EndRecord = { state: 'completed' | 'aborted' | 'error'; evidence: string; at?: string };

type WithFacts = { usage?: Tokens; exitCode?: number };
type UnitWithEnd = Unit & { ended?: EndRecord };

export const endRecordOf = (unit: Unit): EndRecord | undefined => (unit as UnitWithEnd).ended;

/** A tool output (or a record's output) that failed: a non-zero exit code, or, when none was recorded, the provider's error flag. */
export function partFailed(part: Part): boolean {
  if (part.kind !== 'tool_output' && part.kind !== 'output') return false;
  const code = (part as Part & WithFacts).exitCode;
  if (code !== undefined) return code !== 0;
  return part.isError === true;
}

export function isTerminalRecord(unit: Unit): boolean {
  return unit.source === 'terminal' || unit.parts[0]?.kind === 'prompt';
}

/** Failures of a unit: a terminal record by its exit code, a turn by its failed tool outputs. */
export function failuresOf(unit: Unit): number {
  if (unit.exitCode !== undefined) return unit.exitCode !== 0 ? 1 : 0;
  return unit.parts.filter(partFailed).length;
}

const SHELL_TOOLS = new Set(['bash', 'shell', 'exec_command', 'shell_command', 'local_shell', 'run_shell_command', 'execute', 'launch-process', 'execute_command', 'run_terminal_cmd', 'terminal', 'execute_bash']);

/** Shell commands a unit ran: a terminal record is one (when it has a command), a turn its shell tool calls. */
export function commandsOf(unit: Unit): number {
  if (isTerminalRecord(unit)) return unit.parts[1]?.text.trim() ? 1 : 0;
  return unit.parts.filter((p) => p.kind === 'tool_call' && p.label !== undefined && SHELL_TOOLS.has(p.label.toLowerCase().split('__').at(-1)!)).length;
}

export function tokensOf(parts: readonly Part[]): Tokens | undefined {
  let seen = false;
  const sum: Required<Tokens> = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const present = new Set<keyof Tokens>();
  for (const part of parts) {
    const usage = (part as Part & WithFacts).usage;
    if (!usage) continue;
    seen = true;
    for (const key of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) {
      const v = usage[key];
      if (typeof v === 'number') {
        sum[key] += v;
        present.add(key);
      }
    }
  }
  if (!seen) return undefined;
  const out: Tokens = {};
  for (const key of present) out[key] = sum[key];
  return out;
}

export function addTokens(a: Tokens | undefined, b: Tokens | undefined): Tokens | undefined {
  if (!a) return b;
  if (!b) return a;
  const out: Tokens = { ...a };
  for (const key of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) if (b[key] !== undefined) out[key] = (out[key] ?? 0) + b[key]!;
  return out;
}

const timeMs = (iso: string | undefined): number | undefined => {
  if (iso === undefined) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
};

/** When a unit started and ended, from the timestamps it carries (a record: its end and duration). */
export function spanOf(unit: Unit): { start?: string; end?: string; durationMs?: number } {
  if (isTerminalRecord(unit)) {
    const end = unit.at;
    const endMs = timeMs(end);
    if (endMs !== undefined && unit.durationMs !== undefined) return { start: new Date(endMs - unit.durationMs).toISOString(), end, durationMs: unit.durationMs };
    return end !== undefined ? { end } : {};
  }
  const stamps = unit.parts.map((p) => p.timestamp).filter((t): t is string => timeMs(t) !== undefined);
  const endAt = endRecordOf(unit)?.at;
  if (endAt !== undefined && timeMs(endAt) !== undefined) stamps.push(endAt);
  if (stamps.length === 0) return unit.at !== undefined ? { end: unit.at } : {};
  const sorted = stamps.map((s) => [timeMs(s)!, s] as const).sort((a, b) => a[0] - b[0]);
  const first = sorted[0]!;
  const last = sorted.at(-1)!;
  return { start: first[1], end: last[1], durationMs: last[0] - first[0] };
}

export const PART_KINDS: readonly PartKind[] = ['user', 'assistant', 'thinking', 'tool_call', 'tool_output', 'compaction', 'prompt', 'command', 'output'];

export function countKinds(parts: readonly Part[], into: Partial<Record<PartKind, number>> = {}): Partial<Record<PartKind, number>> {
  for (const p of parts) into[p.kind] = (into[p.kind] ?? 0) + 1;
  return into;
}
