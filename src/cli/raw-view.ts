// `show --raw`: the transcript records behind the parts a ref names, as the agent wrote them.
// TEMPORARY: until the raw-record locators on blocks are on main, the records of a JSONL
// transcript are found by what they hold (the part's call id, or its text as JSON escapes it).
import { readFileSync, statSync } from 'node:fs';
import { SivtrError } from '../errors.js';
import type { Resolved } from '../memory/resolve.js';
import type { Part } from '../memory/types.js';

export type RawRecord = { file: string; line: number; record: string };
export type RawView = { records: RawRecord[]; text: string };

function partsOf(resolved: Resolved): Part[] {
  if (resolved.part) return [resolved.part];
  if (resolved.parts) return resolved.parts;
  return resolved.units.flatMap((u) => u.parts);
}

function escaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** A piece of the part's text long enough to tell its record apart, as it appears inside JSON. */
function probes(part: Part): string[] {
  const out: string[] = [];
  const firstLine = part.text.split('\n').find((l) => l.trim().length > 0)?.trim();
  if (firstLine) out.push(escaped(firstLine.slice(0, 60)));
  return out;
}

export function rawRecordsOf(resolved: Resolved): RawView {
  const file = resolved.session.info.location;
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
  } catch {
    isFile = false;
  }
  if (!isFile || !/\.jsonl$/i.test(file)) {
    throw new SivtrError(`raw records of ${resolved.session.info.source} sessions cannot be read yet`, 'use `sivtr show` without --raw');
  }
  const lines = readFileSync(file, 'utf8').split('\n');
  const chosen = new Set<number>();
  for (const part of partsOf(resolved)) {
    const found: number[] = [];
    const texts = probes(part);
    lines.forEach((line, i) => {
      const byId = part.callId !== undefined && line.includes(JSON.stringify(part.callId));
      const byText = texts.some((t) => line.includes(t));
      if (part.callId !== undefined ? byId && (byText || texts.length === 0) : byText) found.push(i);
    });
    if (found.length === 0 && part.callId !== undefined) lines.forEach((line, i) => line.includes(JSON.stringify(part.callId)) && found.push(i));
    for (const i of found) chosen.add(i);
  }
  const records = [...chosen].sort((a, b) => a - b).map((i) => ({ file, line: i + 1, record: lines[i]! }));
  if (records.length === 0) throw new SivtrError(`no record of ${file} holds what ${resolved.ref.source}/${resolved.ref.session} shows`, 'use `sivtr show` without --raw');
  return { records, text: records.map((r) => r.record).join('\n') + '\n' };
}
