// A terminal log's records are packed as they are read (src/store/record-pack.ts): no unit is made
// per record. This holds that packing to what the records, made units, say about themselves — the
// same chunks either way, each record's metadata and kept texts read back from its chunk as its
// unit has them, and the gram keys of every part — over records that reach every corner of the
// fast paths: metadata JSON must escape, text that is not ASCII, NUL inside a part, colours, CRLF,
// blank parts, white space that is not ASCII, long outputs.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalSource } from '../../src/memory/terminal-source.js';
import type { Unit } from '../../src/memory/types.js';
import { hasText } from '../../src/session/entry.js';
import { keptText, statusOf } from '../../src/store/docs.js';
import { KeySet, keyToken } from '../../src/store/grams.js';
import { decodeRecordChunk, recordChunk, type PackedChunk } from '../../src/store/index-db.js';
import { RECORD_KINDS } from '../../src/store/record-chunks.js';
import { encodeRecords, packRecords, RecordPacker } from '../../src/store/record-pack.js';
import { tempDir } from '../helpers/cli.js';
import { writeLog, type RawEntry } from '../helpers/terminal-log.js';

const odd: (RawEntry | string)[] = [
  { prompt: '$ ', command: 'echo "quoted" \\ back\\slash', output: 'tab\there', cwd: '/srv/"app"\\x', ended_at: '2026-11-20T09:00:00Z', exit_code: 0 },
  { prompt: '', command: 'grep -rn 会话 src/', output: 'src/i18n.ts:3: 会话记录 🙂', cwd: '/srv/ünï', ended_at: '2026-11-21T09:00:00.250Z', exit_code: 1 },
  { prompt: '$ ', command: 'git log -1', output: 'Merge PR1137 (İstanbul)', ended_at: '2026-11-22T10:00:00+02:00' },
  '{"prompt":"$ ","command":"printf \'\\ud800\'","output":"lone \\udc00 half","exit_code":3}',
  { prompt: '$ ', command: 'nul\u0000inside', output: 'ctrl \u0001 char', exit_code: 0 },
  { prompt: '\x1b[32m$\x1b[0m ', command: 'ls --color', output: '\x1b[34msrc\x1b[0m\r\nREADME\r\n', exit_code: 0 },
  { prompt: '$ ', command: 'make', output: '10%\r50%\r100%\n', exit_code: 2, cwd: '/line\nbreak' },
  { prompt: '$ ', command: '\u3000', output: '' }, // white space only: keeps its position, not a record
  { prompt: '$ ', command: '\u3000', output: 'out of a blank command' },
  { prompt: '   ', command: 'true', output: '   \n  ', exit_code: 0 },
  { prompt: '$ ', command: 'cat big.log', output: `${'head line ok\n'.repeat(3000)}the middle\n${'tail line ok\n'.repeat(3000)}the end`, exit_code: 0 },
];

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  tmp = tempDir();
  const data = join(tmp.path, 'data');
  writeLog(data, '1111-1764400000', odd);
  // ASCII records enough for several chunks.
  writeLog(data, '2222-1764400001', Array.from({ length: 3000 }, (_, i) => ({ prompt: `me@box:~/P${i % 7}$ `, command: ['npm TEST', 'make', 'ls'][i % 3]!, output: `OK ${i} ${'x'.repeat(i % 40)}`, cwd: `/home/me/p${i % 7}`, ended_at: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(), exit_code: i % 5 === 0 ? 1 : 0 })));
  // Lines that are not entries on their own, written so that lines joined into one call to
  // JSON.parse would make entries of them (read line by line, as the units are, they are not):
  // an array, an object or a string left open on one line and closed on the next, next to a
  // line holding two entries that keeps the count of values. Then a nested object that is valid.
  const plain = (n: number) => ({ prompt: '$ ', command: `plain ${n}`, output: `ok ${n}`, exit_code: 0 });
  const joinedLines: [string, string][] = [
    ['{"command":"array","output":"o","x":[{}', '{}]}'],
    ['{"command":"object","output":"o"', '"cwd":"/x"}'],
    ['{"command":"string","output":"o', '{"}'],
  ];
  joinedLines.forEach(([open, close], i) =>
    writeLog(data, `${3333 + i}-1764400002`, [plain(1), open, close, plain(2), '{"command":"two","output":"o"},{"command":"three","output":"o"}', plain(3), '{"command":"nested","output":"o","x":{"a":1}}', plain(4)]),
  );
  env = { HOME: join(tmp.path, 'home'), SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(tmp.path, 'config') };
});

afterAll(() => tmp?.cleanup());

/** Each log read twice: its records streamed into a packer, and made units. */
async function readBothWays(): Promise<{ streamed: PackedChunk[]; units: Unit[]; fromUnits: PackedChunk[] }[]> {
  const plan = await terminalSource.index.plan({ env, persistent: true, previous: '', mark: () => undefined });
  const out = [];
  for (const s of plan.sessions) {
    const packer = new RecordPacker();
    const change = await s.update(packer.visit);
    if (change.kind !== 'read') throw new Error('unreadable log');
    expect(change.units).toEqual([]);
    const streamed = encodeRecords(packer.finish(), { persistent: true, sourceBytes: change.mark!.now.size });
    const again = await s.update();
    if (again.kind !== 'read') throw new Error('unreadable log');
    out.push({ streamed, units: again.units, fromUnits: packRecords(again.units, undefined, { persistent: true, sourceBytes: again.mark!.now.size }) });
  }
  return out;
}

const STATUS_LETTER = { success: 's', failure: 'f', unknown: 'u' } as const;

describe('records packed as they are read', () => {
  it('give the chunks their units give', async () => {
    const logs = await readBothWays();
    expect(logs.map((l) => l.streamed.length).sort()).toEqual([1, 1, 1, 1, 3]);
    for (const { streamed, fromUnits } of logs) expect(streamed).toEqual(fromUnits);
  });

  it('never make an entry of lines that are none on their own', async () => {
    const logs = await readBothWays();
    const crafted = logs.filter((l) => l.units.some((u) => u.title === 'nested'));
    expect(crafted).toHaveLength(3);
    for (const { units } of crafted) expect(units.map((u) => [u.index, u.title])).toEqual([[1, 'plain 1'], [2, 'plain 2'], [3, 'plain 3'], [4, 'nested'], [5, 'plain 4']]);
  });

  it('keep each record as its unit has it: index, time, cwd, status, title, kept texts, lead', async () => {
    for (const { streamed, units } of await readBothWays()) {
      let u = 0;
      for (const c of streamed) {
        const { text, records } = decodeRecordChunk({ data: c.data, records: c.records! });
        const chunk = recordChunk(1, 1, 0, text, records);
        const leadTexts: string[] = [];
        for (let k = 0; k < records.count; k++, u++) {
          const unit = units[u]!;
          const kept = unit.parts.map((p) => keptText(p.kind, p.text));
          expect(records.entry(k)).toEqual([unit.index, unit.at ?? null, unit.cwd ?? null, STATUS_LETTER[statusOf(unit)], unit.title, ...kept.map((t) => (t === undefined ? -1 : t.length))]);
          // Chunk text is UTF-8: a lone surrogate half reads back as U+FFFD, however it was packed.
          const stored = (t: string): string => Buffer.from(t, 'utf8').toString('utf8');
          expect(chunk.partsOf(k).map((p) => [p.n, p.kind, p.text])).toEqual(kept.flatMap((t, i) => (t === undefined ? [] : [[i + 1, RECORD_KINDS[i], stored(t)]])));
          if (kept[1] !== undefined) leadTexts.push(kept[1]);
        }
        expect(c.lead?.text).toBe(leadTexts.length > 0 ? leadTexts.join('\u0000') : undefined);
        expect(c.lead?.n ?? 0).toBe(leadTexts.length);
      }
      expect(u).toBe(units.length);
    }
  });

  it("hold the gram keys of every kept part, taken part by part", async () => {
    for (const { streamed, units } of await readBothWays()) {
      let u = 0;
      for (const c of streamed) {
        const keys = new KeySet();
        for (let k = 0; k < c.count; k++, u++) for (const p of units[u]!.parts) keys.addTextLowering(keptText(p.kind, p.text) ?? '');
        expect(c.keys.split(' ').sort()).toEqual(keys.keys.map(keyToken).sort());
      }
    }
  });

  it('tell white space from text as trim() does', () => {
    const spaces = ' \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';
    for (const s of ['', ...spaces, spaces, `${spaces}x`, 'x', '\u200b', '\u0085', '\u180e', '\u0000']) expect(hasText(s), JSON.stringify(s)).toBe(s.trim() !== '');
  });
});
