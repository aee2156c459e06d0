// How a chunk's text is stored (src/store/index-db.ts, TextStorage): as is when a session's text
// is at most three quarters of the bytes it was read from, compressed otherwise; every form reads back to the
// same text, and the memory index never compresses.
import { describe, expect, it } from 'vitest';
import type { UnitDoc } from '../../src/store/docs.js';
import { decodeChunkText, packUnits, packUnitsAsync, type PackedChunk, type TextStorage } from '../../src/store/index-db.js';

/** Units of one output part each: `n` of them, about 2 KB of text apiece. */
function docs(n: number): UnitDoc[] {
  return Array.from({ length: n }, (_, i) => ({
    index: i,
    at: null,
    atText: null,
    cwd: null,
    status: 'success' as const,
    title: `unit ${i}`,
    complete: 1,
    parts: [
      { n: 1, kind: 'user', label: null, weight: 3, text: `question ${i} about PR1137 and 会话`, group: 1 },
      { n: 2, kind: 'tool_output', label: null, weight: 1, text: `line ${i} of snake_case output\n`.repeat(60), group: 2 },
    ],
    hash: String(i),
  }));
}

const textOf = (d: UnitDoc[]): string[] => d.map((u) => u.parts.map((p) => p.text).join('\u0000'));
const kinds = (chunks: PackedChunk[]): number[] => [...new Set(chunks.map((c) => c.data[0]!))];
const texts = (chunks: PackedChunk[]): string => chunks.map((c) => decodeChunkText({ parts: c.parts, data: c.data }).text).join('\u0000');

describe('chunk text storage', () => {
  const all = textOf(docs(100)).join('\u0000');
  const bytes = Buffer.byteLength(all);
  const cases: [string, TextStorage, number][] = [
    ['a transcript whose text is a tenth of its file: as is', { persistent: true, sourceBytes: 10 * bytes }, 0],
    ['a session whose text is half its file (a terminal log, a text-heavy transcript): as is', { persistent: true, sourceBytes: 2 * bytes }, 0],
    ['a session whose text is nine tenths of its file: compressed', { persistent: true, sourceBytes: Math.round(bytes / 0.9) }, 2],
    ['a source without a file size: compressed', { persistent: true }, 2],
    ['the memory index: never compressed', { persistent: false, sourceBytes: 1 }, 0],
  ];
  for (const [name, storage, kind] of cases) {
    it(name, async () => {
      const sync = packUnits(docs(100), storage);
      const async = await packUnitsAsync(docs(100), storage);
      expect(sync.length).toBeGreaterThan(1);
      expect(kinds(sync)).toEqual([kind]);
      expect(kinds(async)).toEqual([kind]);
      expect(texts(sync)).toBe(all);
      expect(texts(async)).toBe(all);
      if (kind === 2) expect(sync.reduce((n, c) => n + c.data.length, 0)).toBeLessThan(bytes / 4);
    });
  }
});
