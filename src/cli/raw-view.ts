// `show --raw`: the transcript records behind the parts a ref names, as the agent wrote them,
// read through the locators the providers put on blocks (agents/raw.ts). A turn brings its
// provider's end-of-turn record too. A part the provider did not locate is named, never skipped
// in silence.
import { rawTransform, readRawRecords } from '../agents/raw.js';
import type { RawLocator } from '../agents/types.js';
import { SivtrError } from '../errors.js';
import type { Resolved } from '../memory/resolve.js';
import { partRef } from '../memory/ref.js';

/** `notes`: how records were changed on the way out (a decompressed database cell), once each. */
export type RawView = { locators: RawLocator[]; records: string[]; text: string; unlocated: string[]; notes: string[] };

export async function rawRecordsOf(resolved: Resolved): Promise<RawView> {
  const wanted: { ref: string; raw?: RawLocator }[] = [];
  const named = resolved.part ? [resolved.part] : resolved.parts;
  if (named) for (const p of named) wanted.push({ ref: partRef(resolved.units[0]!, p.n), raw: p.raw });
  else {
    for (const u of resolved.units) {
      for (const p of u.parts) wanted.push({ ref: partRef(u, p.n), raw: p.raw });
      if (u.ended?.raw) wanted.push({ ref: `${u.ref} (end of turn)`, raw: u.ended.raw });
    }
  }
  const locators: RawLocator[] = [];
  const seen = new Set<string>();
  const unlocated: string[] = [];
  for (const w of wanted) {
    if (!w.raw) {
      unlocated.push(w.ref);
      continue;
    }
    const key = JSON.stringify(w.raw);
    if (seen.has(key)) continue;
    seen.add(key);
    locators.push(w.raw);
  }
  if (locators.length === 0) {
    const source = resolved.session.info.source;
    throw new SivtrError(`${source} does not record where ${wanted.length === 1 ? 'this part' : 'these parts'} came from, so there is no raw record to show`, 'use `sivtr show` without --raw');
  }
  const records: string[] = [];
  const notes = new Set<string>();
  for (const l of locators) {
    records.push(...(await readRawRecords(l)));
    const how = rawTransform(l);
    if (how) notes.add(how);
  }
  // One record a line: JSONL lines stay as written; a database row or a JSON value is one JSON text.
  return { locators, records, text: records.join('\n') + '\n', unlocated, notes: [...notes] };
}
