// Text for the preview pane. Records keep the colours they were shown in (SGR sequences), but
// any other control sequence (cursor moves, titles, OSC 8 links) would move the terminal's
// cursor out from under the painter: those go, tabs become spaces, and the text is cut to the
// lines that fit.

// CSI (ending in any final byte), OSC (ended by BEL or ST), and lone ESC-x escapes.
const SEQUENCE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]?/g;
const CONTROL = /[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]/g; // ESC (\x1b) is not one: what is left of it starts a kept colour

export function previewLines(text: string, keepColour: boolean, maxLines: number, skip = 0): string[] {
  const lines: string[] = [];
  let start = 0;
  let n = 0;
  while (start <= text.length && lines.length < maxLines) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl;
    if (n >= skip) lines.push(cleanLine(text.slice(start, end), keepColour));
    n++;
    if (nl === -1) break;
    start = nl + 1;
  }
  return lines;
}

export function cleanLine(line: string, keepColour: boolean): string {
  const cut = line.length > 2000 ? line.slice(0, 2000) : line;
  const noSeq = cut.replace(SEQUENCE, (seq) => (keepColour && seq.startsWith('\x1b[') && seq.endsWith('m') ? seq : ''));
  const clean = noSeq.replace(/\t/g, '    ').replace(/\r/g, '').replace(CONTROL, '');
  // A colour left open at the end of a line would bleed into the frame around it.
  return keepColour && clean.includes('\x1b[') ? clean + '\x1b[0m' : clean;
}

/** How many lines a text has (for the preview's scroll limit). */
export function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
