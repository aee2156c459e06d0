import { appendFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseLog } from '../../src/session/log.js';
import { readSpan, recordCounts, scanLogOffsets, spanCount, spanIsRecord } from '../../src/session/log-offsets.js';
import { NO_RULES, useCaptureRules } from '../../src/session/capture-rules.js';
import { normaliseRaw, isRecord } from '../../src/session/entry.js';
import { readFileSync } from 'node:fs';
import { tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = tempDir();
  env = { SIVTR_DATA_DIR: join(tmp.path, 'data') };
});
afterEach(() => tmp.cleanup());

const line = (c: string, out = `out ${c}`) => JSON.stringify({ prompt: '$ ', command: c, output: out }) + '\n';

/** What the offsets scan sees must always equal a full parse of the file. */
function expectSameAsFullParse(path: string): void {
  const scan = scanLogOffsets(path, env);
  const full = parseLog(readFileSync(path, 'utf8'));
  expect(scan.skipped).toBe(full.skipped);
  const viaSpans = Array.from({ length: spanCount(scan) }, (_, i) => normaliseRaw(readSpan(path, scan, i)));
  expect(viaSpans).toEqual(full.entries);
  expect(Array.from({ length: spanCount(scan) }, (_, i) => spanIsRecord(scan, i))).toEqual(full.entries.map(isRecord));
}

describe('log offsets cache', () => {
  it('matches a full parse as the log grows, with corrupt, blank and partial lines', () => {
    const p = join(tmp.path, 'a.jsonl');
    writeFileSync(p, line('a') + '\n' + 'garbage\n' + line('b'));
    expectSameAsFullParse(p);
    expect(readdirSync(join(tmp.path, 'data', 'cache', 'logs'))).toHaveLength(1);
    appendFileSync(p, line('c') + JSON.stringify({ prompt: '', command: '  ', output: '' }) + '\n');
    expectSameAsFullParse(p);
    appendFileSync(p, '{"prompt":"$ ","command":"d","out'); // a writer mid-line
    expectSameAsFullParse(p);
    appendFileSync(p, 'put":"x"}\n');
    expectSameAsFullParse(p);
    expect(spanCount(scanLogOffsets(p, env))).toBe(5);
  });

  it('notices a rewrite (salvage, truncation, edit) and rescans', () => {
    const p = join(tmp.path, 'a.jsonl');
    writeFileSync(p, line('a') + line('b') + line('c'));
    expectSameAsFullParse(p);
    writeFileSync(p, line('a') + line('c')); // shorter
    expectSameAsFullParse(p);
    writeFileSync(p, line('x') + line('c') + line('more')); // same head length, different bytes
    expectSameAsFullParse(p);
  });

  it('works without a writable data dir', () => {
    const p = join(tmp.path, 'a.jsonl');
    writeFileSync(p, line('a'));
    writeFileSync(join(tmp.path, 'file'), '');
    env = { SIVTR_DATA_DIR: join(tmp.path, 'file', 'sub') }; // cannot be created: a file is in the way
    expectSameAsFullParse(p);
  });
});

describe('record counts of listed logs', () => {
  const listed = (...paths: string[]) => paths.map((path) => ({ path, size: statSync(path).size, mtimeMs: statSync(path).mtimeMs }));
  const fullCount = (path: string) => parseLog(readFileSync(path, 'utf8')).entries.filter(isRecord).length;
  const bump = (path: string, s: number) => utimesSync(path, s, s); // mtime granularity must not hide a change

  it('equal a full parse of each log as logs grow, are rewritten, vanish and the rules change', () => {
    const a = join(tmp.path, 'a.jsonl');
    const b = join(tmp.path, 'b.jsonl');
    writeFileSync(a, line('a') + line('b'));
    writeFileSync(b, line('x') + 'garbage\n' + line(' '));
    const expectFull = (...paths: string[]) => expect(recordCounts(listed(...paths), env)).toEqual(paths.map(fullCount));
    expectFull(a, b);
    expectFull(a, b); // from the counts file
    appendFileSync(a, line('c'));
    bump(a, 1764400001);
    expectFull(a, b);
    writeFileSync(b, line('y') + line('z') + line('w'));
    bump(b, 1764400002);
    expectFull(a, b);
    rmSync(a);
    expectFull(b);
    try {
      useCaptureRules({ ...NO_RULES, ignoreCommands: ['z'] });
      expect(recordCounts(listed(b), env)).toEqual([2]);
    } finally {
      useCaptureRules(NO_RULES);
    }
    expectFull(b);
  });

  it('lists an unreadable log without a count', () => {
    const gone = { path: join(tmp.path, 'gone.jsonl'), size: 10, mtimeMs: 1 };
    expect(recordCounts([gone], env)).toEqual([undefined]);
  });
});
