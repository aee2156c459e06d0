// The one JSONL line rule, checked on every way sivtr reads lines: streamed, in memory, by byte
// ranges (the log offsets scan), and through the head, tail and first-record helpers.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bufferLines, firstLine, firstRecord, headRecords, jsonlLines, jsonlLinesSync, jsonlWindowsSync, newJsonlStats, parseJsonlLine, parseWholeLines, readJsonl, readJsonlSync, tailRecords, textRecords, type JsonlStats,
} from '../../src/session/jsonl.js';
import { parseLog } from '../../src/session/log.js';
import { readSpan, scanLogOffsets, spanCount } from '../../src/session/log-offsets.js';
import { tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const rec = (n: number, extra: Record<string, unknown> = {}) => JSON.stringify({ prompt: '$ ', command: `c${n}`, output: `o${n}`, ...extra });

function file(name: string, text: string | Buffer): string {
  const path = join(tmp.path, name);
  writeFileSync(path, text);
  return path;
}

async function streamed(path: string, stats: JsonlStats = newJsonlStats()): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const v of readJsonl(path, stats)) out.push(v);
  return out;
}

/** The synchronous line reader under the same rule (what the index reads terminal logs with). */
function syncRead(path: string, stats: JsonlStats = newJsonlStats()): unknown[] {
  const out: unknown[] = [];
  for (const { line, terminated } of jsonlLinesSync(path)) {
    const value = parseJsonlLine(line, stats, !terminated);
    if (value !== undefined) out.push(value);
  }
  return out;
}

/** Every reader must agree on the records of a file, and on what it skipped. */
async function allReaders(path: string, text: string): Promise<{ records: unknown[]; stats: JsonlStats }> {
  const stats = newJsonlStats();
  const records = await streamed(path, stats);
  const inMemory = newJsonlStats();
  expect(textRecords(text, inMemory)).toEqual(records);
  expect(inMemory).toEqual(stats);
  expect(readJsonlSync(path)).toEqual(records);
  const sync = newJsonlStats();
  expect(syncRead(path, sync)).toEqual(records);
  expect(sync).toEqual(stats);
  expect(headRecords(path, 1 << 20, Buffer.byteLength(text))).toEqual(records);
  expect(tailRecords(path, Buffer.byteLength(text), 1 << 20)).toEqual(records);
  return { records, stats };
}

describe('the JSONL line rule', () => {
  it('skips blank and whitespace-only lines without counting them', async () => {
    const text = `${rec(1)}\n\n   \n\t\n${rec(2)}\n\n`;
    const { records, stats } = await allReaders(file('a.jsonl', text), text);
    expect(records).toHaveLength(2);
    expect(stats).toEqual({ malformed: 0, nulPadded: 0, partialTail: false });
  });

  it('reads CRLF files the same as LF files, and splits on \\n only', async () => {
    const lf = `${rec(1)}\n${rec(2, { output: 'a\rb\u2028c' })}\n`;
    const crlf = lf.replace(/\n/g, '\r\n');
    const a = await allReaders(file('lf.jsonl', lf), lf);
    const b = await allReaders(file('crlf.jsonl', crlf), crlf);
    expect(b).toEqual(a);
    expect((a.records[1] as { output: string }).output).toBe('a\rb\u2028c');
    // A CR-only blank line is blank.
    expect(textRecords(`${rec(1)}\r\n\r\n${rec(2)}\r\n`)).toHaveLength(2);
  });

  it('skips and counts NUL-padded lines (a crash leaves zeros behind), and keeps the next record', async () => {
    const text = `${rec(1)}\n${'\0'.repeat(64)}\n\0\0\0${rec(2)}\n${rec(3)}\n`;
    const { records, stats } = await allReaders(file('nul.jsonl', text), text);
    expect(records.map((r) => (r as { command: string }).command)).toEqual(['c1', 'c3']);
    expect(stats).toEqual({ malformed: 0, nulPadded: 2, partialTail: false });
  });

  it('counts a record holding a raw NUL inside a string as NUL-padded, and reads an escaped one', async () => {
    const text = `${rec(1)}\n${rec(2).replace('c2', 'c\u00002')}\n${rec(3, { output: 'a\u0000b' })}\n`;
    const { records, stats } = await allReaders(file('nul-in-string.jsonl', text), text);
    expect(records.map((r) => (r as { command: string }).command)).toEqual(['c1', 'c3']);
    expect((records[1] as { output: string }).output).toBe('a\u0000b');
    expect(stats).toEqual({ malformed: 0, nulPadded: 1, partialTail: false });
  });

  it('flags an unterminated, unparseable last line as a partial tail, not as malformed', async () => {
    const text = `${rec(1)}\nnot json\n${rec(2).slice(0, 20)}`;
    const { records, stats } = await allReaders(file('tail.jsonl', text), text);
    expect(records).toHaveLength(1);
    expect(stats).toEqual({ malformed: 1, nulPadded: 0, partialTail: true });
    // A complete last record without its newline is a record.
    const whole = `${rec(1)}\n${rec(2)}`;
    expect((await allReaders(file('whole.jsonl', whole), whole)).records).toHaveLength(2);
  });

  it('reads a line larger than the stream buffer whole', async () => {
    const big = 'x'.repeat(3 * (1 << 20) + 17) + '进度';
    const text = `${rec(1)}\n${rec(2, { output: big })}\n${rec(3)}\n`;
    const path = file('huge.jsonl', text);
    const records = (await streamed(path)) as { output: string }[];
    expect(records.map((r) => r.output.length)).toEqual([2, big.length, 2]);
    expect(records[1]!.output).toBe(big);
    expect(textRecords(text)).toEqual(records);
    expect(syncRead(path)).toEqual(records);
  });

  it('gives the same lines and end offsets streamed or read synchronously, from any start, across read buffers', async () => {
    // A two-byte character straddles the first 1 MiB read; the last line has no newline yet.
    const first = JSON.stringify({ command: 'c', output: 'y'.repeat((1 << 20) - 30) + 'é'.repeat(8) });
    const text = `${first}\n${rec(2)}\n\n${rec(3)}\n${rec(4).slice(0, 9)}`;
    const path = file('edges.jsonl', text);
    for (const start of [0, Buffer.byteLength(first) + 1]) {
      const streamedLines: unknown[] = [];
      for await (const l of jsonlLines(path, { start })) streamedLines.push(l);
      expect([...jsonlLinesSync(path, { start })]).toEqual(streamedLines);
      expect(streamedLines.at(-1)).toEqual({ line: rec(4).slice(0, 9), terminated: false, end: Buffer.byteLength(text) });
    }
    expect((await streamed(path)).length).toBe(3);
  });

  it('gives each line of a read its own end offset when the read holds multi-byte and broken UTF-8', async () => {
    // One read decodes all its whole lines at once: the offsets must still be those of the bytes.
    const broken = Buffer.from([0x7b, 0x22, 0x63, 0x6f, 0x6d, 0x6d, 0x61, 0x6e, 0x64, 0x22, 0x3a, 0x22, 0xe2, 0x82, 0x22, 0x7d]); // a cut 3-byte character
    const lone = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x80, 0x80, 0x22, 0x7d]); // continuation bytes alone: one character each
    const text = Buffer.concat([
      Buffer.from(`${rec(1, { output: '会话 ✓ é' })}\n${rec(2)}\r\n`),
      broken,
      Buffer.from('\n'),
      lone,
      Buffer.from(`\n\n${rec(3, { output: '🙂'.repeat(3) })}\n${rec(4)}`),
    ]);
    const path = file('utf8.jsonl', text);
    const starts = [0];
    for (let i = text.indexOf(10); i !== -1; i = text.indexOf(10, i + 1)) starts.push(i + 1);
    for (const start of starts) {
      const streamedLines: unknown[] = [];
      for await (const l of jsonlLines(path, { start })) streamedLines.push(l);
      expect([...jsonlLinesSync(path, { start })]).toEqual(streamedLines);
    }
    const ends = [...jsonlLinesSync(path)].map((l) => l.end);
    expect(ends).toEqual([...starts.slice(1), text.length]);
  });

  it('gives the lines and end offsets of a read decoded in windows: multi-byte text, lines longer than a window, readers interleaved', async () => {
    // One 1 MiB read holds many windows of whole lines (each decoded apart): lines of every size
    // around a window's 64 KiB, some holding multi-byte characters, one of 200 KB.
    const lines: string[] = [];
    for (let i = 0; lines.join('\n').length < 3 << 20; i++) {
      const size = i % 7 === 3 ? 200_000 : [10, 700, 4000, 30_000, 65_000, 66_000][i % 6]!;
      lines.push(rec(i, { output: (i % 3 === 0 ? '会话é ' : 'plain ').repeat(Math.ceil(size / 6)) }));
    }
    const text = lines.join('\n') + '\n';
    const path = file('windows.jsonl', text);
    const other = file('other.jsonl', `${rec(1)}\n${rec(2)}\n${rec(3)}\n`);
    const streamedLines: unknown[] = [];
    for await (const l of jsonlLines(path)) streamedLines.push(l);
    expect(streamedLines.map((l) => (l as { line: string }).line)).toEqual(lines);
    // Two synchronous readers at once, each with its own read buffer.
    const a = jsonlLinesSync(path);
    const got: unknown[] = [];
    const interleaved: string[] = [];
    for (let r = a.next(); !r.done; r = a.next()) {
      got.push(r.value);
      if (got.length % 5 === 1) for (const l of jsonlLinesSync(other)) interleaved.push(l.line);
    }
    expect(got).toEqual(streamedLines);
    expect(interleaved).toEqual(Array.from({ length: Math.ceil(lines.length / 5) }, () => [rec(1), rec(2), rec(3)]).flat());
  });

  it('tells which lines a hint matches, tested once a window: in a window, in a line read in pieces, in the unterminated tail', () => {
    // Windows of 64 KiB lines, a few holding the hint; one line longer than a read (1 MiB) holding
    // it only at its end; an unterminated last line holding it.
    const lines: string[] = [];
    for (let i = 0; i < 4000; i++) lines.push(rec(i, { output: i % 997 === 5 ? `x NEEDLE ${i}` : `plain ${'y'.repeat(i % 90)}` }));
    lines.push(rec(4000, { output: `${'z'.repeat(1_200_000)} NEEDLE` }), rec(4001), rec(4002, { output: 'NEEDLE' }));
    const path = file('hint.jsonl', `${lines.join('\n')}`);
    const read = [...jsonlLinesSync(path, { hint: /NEEDLE/ })];
    expect(read.map((l) => l.line)).toEqual(lines);
    expect(read.map((l) => l.hinted)).toEqual(lines.map((l) => l.includes('NEEDLE')));
    expect(read.filter((l) => l.hinted).length).toBe(7);
    expect([...jsonlLinesSync(path)].every((l) => l.hinted === undefined)).toBe(true);
  });

  it('drops the lines a head or tail window cuts', () => {
    const lines = [rec(1), rec(2), rec(3), rec(4)];
    const text = lines.join('\n') + '\n';
    const path = file('w.jsonl', text);
    const size = Buffer.byteLength(text);
    const cut = lines[0]!.length + 1 + 10; // inside the second line
    expect(headRecords(path, cut, size)).toEqual([JSON.parse(lines[0]!)]);
    expect(tailRecords(path, size, size - cut)).toEqual([JSON.parse(lines[2]!), JSON.parse(lines[3]!)]);
    // A first line longer than the head window is read with a larger one.
    const long = rec(9, { output: 'y'.repeat(5000) });
    const p2 = file('long.jsonl', `${long}\n${rec(1)}\n`);
    expect(headRecords(p2, 1024, 1 << 20)).toEqual([JSON.parse(long), JSON.parse(rec(1))]);
  });

  it('finds the first record past blank and NUL-padded lines, and keeps a cut first line raw', () => {
    expect(firstRecord(`\n  \r\n\0\0\n${rec(1)}\n${rec(2)}`)).toEqual(JSON.parse(rec(1)));
    expect(firstRecord('\n\n')).toBeUndefined();
    expect(firstLine('{"timestamp":"t","type":"session_meta","payload":{"instr')).toEqual({
      line: '{"timestamp":"t","type":"session_meta","payload":{"instr',
      value: undefined,
    });
  });

  it('gives byte ranges that decode to the same lines', () => {
    const text = `${rec(1)}\r\n\n${rec(2)}\npartial`;
    const buf = Buffer.from(text);
    const ranges = [...bufferLines(buf, 100)];
    expect(ranges.map((r) => r.terminated)).toEqual([true, true, true, false]);
    expect(ranges.map((r) => buf.toString('utf8', r.start - 100, r.end - 100))).toEqual(text.split('\n'));
  });

  it('is the rule of terminal logs too: the offsets scan and a whole read agree with the reader', async () => {
    const text = `${rec(1)}\r\n\n\0\0\0\n{"not":"an entry"}\nbroken\n${rec(2)}\n${rec(3).slice(0, 15)}`;
    const path = file('t.jsonl', text);
    const env = { SIVTR_DATA_DIR: join(tmp.path, 'data') };
    const whole = parseLog(text);
    const scan = scanLogOffsets(path, env);
    expect(whole.entries.map((e) => e.command)).toEqual(['c1', 'c2']);
    expect(Array.from({ length: spanCount(scan) }, (_, i) => readSpan(path, scan, i).command)).toEqual(['c1', 'c2']);
    // NUL line, foreign line, broken line and the cut last line: a log's appends are whole lines.
    expect(whole.skipped).toBe(4);
    expect(scan.skipped).toBe(4);
  });

  it('parses a window of whole lines in one call only when that gives each line its own value', () => {
    const lines = (...l: string[]) => l.map((x) => `${x}\n`).join('');
    const one = rec(1);
    const two = rec(2, { cwd: '/srv/[x]', note: 'a "[" and a "]"' });
    // Each line its own value: plain objects, a \r before a newline, brackets inside strings,
    // nested objects where no "[" is.
    expect(parseWholeLines(lines(one, `${two}\r`))).toEqual([JSON.parse(one), JSON.parse(two)]);
    expect(parseWholeLines(lines(one, '{"a":{"b":1}}'))).toEqual([JSON.parse(one), { a: { b: 1 } }]);
    // Lines that are no value on their own, joined by one call into values (with a line of two
    // values keeping the count), a blank line, a line that does not start an object, a nested
    // array beside "[" elsewhere: never parsed in one call.
    const twoOnOneLine = `${one},${rec(3)}`;
    for (const window of [
      lines('{"command":"a","output":"o","x":[{}', '{}]}', twoOnOneLine),
      lines('{"command":"a","output":"o"', '"cwd":"/x"}', twoOnOneLine),
      lines('{"command":"a","output":"o', '{"}', twoOnOneLine),
      lines(one, '', two),
      lines(one, ` ${two}`),
      lines(one, '[1]'),
      lines(one, '{"x":[1]}'),
      lines(two, '{"a":{"b":1}}'),
      lines(one, 'not json'),
    ]) {
      expect(parseWholeLines(window), window).toBeUndefined();
    }
    // Whatever it parses is what parsing each line gives.
    for (let n = 1; n < 40; n++) {
      const ls = Array.from({ length: n }, (_, i) => rec(i, i % 4 === 0 ? { cwd: `/p[${i}]` } : { output: `会话 ${i}` }));
      expect(parseWholeLines(lines(...ls))).toEqual(ls.map((l) => JSON.parse(l)));
    }
  });

  it('hands over windows that hold exactly the lines jsonlLinesSync gives', () => {
    const text = Array.from({ length: 5000 }, (_, i) => rec(i, { output: i % 3 === 0 ? '会话é' : 'plain'.repeat(i % 50) })).join('\n') + '\npartial';
    const path = file('windows-whole.jsonl', text);
    const fromWindows: string[] = [];
    let end = 0;
    for (const w of jsonlWindowsSync(path)) {
      if (w.lines) fromWindows.push(...w.text.slice(0, -1).split('\n'));
      else fromWindows.push(w.text);
      expect(w.end).toBeGreaterThan(end);
      end = w.end;
    }
    expect(end).toBe(Buffer.byteLength(text));
    expect(fromWindows).toEqual([...jsonlLinesSync(path)].map((l) => l.line));
  });
});
