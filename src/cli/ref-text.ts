// The text of what a ref names, as show prints it and copy copies it: one part as it is, a part
// range or a turn with a heading per part, records as their rendered blocks.
import { renderPart, renderParts, unitText, isTerminalUnit } from '../memory/render.js';
import type { Resolved } from '../memory/resolve.js';
import { heading } from './output.js';

export function refText(resolved: Resolved, opts: { ansi?: boolean } = {}): string {
  const { units, part, parts } = resolved;
  if (part) return renderPart(part, opts);
  if (parts) return renderParts(parts, opts);
  return units.map((u) => (isTerminalUnit(u) ? unitText(u, 'block', opts) : `${heading(u.ref, u.complete)}\n${renderParts(u.parts, opts)}`)).join('\n\n');
}
