// Turns (agent-formats.md §1.2): a turn starts at a real user message and runs to the next one.
// Turns are numbered 1.. over those holding an assistant reply, plus the final turn when it is
// still running; blocks before the first user message belong to no turn.
import type { AgentSession, Block } from './types.js';

export type Turn = { number: number; blocks: Block[]; complete: boolean };

export function assembleTurns(session: AgentSession): Turn[] {
  const groups: Block[][] = [];
  for (const block of session.blocks) {
    if (block.kind === 'user') groups.push([block]);
    else if (groups.length > 0) groups.at(-1)!.push(block);
  }
  const turns: Turn[] = [];
  groups.forEach((blocks, i) => {
    const isLast = i === groups.length - 1;
    const hasReply = blocks.some((b) => b.kind === 'assistant');
    if (!hasReply && !isLast) return;
    const endsInReply = blocks.at(-1)?.kind === 'assistant';
    const complete = hasReply && (!isLast || (endsInReply && !session.lastTurnOpen));
    turns.push({ number: turns.length + 1, blocks, complete });
  });
  return turns;
}

/** The newest turn that finished; a turn still running is skipped. */
export function lastCompletedTurn(turns: Turn[]): Turn | undefined {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]!.complete) return turns[i];
  return undefined;
}
