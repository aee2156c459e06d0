// A tool output the agent cut before writing it to its transcript, brought back whole when the
// agent kept the full text elsewhere (Pi's bash tool writes it to a temp file and records the
// path). When the full text is gone, the part says it was cut and by how much, from the agent's
// own figures. Done when a part is shown or copied, never while indexing: the side file is the
// agent's, may vanish at any time, and is read only for the part a person asked for.
import { readFileSync, statSync } from 'node:fs';
import stripAnsi from 'strip-ansi';
import type { Resolved } from './resolve.js';
import type { Part, Unit } from './types.js';

/** Side files larger than this are not read back (the recorder keeps no more of a terminal output either). */
const MAX_RESTORE_BYTES = 64 * 1024 * 1024;

function cutNote(part: Part): string {
  const t = part.truncated!;
  const lines = t.totalLines !== undefined && t.shownLines !== undefined ? `kept ${t.shownLines} of ${t.totalLines} lines` : undefined;
  const bytes = t.totalBytes !== undefined && t.shownBytes !== undefined ? `${t.shownBytes} of ${t.totalBytes} bytes` : undefined;
  const how = [lines, bytes].filter(Boolean).join(', ');
  const gone = t.fullOutputPath ? `; the full text at ${t.fullOutputPath} is gone` : '';
  return `the agent cut this output${how ? ` (${how})` : ''}${gone}`;
}

/** The part with its full text when the agent's side file is still there, else as it is. */
export function restorePart(part: Part): Part {
  const path = part.truncated?.fullOutputPath;
  if (!path) return part;
  try {
    if (statSync(path).size > MAX_RESTORE_BYTES) return part;
    let text = readFileSync(path, 'utf8');
    if (text.includes('\u001b')) text = stripAnsi(text);
    text = text.replace(/\s+$/, '');
    if (text === '') return part;
    return { ...part, text, restored: path };
  } catch {
    return part;
  }
}

/** Units whose cut tool outputs are restored where possible, and one note per part for stderr. */
export function restoreUnits(units: readonly Unit[]): { units: Unit[]; notes: string[] } {
  const notes: string[] = [];
  const out = units.map((unit) => {
    if (!unit.parts.some((p) => p.truncated)) return unit;
    const parts = unit.parts.map((p) => {
      if (!p.truncated) return p;
      const r = restorePart(p);
      const where = `${unit.ref}/p${p.n}`;
      notes.push(r.restored ? `${where}: restored the full output the agent cut, from ${r.restored}` : `${where}: ${cutNote(p)}`);
      return r;
    });
    return { ...unit, parts };
  });
  return { units: out, notes };
}

/** A resolved ref with its cut tool outputs restored; `notes` says what was restored or cut. */
export function restoreResolved(resolved: Resolved): Resolved {
  if (!resolved.units.some((u) => u.parts.some((p) => p.truncated))) return resolved;
  const { units, notes } = restoreUnits(resolved.units);
  const unit = units[0]!;
  const byN = new Map(unit.parts.map((p) => [p.n, p]));
  const result: Resolved = { ...resolved, units, notes };
  if (resolved.part) result.part = byN.get(resolved.part.n) ?? resolved.part;
  if (resolved.parts) result.parts = resolved.parts.map((p) => byN.get(p.n) ?? p);
  // Only what the ref names speaks: a note about another part of the same turn would mislead.
  if (resolved.parts) {
    const named = new Set(resolved.parts.map((p) => `${unit.ref}/p${p.n}:`));
    result.notes = notes.filter((n) => [...named].some((prefix) => n.startsWith(prefix)));
  }
  return result;
}
