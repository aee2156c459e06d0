// Plain text fitted to a number of terminal columns: cut with an ellipsis, or padded with spaces.
// The picker lays out its rows itself as whole lines, which keeps Ink's layout to one node a line.
import stringWidth from 'string-width';

/** `text` (no escape sequences) in exactly `width` columns. */
export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  const full = stringWidth(text);
  if (full <= width) return text + ' '.repeat(width - full);
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = stringWidth(ch);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return out + '…' + ' '.repeat(Math.max(0, width - 1 - used));
}

export const columns = (text: string): number => stringWidth(text);
