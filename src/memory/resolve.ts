// Ref → the units (and maybe one part) it names.
import { SivtrError } from '../errors.js';
import { parseRef, type Ref } from './ref.js';
import { getSource } from './sources.js';
import type { ListOptions, OpenedSession, Part, Unit } from './types.js';

export type Resolved = { ref: Ref; session: OpenedSession; units: Unit[]; part?: Part };

export function unitNoun(source: string): string {
  return source === 'terminal' ? 'record' : 'turn';
}

export async function resolveRef(text: string, opts: ListOptions): Promise<Resolved> {
  const ref = parseRef(text);
  const session = await getSource(ref.source).open(ref.session, opts);
  if (ref.indices === undefined) return { ref, session, units: session.units };
  const byIndex = new Map(session.units.map((u) => [u.index, u]));
  const units = ref.indices.map((i) => {
    const unit = byIndex.get(i);
    if (!unit) {
      const last = session.units.at(-1)?.index ?? 0;
      const noun = unitNoun(ref.source);
      throw new SivtrError(
        `${ref.source}/${session.info.displayId} has no ${noun} ${i}${last ? ` (${noun}s run 1–${last})` : ' (nothing recorded)'}`,
        `list them with \`sivtr show ${ref.source}/${session.info.displayId}\``,
      );
    }
    return unit;
  });
  if (ref.part === undefined) return { ref, session, units };
  const unit = units[0]!;
  const part = unit.parts.find((p) => p.n === ref.part);
  if (!part) {
    throw new SivtrError(`${unit.ref} has no part p${ref.part} (it has p1–p${unit.parts.length})`, `use p1–p${unit.parts.length}`);
  }
  return { ref, session, units, part };
}
