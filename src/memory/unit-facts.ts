// What overview, turns and export count in one unit (an agent turn or a terminal record):
// parts by kind, files written, commands run, failures, tokens, and when it started and ended.
// One place, so the three views always agree; every fact comes from the shared definitions
// (failure.ts, shell-calls.ts, file-ledger.ts, the provider's usage and end records).
import type { TokenUsage, TurnEnd } from '../agents/types.js';
import { sumUsage } from '../agents/usage.js';
import { failedParts } from './failure.js';
import { fileCounts, fileLedger } from './file-ledger.js';
import { shellCallOf } from './shell-calls.js';
import type { Part, PartKind, Unit } from './types.js';

/** Tokens as the provider recorded them, each count apart: a cache re-read is not input. */
export type Tokens = Pick<TokenUsage, 'input' | 'output' | 'cacheRead' | 'cacheWrite'>;

/** The provider's own record of how a turn ended. */
export type EndRecord = TurnEnd;

export const endRecordOf = (unit: Unit): EndRecord | undefined => unit.ended;

export function isTerminalRecord(unit: Unit): boolean {
  return unit.source === 'terminal' || unit.parts[0]?.kind === 'prompt';
}

/** Failures of a unit as failure.ts defines them: a record by its exit code, a turn by its failed tool outputs. */
export function failuresOf(unit: Unit): number {
  return failedParts(unit).length;
}

/** Shell commands a unit ran: a terminal record's command, a turn's shell tool calls. */
export function commandsOf(unit: Unit): number {
  return unit.parts.filter((p) => shellCallOf(p) !== undefined).length;
}

/** Distinct files a unit (or several) wrote and the write actions, as the file ledger counts them. */
export function filesOf(units: readonly Unit[]): { files: number; writes: number } {
  return fileCounts(fileLedger(units));
}

const TOKEN_COUNTS = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;

/** The counts of a usage that Tokens reports (reasoning is part of output where an agent counts it). */
function tokensIn(usage: TokenUsage | undefined): Tokens | undefined {
  if (!usage) return undefined;
  const out: Tokens = {};
  for (const key of TOKEN_COUNTS) if (usage[key] !== undefined) out[key] = usage[key];
  return out;
}

/** A unit's tokens: its parts' usages summed by the one rule of src/agents/usage.ts. */
export function tokensOf(parts: readonly Part[]): Tokens | undefined {
  let sum: TokenUsage | undefined;
  for (const part of parts) if (part.usage) sum = sumUsage(sum, part.usage);
  return tokensIn(sum);
}

export function addTokens(a: Tokens | undefined, b: Tokens | undefined): Tokens | undefined {
  return tokensIn(sumUsage(a, b));
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
