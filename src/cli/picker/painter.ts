// Puts the picker's frames on the terminal: only the lines that changed since the frame before,
// each written at its own row, inside one synchronized update (ESC[?2026h … ESC[?2026l) so a
// terminal that honours it never shows a frame half drawn. The lines are final when they get
// here (frame.ts fits each one to the screen's width, colours closed), so nothing is measured
// or parsed again: Ink's renderer re-tokenised every line of every frame into one object per
// cell, which was most of what a keystroke cost.

export const SYNC_START = '\x1b[?2026h';
export const SYNC_END = '\x1b[?2026l';

/** What is on the screen: its lines, on a terminal of `cols` × `rows`. */
export type Painted = { lines: readonly string[]; cols: number; rows: number };

export class Painter {
  private shown: Painted | undefined;

  /** `shown`: what the screen shows already (the frame drawn before Ink had loaded). */
  constructor(shown?: Painted) {
    this.shown = shown;
  }

  /** The bytes that turn the screen into `next` ('' when it shows that already). */
  update(next: Painted): string {
    const before = this.shown;
    // Another size (or the first frame): every line moved, and what is outside the frame is stale.
    const whole = before === undefined || before.cols !== next.cols || before.rows !== next.rows;
    let out = whole ? '\x1b[H\x1b[2J' : '';
    for (let i = 0; i < next.lines.length; i++) {
      if (whole || next.lines[i] !== before.lines[i]) out += `\x1b[${i + 1};1H${next.lines[i]}`;
    }
    if (!whole) for (let i = next.lines.length; i < before.lines.length; i++) out += `\x1b[${i + 1};1H\x1b[2K`;
    this.shown = { lines: [...next.lines], cols: next.cols, rows: next.rows };
    return out === '' ? '' : SYNC_START + out + SYNC_END;
  }
}
