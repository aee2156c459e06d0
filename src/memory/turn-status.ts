// How each turn ended, with the evidence: never guessed. The provider's own records come first
// (a completion record, an interruption it wrote, an error that stopped the turn); then what
// followed the turn (a bare "continue" as the next prompt: the user had to push it on). Where
// neither says anything, the status is unknown.
import { endRecordOf, isTerminalRecord } from './unit-facts.js';
import type { Unit } from './types.js';

export type TurnStatusWord = 'finished' | 'running' | 'aborted' | 'unfinished' | 'unknown';
export type TurnStatus = { status: TurnStatusWord; evidence: string };

/** A prompt that only asks the agent to go on: what a user types after a turn that stopped short. */
const BARE_CONTINUE = /^\s*(?:please\s+)?(?:continue|go on|keep going|carry on|proceed|resume)(?:\s+please)?\s*[.!]*\s*$/i;

export function isBareContinue(text: string | undefined): boolean {
  return text !== undefined && BARE_CONTINUE.test(text);
}

const userText = (unit: Unit | undefined): string | undefined => unit?.parts.find((p) => p.kind === 'user')?.text;

function recordStatus(unit: Unit): TurnStatus {
  if (unit.exitCode !== undefined) return { status: 'finished', evidence: `exit code ${unit.exitCode}` };
  return { status: 'unknown', evidence: 'no exit code recorded' };
}

/**
 * The status of every unit of one session, in order. `sessionRecordsEnds`: the provider wrote an
 * end record for some turn of this session, so a turn without one is evidence in itself.
 */
export function turnStatuses(units: readonly Unit[]): TurnStatus[] {
  const recordsEnds = units.some((u) => endRecordOf(u) !== undefined);
  return units.map((unit, i) => {
    if (isTerminalRecord(unit)) return recordStatus(unit);
    const next = units[i + 1];
    const isLast = next === undefined;
    const end = endRecordOf(unit);
    const pushed = isBareContinue(userText(next)) ? `T${next!.index} is a bare "${userText(next)!.trim()}"` : undefined;
    const also = (evidence: string): string => (pushed ? `${evidence}; ${pushed}` : evidence);
    if (end?.state === 'aborted') return { status: 'aborted', evidence: also(end.evidence) };
    if (end?.state === 'error') return { status: 'unfinished', evidence: also(`stopped on an error: ${end.evidence}`) };
    if (end?.state === 'completed') {
      // The provider's record wins; a following "continue" is said beside it, not over it.
      return { status: 'finished', evidence: also(end.evidence) };
    }
    if (pushed) return { status: 'unfinished', evidence: pushed };
    if (recordsEnds) {
      if (isLast && unit.complete === false) return { status: 'running', evidence: 'no end record yet (earlier turns have one)' };
      if (!isLast) return { status: 'unfinished', evidence: `no end record before T${next.index} began (other turns have one)` };
      return { status: 'unknown', evidence: 'no end record (other turns have one)' };
    }
    if (isLast && unit.complete === false) return { status: 'unknown', evidence: 'no reply and no end record yet: running or stopped' };
    return { status: 'unknown', evidence: 'the provider recorded no end for this turn' };
  });
}
