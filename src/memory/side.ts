// One side of a diff: a single recency selector (terminal) or any ref (record, turn or part).
import { SivtrError } from '../errors.js';
import { looksLikeRef } from './ref.js';
import { renderPart, unitText, type Aspect } from './render.js';
import { resolveRef } from './resolve.js';
import { parseRecency, selectRecent } from './selector.js';
import { getSource } from './sources.js';
import type { ListOptions } from './types.js';

export type Side = { label: string; text: string };

export async function resolveSide(spec: string, aspect: Aspect, opts: ListOptions & { ansi?: boolean }): Promise<Side> {
  if (looksLikeRef(spec)) {
    const { units, part } = await resolveRef(spec, opts);
    if (part) return { label: `${units[0]!.ref}/p${part.n}`, text: renderPart(part, opts) };
    if (units.length !== 1) throw new SivtrError(`diff takes one record per side, "${spec}" names ${units.length}`, 'give a single index, e.g. terminal/current/3');
    return { label: units[0]!.ref, text: unitText(units[0]!, aspect, opts) };
  }
  const recency = parseRecency(spec);
  if (recency.from !== recency.to) throw new SivtrError(`diff takes one record per side, not the range "${spec}"`, 'use N (1 = newest) or a ref');
  const session = await getSource('terminal').open('current', opts);
  const [unit] = selectRecent(session.units, recency, 'command');
  return { label: `#${unit!.index} ${unit!.title}`.trim(), text: unitText(unit!, aspect, opts) };
}
