// A long text cut to a budget, keeping what a reader (or an agent) needs from it: the lines that
// report errors and warnings with their context, the head and the tail, and repeated lines
// collapsed with a count. What is left out is said in place (`[… 120 lines left out …]`) and at
// the end, with the ref that holds the whole text.
import { UsageError } from '../errors.js';

export type Budget = { chars: number; label: string };

/** Tokens are estimated at 4 characters each, the usual figure for English text and code. */
export const CHARS_PER_TOKEN = 4;

/** `2k` / `2000` tokens, `8000c` / `8kc` characters. */
export function parseBudget(text: string): Budget {
  const m = /^(\d+(?:\.\d+)?)(k?)(c?)$/i.exec(text.trim());
  if (!m) throw new UsageError(`--budget ${text} is not a budget`, 'give tokens (2000, 2k) or characters (8000c, 8kc)');
  const n = Number(m[1]) * (m[2] ? 1000 : 1);
  if (!(n >= 1)) throw new UsageError(`--budget ${text} is too small`, 'give at least 1 token or character');
  const chars = m[3] ? Math.floor(n) : Math.floor(n * CHARS_PER_TOKEN);
  return { chars, label: m[3] ? `${chars} characters` : `${Math.round(n)} tokens (estimated)` };
}

const IMPORTANT = /\b\w*(?:Error|Exception)\b|\b(?:error|errors|fail(?:ed|ure|s)?|fatal|panic(?:ked)?|exception|traceback|warn(?:ing)?s?|denied|refused|cannot|can't|unable|segmentation fault|undefined reference|not found|assert(?:ion)?)\b|✗|✘|×|\bERR!|^\s*E\s|^FAIL\b/i;
const CONTEXT_BEFORE = 2;
const CONTEXT_AFTER = 3;
const HEAD = 5;
const TAIL = 10;
/** Longer lines keep their start and end. */
const LONG_LINE = 400;

type Line = {
  text: string;
  /** How many original lines it stands for. */
  count: number;
  /** A summary of lines that are themselves left out (`[… 12 similar lines …]`). */
  summary?: boolean;
};

/** Runs of one repeated line become one line with a count; runs of lines that differ only in their digits keep their first and last. */
function collapse(lines: string[]): Line[] {
  const out: Line[] = [];
  const shape = (s: string): string => s.replace(/\d+/g, '#');
  for (let i = 0; i < lines.length; ) {
    let j = i + 1;
    while (j < lines.length && lines[j] === lines[i]) j++;
    if (j - i > 1) {
      out.push({ text: `${lines[i]}  [×${j - i}]`, count: j - i });
      i = j;
      continue;
    }
    let k = i + 1;
    while (k < lines.length && lines[k] !== lines[k - 1] && shape(lines[k]!) === shape(lines[i]!) && /\d/.test(lines[i]!)) k++;
    if (k - i >= 4) {
      out.push({ text: lines[i]!, count: 1 });
      out.push({ text: `[… ${k - i - 2} similar lines …]`, count: k - i - 2, summary: true });
      out.push({ text: lines[k - 1]!, count: 1 });
      i = k;
      continue;
    }
    out.push({ text: lines[i]!, count: 1 });
    i++;
  }
  return out;
}

function shorten(line: string): string {
  if (line.length <= LONG_LINE) return line;
  const keep = LONG_LINE / 2 - 20;
  return `${line.slice(0, keep)} [… ${line.length - 2 * keep} chars …] ${line.slice(-keep)}`;
}

export type Fitted = { text: string; cut: boolean; keptLines: number; totalLines: number };

const GAP_COST = 32;
const gapLine = (n: number): string => `[… ${n === 1 ? '1 line' : `${n} lines`} left out …]`;

/**
 * `text` within `budget.chars`, footer included. `ref` names where the whole text is. A text that
 * fits is returned as it is.
 */
export function fitToBudget(text: string, budget: Budget, ref: string | undefined): Fitted {
  const original = text.split('\n');
  if (text.length <= budget.chars) return { text, cut: false, keptLines: original.length, totalLines: original.length };
  const lines = collapse(original).map((l) => ({ ...l, text: shorten(l.text) }));
  const n = lines.length;
  // Candidates in order of what matters: the first lines and the last (where runners print their
  // summary), each error or warning line, then their context, then more of the tail and the head.
  const order: number[] = [];
  const push = (i: number): void => {
    if (i >= 0 && i < n) order.push(i);
  };
  const important: number[] = [];
  for (let i = 0; i < n; i++) if (!lines[i]!.summary && IMPORTANT.test(lines[i]!.text)) important.push(i);
  for (let i = 0; i < Math.min(2, n); i++) push(i);
  for (let i = n - 1; i >= Math.max(0, n - 3); i--) push(i);
  for (const i of important) push(i);
  for (const i of important) {
    for (let d = 1; d <= Math.max(CONTEXT_BEFORE, CONTEXT_AFTER); d++) {
      if (d <= CONTEXT_AFTER) push(i + d);
      if (d <= CONTEXT_BEFORE) push(i - d);
    }
  }
  for (let i = n - 4; i >= Math.max(0, n - TAIL); i--) push(i);
  for (let i = 2; i < Math.min(HEAD, n); i++) push(i);
  for (let d = 0; d < n; d++) {
    push(HEAD + d);
    push(n - 1 - TAIL - d);
  }
  const footerRoom = 160 + (ref?.length ?? 0);
  const room = Math.max(0, budget.chars - footerRoom);
  const kept = new Uint8Array(n);
  // Cost of the rendering: kept lines plus one marker per gap (bounded by a marker's length each).
  let used = 0;
  for (const i of order) {
    if (kept[i]) continue;
    // The line, and the gap markers it adds (a line between two gaps splits one into two) or removes.
    const before = i === 0 || kept[i - 1] === 1;
    const after = i === n - 1 || kept[i + 1] === 1;
    const cost = lines[i]!.text.length + 1 + (before && after ? -GAP_COST : !before && !after ? GAP_COST : 0);
    if (used + cost > room) continue;
    kept[i] = 1;
    used += cost;
  }
  const out: string[] = [];
  let keptOriginal = 0;
  let gap = 0;
  for (let i = 0; i < n; i++) {
    const line = lines[i]!;
    if (!kept[i]) {
      gap += line.count;
      continue;
    }
    if (gap > 0) out.push(gapLine(gap));
    gap = 0;
    out.push(line.text);
    if (!line.summary) keptOriginal += line.count;
  }
  if (gap > 0) out.push(gapLine(gap));
  const left = original.length - keptOriginal;
  const whole = ref ? ` — the whole text: sivtr show ${ref}` : '';
  out.push(`[budget ${budget.label}: kept ${keptOriginal} of ${original.length} lines, left out ${left} (${text.length} characters in all)${whole}]`);
  let result = out.join('\n');
  // Markers were estimated; a result still over the budget loses the end of the kept lines (never the footer).
  if (result.length > budget.chars) result = result.slice(0, Math.max(0, budget.chars - out.at(-1)!.length - 3)) + '\n…\n' + out.at(-1)!;
  return { text: result, cut: true, keptLines: keptOriginal, totalLines: original.length };
}
