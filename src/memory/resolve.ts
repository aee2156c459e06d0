// Ref → the units (and maybe one part) it names.
import { SivtrError } from '../errors.js';
import { parseRef, type Ref } from './ref.js';
import { restoreResolved } from './restore.js';
import { getSource } from './sources.js';
import type { ListOptions, OpenedSession, Part, Unit } from './types.js';

/**
 * `single`: the ref names one unit (`terminal/3f2a/4`, or `history/12`, a capture), not a list.
 * `parts`: the parts a ref names (`…/3/p2-4`), in order; `part` when it names exactly one.
 */
export type Resolved = {
  ref: Ref;
  session: OpenedSession;
  units: Unit[];
  part?: Part;
  parts?: Part[];
  single: boolean;
  /** Tool outputs the agent cut: restored from its side file, or how much was cut (one line each, for stderr). */
  notes?: string[];
};

/** What a ref names, with every cut tool output in it restored where the agent kept the full text. */
export async function resolveRef(text: string, opts: ListOptions): Promise<Resolved> {
  return restoreResolved(await resolveAsRecorded(text, opts));
}

async function resolveAsRecorded(text: string, opts: ListOptions): Promise<Resolved> {
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
  if (ref.parts === undefined) return { ref, session, units, single: units.length === 1 };
  const unit = units[0]!;
  const byN = new Map(unit.parts.map((p) => [p.n, p]));
  const parts = ref.parts.map((n) => {
    const part = byN.get(n);
    if (!part) throw new SivtrError(`${unit.ref} has no part p${n} (it has p1–p${unit.parts.length})`, `use p1–p${unit.parts.length}`);
    return part;
  });
  return parts.length === 1 ? { ref, session, units, part: parts[0]!, parts, single: true } : { ref, session, units, parts, single: true };
}
