// What the first search (the one that builds index.db) loads of Node's own modules, each compiled
// function by function at every start: a build of under a second draws no progress bar, so it
// never makes process.stderr (on a pipe, node:net and the stream modules), and a new index.db is
// made once, not made, deleted (node:fs's rimraf) and made again. Read from
// process.moduleLoadList at exit, through a preloaded script, with stderr a pipe as a caller's is.
// And the search after a command was recorded (its log grew) tells the growth without node:crypto.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, tempDir } from '../helpers/cli.js';
import { SAMPLE, writeLog } from '../helpers/terminal-log.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let preload: string;
let listFile: string;
beforeAll(() => {
  tmp = tempDir('sivtr-cold-modules-');
  const data = join(tmp.path, 'data');
  env = cleanEnv(join(tmp.path, 'home'), { SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(tmp.path, 'config') });
  mkdirSync(env.HOME!, { recursive: true });
  writeLog(data, 'term-1', [...SAMPLE, { prompt: '$ ', command: 'curl localhost:8080', output: 'curl: (7) Connection refused', exit_code: 7 }]);
  listFile = join(tmp.path, 'modules.txt');
  preload = join(tmp.path, 'list-modules.cjs');
  writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listFile)}, process.moduleLoadList.join('\\n')));\n`);
});
afterAll(() => tmp.cleanup());

describe('Node modules a cold index build loads', () => {
  it('neither node:net (no stderr stream is made) nor node:fs rimraf (the new index.db is made once)', () => {
    expect(existsSync(join(env.SIVTR_DATA_DIR!, 'index.db'))).toBe(false);
    const r = spawnSync(process.execPath, ['-r', preload, BIN, 'search', 'refused', '--format', 'json'], { env, cwd: env.HOME, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hits.map((h: { ref: string }) => h.ref)).toEqual(['terminal/term-1/5']);
    const modules = readFileSync(listFile, 'utf8').split('\n');
    expect(modules).toContain('NativeModule internal/fs/utils'); // the list is Node's own, and read
    expect(modules.filter((m) => /^NativeModule (net|internal\/fs\/rimraf)$/.test(m))).toEqual([]);
  });

  it('a first build of many small terminal logs starts no helper thread (node:worker_threads)', () => {
    const data = join(tmp.path, 'many-logs');
    for (let l = 0; l < 48; l++) writeLog(data, `log-${l}`, Array.from({ length: 20 }, (_, i) => ({ prompt: '$ ', command: `make step-${i}`, output: i === 7 && l === 3 ? 'Connection refused' : `ok ${l} ${i}`, exit_code: 0 })));
    const many = { ...env, SIVTR_DATA_DIR: data };
    const r = spawnSync(process.execPath, ['-r', preload, BIN, 'search', 'refused', '--format', 'json'], { env: many, cwd: env.HOME, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hits.map((h: { ref: string }) => h.ref)).toEqual(['terminal/log-3/8']);
    expect(readFileSync(listFile, 'utf8').split('\n').filter((m) => /worker_threads/.test(m))).toEqual([]);
  });

  it('a build of terminal logs alone starts no helper thread even once it is time to (SIVTR_INDEX_HELPER_AFTER_MS=0)', () => {
    // Terminal logs stay on the main thread, so with no agent session there is nothing to give
    // a helper: a build that ran past its 300 ms (a loaded machine) started one all the same.
    const data = join(tmp.path, 'logs-past-due');
    for (let l = 0; l < 4; l++) writeLog(data, `due-${l}`, Array.from({ length: 10 }, (_, i) => ({ prompt: '$ ', command: `make step-${i}`, output: i === 2 && l === 1 ? 'Connection refused' : `ok ${l} ${i}`, exit_code: 0 })));
    const due = { ...env, SIVTR_DATA_DIR: data, SIVTR_INDEX_HELPER_AFTER_MS: '0' };
    const r = spawnSync(process.execPath, ['-r', preload, BIN, 'search', 'refused', '--format', 'json'], { env: due, cwd: env.HOME, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hits.map((h: { ref: string }) => h.ref)).toEqual(['terminal/due-1/3']);
    expect(readFileSync(listFile, 'utf8').split('\n').filter((m) => /worker_threads/.test(m))).toEqual([]);
  });

  it('a log that grew is told from its edge hashes without node:crypto, and only its new record is read', () => {
    appendFileSync(join(env.SIVTR_DATA_DIR!, 'terminals', 'term-1.jsonl'), JSON.stringify({ prompt: '$ ', command: 'curl localhost:9090', output: 'curl: (7) Connection refused again', exit_code: 7 }) + '\n');
    const r = spawnSync(process.execPath, ['-r', preload, BIN, 'search', 'refused', '--format', 'json'], { env: { ...env, SIVTR_INDEX_STATS: '1' }, cwd: env.HOME, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hits.map((h: { ref: string }) => h.ref).sort()).toEqual(['terminal/term-1/5', 'terminal/term-1/6']);
    const stats = JSON.parse(r.stderr.split('\n').find((l) => l.startsWith('sivtr-index-stats '))!.slice('sivtr-index-stats '.length));
    expect(stats).toMatchObject({ filesAppended: 1, filesReparsed: 0, linesParsed: 1, unitsWritten: 1 });
    expect(readFileSync(listFile, 'utf8').split('\n').filter((m) => /crypto/.test(m))).toEqual([]);
  });
});
