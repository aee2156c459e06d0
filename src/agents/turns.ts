// Turns (docs/formats.md): a turn starts at a real user message and runs to the next one.
// Turns are numbered 1.. over those holding an assistant reply, plus the final turn when it is
// still running; blocks before the first user message belong to no turn.
import type { Transcript, Block, BlockKind } from './types.js';

export type Turn = { number: number; blocks: Block[]; complete: boolean };

export function assembleTurns(session: Transcript): Turn[] {
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
    // A compaction after the reply (a /compact between turns) does not reopen the turn.
    const endsInReply = blocks.findLast((b) => b.kind !== 'compaction')?.kind === 'assistant';
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

type ReplyCandidate = { kind: BlockKind | string; commentary?: boolean };

/**
 * A turn's reply, the same rule for every provider: every assistant text after the turn's last
 * tool activity, in order (agents often answer in several messages). Progress notes (Codex
 * `commentary`) count only when there is nothing else; a turn whose last act was a tool call
 * falls back to its last assistant text.
 */
export function replyOf<T extends ReplyCandidate>(blocks: readonly T[]): T[] {
  let start = 0;
  blocks.forEach((b, i) => {
    if (b.kind === 'tool_call' || b.kind === 'tool_output') start = i + 1;
  });
  const after = blocks.slice(start).filter((b) => b.kind === 'assistant');
  const final = after.filter((b) => !b.commentary);
  if (final.length > 0) return final;
  if (after.length > 0) return after;
  const all = blocks.filter((b) => b.kind === 'assistant');
  const last = all.findLast((b) => !b.commentary) ?? all.at(-1);
  return last ? [last] : [];
}
