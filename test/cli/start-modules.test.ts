// What a warm one-shot command loads of Node's own modules: each one a start loads is compiled
// function by function at every start (no code cache holds Node's internals), so a module that a
// command needs only on a rare path is loaded on that path. Read from process.moduleLoadList at
// exit, through a preloaded script (the launcher and its code cache are the user's).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
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
  // A log that is nearly all text (more than three quarters of its bytes): its chunk is stored compressed.
  const dense = Array.from({ length: 40 }, (_, i) => ({ prompt: '$ ', command: `make step-${i}`, output: `building step ${i}\n${'compiled ok '.repeat(300)}`, exit_code: 0 }));
  writeLog(data, 'term-1', [...SAMPLE, ...dense, { prompt: '$ ', command: 'curl localhost:8080', output: 'curl: (7) Connection refused', exit_code: 7 }]);
  // A log as the recorder writes it (coloured output beside the plain, times, cwd): its text is about half its bytes, stored as is.
  const recorded = Array.from({ length: 40 }, (_, i) => {
    const output = i === 20 ? 'npm ERR! network timeout at registry.example' : `step ${i}: ${'passed '.repeat(20)}`;
    return { prompt: 'me@box:~/proj$ ', command: `npm run step-${i}`, output, output_ansi: `\x1b[32m${output}\x1b[0m`, cwd: '/home/me/proj', started_at: '2026-11-29T10:00:00.000Z', ended_at: '2026-11-29T10:00:01.000Z', duration_ms: 1000, exit_code: i === 20 ? 1 : 0 };
  });
  writeLog(data, 'term-2', recorded);
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
    const built = runListing(['search', 'refused', '--format', 'json']); // builds the index, compressing term-1's chunk
    expect(built.code).toBe(0);
    expect(built.modules).toContain('NativeModule zlib');
    const zlibOrStream = (modules: string[]): string[] => modules.filter((m) => /^NativeModule (zlib|stream)$/.test(m));
    // The run that writes the code cache (the first after a build of dist/ that does not build the
    // index) loads node:v8, and node:stream with it: that one run is not what is measured here.
    runListing(['search', 'refused']);

    const none = runListing(['search', 'nowhere-to-be-found']);
    expect(none.code).toBe(0);
    expect(zlibOrStream(none.modules)).toEqual([]);

    // The hit's chunk (term-2, a recorded log) is read and stored as is: no zlib to read it.
    const plain = runListing(['search', 'timeout', '--format', 'json']);
    expect(plain.code).toBe(0);
    expect(zlibOrStream(plain.modules)).toEqual([]);
    expect(JSON.parse(plain.stdout).hits.map((h: { ref: string; snippet: string }) => `${h.ref} ${h.snippet}`)).toEqual(['terminal/term-2/21 npm ERR! network timeout at registry.example']);

    const hit = runListing(['search', 'refused', '--format', 'json']);
    expect(hit.code).toBe(0);
    expect(hit.modules).toContain('NativeModule zlib'); // the hit's chunk is compressed: read through zlib
    expect(hit.stdout).toBe(built.stdout);
    expect(JSON.parse(hit.stdout).hits.map((h: { snippet: string }) => h.snippet).join('\n')).toContain('Connection refused');
  });

  it('a warm search loads neither node:module nor node:os; their stand-ins in the bundle load them when called', () => {
    runListing(['search', 'refused']); // an index, up to date
    const warm = runListing(['search', 'refused']);
    expect(warm.code).toBe(0);
    expect(warm.modules.filter((m) => /^NativeModule (module|os)$/.test(m))).toEqual([]);
    // Without HOME the home is the system's (os.homedir, through the stand-in): doctor names the agents' folders in it.
    const { HOME: _home, ...noHome } = env;
    const r = spawnSync(process.execPath, ['-r', preload, BIN, 'doctor'], { env: noHome, cwd: tmp.path, encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).not.toContain('call stack');
    expect(r.stdout).toContain(` at ${join(userInfo().homedir, '.codex')}`);
    expect(readFileSync(listFile, 'utf8').split('\n')).toContain('NativeModule os');
  });
  it('a search with nothing new sets no Ctrl-C handler (no signal binding); one that indexes a new log still does', () => {
    runListing(['search', 'refused']); // an index, up to date
    const signalBinding = (modules: string[]): string[] => modules.filter((m) => m === 'Internal Binding signal_wrap');
    const warm = runListing(['search', 'refused', '--format', 'json']);
    expect(warm.code).toBe(0);
    expect(signalBinding(warm.modules)).toEqual([]);
    // A new record: the sync lists the terminal logs again and writes, so Ctrl-C is handled from then on.
    writeLog(join(tmp.path, 'data'), 'term-3', [{ prompt: '$ ', command: 'nc -z db 5432', output: 'nc: connect to db port 5432 (tcp) failed: Connection refused', exit_code: 1 }]);
    const grown = runListing(['search', 'refused', '--format', 'json']);
    expect(grown.code).toBe(0);
    expect(signalBinding(grown.modules)).toEqual(['Internal Binding signal_wrap']);
    expect(JSON.parse(grown.stdout).hits.length).toBe(JSON.parse(warm.stdout).hits.length + 1);
  });
});
