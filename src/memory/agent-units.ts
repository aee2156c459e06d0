// An agent session's turns as units: `<provider>/<displayId>/<turn>`, parts = the turn's blocks.
import { assembleTurns } from '../agents/turns.js';
import type { AgentSession } from '../agents/types.js';
import { formatRef } from './ref.js';
import type { Part, Unit } from './types.js';

export function sessionUnits(provider: string, displayId: string, session: AgentSession): Unit[] {
  return assembleTurns(session).map((turn) => {
    const parts: Part[] = turn.blocks.map((b, i) => {
      const part: Part = { n: i + 1, kind: b.kind, text: b.text };
      if (b.label !== undefined) part.label = b.label;
      if (b.callId !== undefined) part.callId = b.callId;
      if (b.timestamp !== undefined) part.timestamp = b.timestamp;
      if (b.isError) part.isError = true;
      if (b.commentary) part.commentary = true;
      return part;
    });
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
    if (session.cwd !== undefined) unit.cwd = session.cwd;
    return unit;
  });
}
