// What a warm one-shot command loads of Node's own modules: each one a start loads is compiled
// function by function at every start (no code cache holds Node's internals), so a module that a
// command needs only on a rare path is loaded on that path. Read from process.moduleLoadList at
// exit, through a preloaded script (the launcher and its code cache are the user's).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, tempDir } from '../helpers/cli.js';
import { SAMPLE, writeLog } from '../helpers/terminal-log.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let preload: string;
let listFile: string;
beforeAll(() => {
  tmp = tempDir('sivtr-start-modules-');
  const data = join(tmp.path, 'data');
  env = cleanEnv(join(tmp.path, 'home'), { SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(tmp.path, 'config') });
  mkdirSync(env.HOME!, { recursive: true });
  // Enough output that the terminal log's chunk text is stored compressed (more than a quarter of the log's bytes).
  const entries = Array.from({ length: 40 }, (_, i) => ({ prompt: '$ ', command: `make step-${i}`, output: `building step ${i}\n${'compiled ok '.repeat(30)}`, exit_code: 0 }));
  writeLog(data, 'term-1', [...SAMPLE, ...entries, { prompt: '$ ', command: 'curl localhost:8080', output: 'curl: (7) Connection refused', exit_code: 7 }]);
  listFile = join(tmp.path, 'modules.txt');
  preload = join(tmp.path, 'list-modules.cjs');
  writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listFile)}, process.moduleLoadList.join('\\n')));\n`);
});
afterAll(() => tmp.cleanup());

/** Runs the installed launcher with the module list written at exit; returns its output and the list. */
function runListing(args: string[]): { code: number | null; stdout: string; modules: string[] } {
  const r = spawnSync(process.execPath, ['-r', preload, BIN, ...args], { env, cwd: env.HOME, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, modules: readFileSync(listFile, 'utf8').split('\n') };
}

describe('Node modules a warm command loads', () => {
  it('a search that reads no compressed chunk loads neither node:zlib nor node:stream; one that does still answers', () => {
    const built = runListing(['search', 'refused', '--format', 'json']); // builds the index, compressing the chunk
    expect(built.code).toBe(0);
    expect(built.modules).toContain('NativeModule zlib');

    const none = runListing(['search', 'nowhere-to-be-found']);
    expect(none.code).toBe(0);
    expect(none.modules.filter((m) => /^NativeModule (zlib|stream)$/.test(m))).toEqual([]);

    const hit = runListing(['search', 'refused', '--format', 'json']);
    expect(hit.code).toBe(0);
    expect(hit.modules).toContain('NativeModule zlib'); // the hit's chunk is compressed: read through zlib
    expect(hit.stdout).toBe(built.stdout);
    expect(JSON.parse(hit.stdout).hits.map((h: { snippet: string }) => h.snippet).join('\n')).toContain('Connection refused');
  });
});
