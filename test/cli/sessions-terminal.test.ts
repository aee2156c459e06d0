import { join } from 'node:path';
import { appendFileSync, utimesSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { SAMPLE, writeLog } from '../helpers/terminal-log.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  tmp = tempDir();
  const data = join(tmp.path, 'data');
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: data });
  const older = writeLog(data, '4242-1764400000', SAMPLE.slice(0, 2));
  writeLog(data, '4343-1764409999', [...SAMPLE, { prompt: '$ ', command: ' ', output: '' }, 'not json']);
  utimesSync(older, 1764400000, 1764400000);
});
afterAll(() => tmp.cleanup());

describe('sessions terminal', () => {
  it('lists terminal logs newest first with their record counts and refs that resolve', () => {
    const r = runCli(['sessions', 'terminal', '--json'], { env });
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as { ref: string; id: string; turns: number }[];
    expect(list.map((s) => [s.id, s.turns])).toEqual([
      ['4343-1764409999', 4],
      ['4242-1764400000', 2],
    ]);
    expect(runCli(['show', `${list[1]!.ref}/2/p2`], { env }).stdout).toBe('make\n');
  });

  it('counts a record appended since the last listing', () => {
    const turns = () => (JSON.parse(runCli(['sessions', 'terminal', '--json'], { env }).stdout) as { id: string; turns: number }[]).find((s) => s.id === '4242-1764400000')!.turns;
    expect(turns()).toBe(2);
    appendFileSync(join(tmp.path, 'data', 'terminals', '4242-1764400000.jsonl'), JSON.stringify({ prompt: '$ ', command: 'date', output: 'today' }) + '\n');
    utimesSync(join(tmp.path, 'data', 'terminals', '4242-1764400000.jsonl'), 1764400001, 1764400001);
    expect(turns()).toBe(3);
  });
});
