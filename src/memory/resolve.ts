// Ref → the units (and maybe one part) it names.
import { SivtrError } from '../errors.js';
import { parseRef, type Ref } from './ref.js';
import { getSource } from './sources.js';
import type { ListOptions, OpenedSession, Part, Unit } from './types.js';

/** `single`: the ref names one unit (`terminal/3f2a/4`, or `history/12`, a capture), not a list. */
export type Resolved = { ref: Ref; session: OpenedSession; units: Unit[]; part?: Part; single: boolean };

export async function resolveRef(text: string, opts: ListOptions): Promise<Resolved> {
  const ref = parseRef(text);
  const source = getSource(ref.source);
  const session = await source.open(ref.session, opts);
  if (ref.indices === undefined) return { ref, session, units: session.units, single: source.sessionIsUnit === true && session.units.length === 1 };
  const byIndex = new Map(session.units.map((u) => [u.index, u]));
  const units = ref.indices.map((i) => {
    const unit = byIndex.get(i);
    if (!unit) {
      const last = session.units.at(-1)?.index ?? 0;
      const noun = source.unitKind;
      throw new SivtrError(
        `${ref.source}/${session.info.displayId} has no ${noun} ${i}${last ? ` (${noun}s run 1–${last})` : ' (nothing recorded)'}`,
        `list them with \`sivtr show ${ref.source}/${session.info.displayId}\``,
      );
    }
    return unit;
  });
  if (ref.part === undefined) return { ref, session, units, single: units.length === 1 };
  const unit = units[0]!;
  const part = unit.parts.find((p) => p.n === ref.part);
  if (!part) {
    throw new SivtrError(`${unit.ref} has no part p${ref.part} (it has p1–p${unit.parts.length})`, `use p1–p${unit.parts.length}`);
  }
  return { ref, session, units, part, single: true };
}
