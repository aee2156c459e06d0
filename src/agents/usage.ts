// How every provider turns the token counts it found in an agent's record into a TokenUsage, so
// the rules are written once (docs/formats.md, "Tokens"):
// - a count the agent did not record stays missing, never 0 (a session without a figure shows no
//   tokens line); a recorded 0 stays 0;
// - what is not a finite, non-negative number was not recorded: a negative count would take
//   tokens off every total it is summed into;
// - `input` is the fresh prompt only: where the agent's input count is the whole prompt, the
//   cache reads (and writes) it holds are taken out of it, never below 0;
// - `output` includes the reasoning, which is also kept apart;
// - usages are summed count by count; a count missing from every one stays missing.
// A provider only says which field of its record is which count, and how its record is shaped.
import type { TokenUsage } from './types.js';

const COUNTS = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const;

/** A token count as an agent recorded it, or undefined when the value is not one. */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The fields of one usage record, named by what they count, exactly as the agent wrote them. */
export type RecordedTokens = { input?: unknown; output?: unknown; cacheRead?: unknown; cacheWrite?: unknown; reasoning?: unknown };

/** How an agent's record counts differently from TokenUsage. */
export type RecordShape = {
  /**
   * The recorded input is the whole prompt and holds these counts too (OpenAI-style
   * `prompt_tokens` holds the cached part; Goose's `input_tokens` the cache reads and writes).
   */
  inputHolds?: readonly ('cacheRead' | 'cacheWrite')[];
  /**
   * Prompt tokens the record counts apart from its input, fresh input all the same (the Gemini
   * API's tool-use prompt). Added only to an input that was recorded.
   */
  promptApart?: unknown;
  /** The recorded output leaves the reasoning out (the Gemini API's thoughts). */
  outputLacksReasoning?: boolean;
};

/** One usage record as a TokenUsage; undefined when it holds no count at all. */
export function tokenUsage(recorded: RecordedTokens, shape: RecordShape = {}): TokenUsage | undefined {
  const c = {
    input: tokenCount(recorded.input),
    output: tokenCount(recorded.output),
    cacheRead: tokenCount(recorded.cacheRead),
    cacheWrite: tokenCount(recorded.cacheWrite),
    reasoning: tokenCount(recorded.reasoning),
  };
  const usage: TokenUsage = {};
  if (c.input !== undefined) {
    const held = (shape.inputHolds ?? []).reduce((n, k) => n + (c[k] ?? 0), 0);
    usage.input = Math.max(0, c.input - held) + (tokenCount(shape.promptApart) ?? 0);
  }
  if (shape.outputLacksReasoning) {
    // Either part is a recorded figure of the output: thoughts alone are output too.
    if (c.output !== undefined || c.reasoning !== undefined) usage.output = (c.output ?? 0) + (c.reasoning ?? 0);
  } else if (c.output !== undefined) usage.output = c.output;
  if (c.cacheRead !== undefined) usage.cacheRead = c.cacheRead;
  if (c.cacheWrite !== undefined) usage.cacheWrite = c.cacheWrite;
  if (c.reasoning !== undefined) usage.reasoning = c.reasoning;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/**
 * Usages added count by count (several records of one response, of one turn, or the rows of a
 * session chain). A count stays missing only when every usage lacks it.
 */
export function sumUsage(...usages: (TokenUsage | undefined)[]): TokenUsage | undefined {
  let sum: TokenUsage | undefined;
  for (const u of usages) {
    if (!u) continue;
    sum ??= {};
    for (const k of COUNTS) if (u[k] !== undefined) sum[k] = (sum[k] ?? 0) + u[k];
  }
  return sum;
}

/**
 * A running total the agent keeps for a whole session (Hermes' session columns, Droid's
 * settings file) holds zeros before anything is counted (Hermes' columns default to 0, and its
 * versions that count nothing leave them there): all zero is no figure, not a session that used
 * nothing. A record of one model response is written because the response happened, so its
 * zeros are figures.
 */
export function runningTotal(usage: TokenUsage | undefined): TokenUsage | undefined {
  return usage && COUNTS.some((k) => (usage[k] ?? 0) > 0) ? usage : undefined;
}
