import { appendFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseLog } from '../../src/session/log.js';
import { readSpan, scanLogOffsets, spanCount, spanIsRecord } from '../../src/session/log-offsets.js';
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
