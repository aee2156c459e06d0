// The one definition of failure, for every command sivtr counts or filters by outcome (search
// --status, errors, overview, turns, runs): a command failed when it exited non-zero; when its
// exit code was not recorded, when the agent flagged it as an error. An exit code the agent did
// not record is unknown — never taken as 0.
import type { Part, Unit } from './types.js';

type Outcome = Pick<Part, 'kind' | 'exitCode' | 'isError'>;

/** A tool output or terminal command output that failed. */
export function partFailed(part: Outcome): boolean {
  if (part.kind !== 'tool_output' && part.kind !== 'output') return false;
  if (part.exitCode !== undefined) return part.exitCode !== 0;
  return part.isError === true;
}

/**
 * A terminal record failed when its exit code is non-zero (records keep it on the unit); an
 * agent turn failed when one of its tool outputs did.
 */
export function unitFailed(unit: Pick<Unit, 'exitCode' | 'parts'>): boolean {
  if (unit.exitCode !== undefined) return unit.exitCode !== 0;
  return unit.parts.some(partFailed);
}

/** The parts of a unit that failed: the record's output, or each failed tool output of a turn. */
export function failedParts(unit: Pick<Unit, 'exitCode' | 'parts'>): Part[] {
  if (unit.exitCode !== undefined) {
    if (unit.exitCode === 0) return [];
    const output = unit.parts.find((p) => p.kind === 'output') ?? unit.parts.find((p) => p.kind === 'command');
    return output ? [output] : [];
  }
  return unit.parts.filter(partFailed);
}
