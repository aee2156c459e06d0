// An agent session's turns as units: `<provider>/<displayId>/<turn>`, parts = the turn's blocks.
import { assembleTurns } from '../agents/turns.js';
import type { Transcript } from '../agents/types.js';
import { formatRef } from './ref.js';
import type { Part, Unit } from './types.js';

export function sessionUnits(provider: string, displayId: string, session: Transcript): Unit[] {
  return assembleTurns(session).map((turn) => {
    // Every fact of a block flows into its part as it is: a new fact needs no line here.
    const parts: Part[] = turn.blocks.map(({ kind, text, ...facts }, i) => ({ n: i + 1, kind, text, ...facts }));
    const unit: Unit = {
      ref: formatRef(provider, displayId, turn.number),
      source: provider,
      session: displayId,
      index: turn.number,
      parts,
      title: session.title ?? '',
      complete: turn.complete,
    };
    const at = turn.blocks.findLast((b) => b.timestamp)?.timestamp;
    if (at !== undefined) unit.at = at;
    const endedAt = parts.findLast((p) => p.ended);
    if (endedAt) unit.ended = { ...endedAt.ended!, part: endedAt.n };
    if (session.cwd !== undefined) unit.cwd = session.cwd;
    return unit;
  });
}
