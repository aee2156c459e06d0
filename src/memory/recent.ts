// Recency over terminal records. A record's ref index is its place in the log and never changes;
// recency (`1` = the last command) counts back over the records the user ran, passing over
// sivtr's own read-only commands unless `includeSelf` asks for them.
import { SivtrError } from '../errors.js';
import { isSivtrReadOnly } from './self-commands.js';
import type { Recency } from './selector.js';
import type { Unit } from './types.js';

export type RecencyOptions = { includeSelf?: boolean };

/** A recorded sivtr copy/show/diff/search/… that only printed what was already recorded. */
export function isOwnCommand(unit: Unit): boolean {
  return unit.parts[1]?.kind === 'command' && isSivtrReadOnly(unit.parts[1].text);
}

const counts = (unit: Unit, opts: RecencyOptions): boolean => opts.includeSelf === true || !isOwnCommand(unit);

/**
 * Records by recency from a log ordered oldest → newest; the result is oldest first. Walks back
 * from the newest record, so only the records it passes are read.
 */
export function selectRecentRecords(units: readonly Unit[], recency: Recency, opts: RecencyOptions = {}): Unit[] {
  const picked: Unit[] = [];
  let seen = 0;
  let skipped = 0;
  for (let i = units.length - 1; i >= 0 && seen < recency.to; i--) {
    const unit = units[i]!;
    if (!counts(unit, opts)) {
      skipped++;
      continue;
    }
    seen++;
    if (seen >= recency.from) picked.push(unit);
  }
  if (seen < recency.to) {
    const own = skipped > 0 ? ` besides ${skipped} of sivtr's own` : '';
    if (seen === 0) throw new SivtrError(`no command recorded yet${own}`, skipped > 0 ? 'run one first, or add --include-self to count sivtr\'s own commands' : 'run one first, then try again');
    throw new SivtrError(`only ${seen} command${seen === 1 ? '' : 's'} recorded${own}`, skipped > 0 ? 'try a smaller selector, or add --include-self' : 'try a smaller selector');
  }
  return picked.reverse();
}

/** The recency selector that names `unit` in its log (1 = the last command), if one does. */
export function recencyOf(units: readonly Unit[], unit: Unit, opts: RecencyOptions = {}): number | undefined {
  if (!counts(unit, opts)) return undefined;
  let n = 1;
  for (let i = units.length - 1; i >= 0; i--) {
    const other = units[i]!;
    if (other.index === unit.index) return n;
    if (other.index > unit.index && counts(other, opts)) n++;
  }
  return undefined;
}
