// search leaves out sivtr's own read-only commands: their output repeats the hit they printed.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeLog } from '../helpers/terminal-log.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  tmp = tempDir();
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
  writeLog(join(tmp.path, 'data'), 'own', [
    { prompt: '$ ', command: 'curl localhost:5432', output: 'curl: (7) connection refused', exit_code: 7 },
    { prompt: '$ ', command: 'sivtr show terminal/current/1', output: '$ curl localhost:5432\ncurl: (7) connection refused' },
    { prompt: '$ ', command: 'npx sivtr search refused', output: 'terminal/own/1  curl: (7) connection refused' },
    { prompt: '$ ', command: 'grep refused notes.txt', output: 'connection refused is the db' },
  ]);
});
afterAll(() => tmp.cleanup());

type Json = { hits: { ref: string }[]; total: number };
const refs = (...args: string[]): string[] => {
  const r = runCli(['search', 'terminal', 'refused', '--format', 'json', ...args], { env });
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as Json).hits.map((h) => h.ref).sort();
};

describe('search and sivtr\'s own commands', () => {
  it('finds the commands the user ran, not the show or search that printed them', () => {
    expect(refs()).toEqual(['terminal/own/1', 'terminal/own/4']);
    expect(refs('--no-index')).toEqual(['terminal/own/1', 'terminal/own/4']);
  });

  it('says how many it left out, and --include-self keeps them', () => {
    const r = runCli(['search', 'terminal', 'refused'], { env });
    expect(r.stderr).toContain("sivtr: left out 2 records of sivtr's own commands — add --include-self to see them\n");
    expect(refs('--include-self')).toEqual(['terminal/own/1', 'terminal/own/2', 'terminal/own/3', 'terminal/own/4']);
  });
});
