// Secrets leave sivtr masked by every exit (clipboard, --print, show, show --json, import,
// search, diff), with one line on stderr saying how many and how to see them; --reveal shows them.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeLog } from '../helpers/terminal-log.js';

const TOKEN = 'ghp_' + 'R8kq2ZtXw4Yb'.repeat(3);
const PASSWORD = 'Tr0ub4dor-and-3';
let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  tmp = tempDir();
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
  writeLog(join(tmp.path, 'data'), 't1', [
    { prompt: '$ ', command: 'cat .env', output: `DB_HOST=db\nDB_PASSWORD=${PASSWORD}\nGITHUB_TOKEN=${TOKEN}`, exit_code: 0, ended_at: '2026-11-29T10:00:00Z' },
    { prompt: '$ ', command: 'cat .env', output: `DB_HOST=db2\nDB_PASSWORD=${PASSWORD}\nGITHUB_TOKEN=${TOKEN}`, exit_code: 0, ended_at: '2026-11-29T10:01:00Z' },
    { prompt: '$ ', command: 'git log -1 --format=%H', output: '3f2a9c1d0b8e7f6a5d4c3b2a1908f7e6d5c4b3a2', exit_code: 0, ended_at: '2026-11-29T10:02:00Z' },
  ]);
});
afterAll(() => tmp.cleanup());

const NOTE = /^sivtr: masked 2 secrets \(github-token, assignment\) — add --reveal to show them as they are$/m;

describe('secrets on the way out', () => {
  it('copy --print masks them and says so once on stderr', () => {
    const r = runCli(['copy', 'out', '2', '--print'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('DB_HOST=db2\nDB_PASSWORD=[masked:assignment]\nGITHUB_TOKEN=[masked:github-token]\n');
    expect(r.stderr).toMatch(NOTE);
    expect(r.stderr.match(/masked/g)).toHaveLength(1);
  });

  it('--reveal gives them as they are, without the note', () => {
    const r = runCli(['copy', 'out', '2', '--print', '--reveal'], { env });
    expect(r.stdout).toContain(`DB_PASSWORD=${PASSWORD}\nGITHUB_TOKEN=${TOKEN}`);
    expect(r.stderr).not.toContain('masked');
  });

  it('the clipboard gets the masked text too', () => {
    const bin = join(tmp.path, 'fakebin');
    mkdirSync(bin, { recursive: true });
    const sink = join(tmp.path, 'clipboard.txt');
    writeFileSync(join(bin, 'xsel'), `#!/bin/sh\ncat > '${sink}'\n`);
    chmodSync(join(bin, 'xsel'), 0o755);
    const r = runCli(['copy', 'out', '2'], { env: { ...env, SIVTR_CLIPBOARD: undefined, DISPLAY: ':99', PATH: `${bin}:${env.PATH}` } });
    expect(r.code).toBe(0);
    const copied = readFileSync(sink, 'utf8');
    expect(copied).not.toContain(TOKEN);
    expect(copied).not.toContain(PASSWORD);
    expect(copied).toContain('GITHUB_TOKEN=[masked:github-token]');
    expect(r.stderr).toMatch(NOTE);
  });

  it('show, show --json and import mask them; JSON stays valid', () => {
    const show = runCli(['show', 'terminal/current/1'], { env });
    expect(show.stdout).toContain('GITHUB_TOKEN=[masked:github-token]');
    expect(show.stderr).toMatch(NOTE);
    const json = runCli(['show', 'terminal/current/1', '--json'], { env });
    expect(JSON.parse(json.stdout).output).toBe('DB_HOST=db\nDB_PASSWORD=[masked:assignment]\nGITHUB_TOKEN=[masked:github-token]');
    for (const args of [['import'], ['import', '--json']]) {
      const r = runCli(args, { env });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain(TOKEN);
      expect(r.stdout).not.toContain(PASSWORD);
      expect(r.stdout).toContain('3f2a9c1d0b8e7f6a5d4c3b2a1908f7e6d5c4b3a2'); // a hash is not a secret
    }
  });

  it('search and diff mask them', () => {
    const search = runCli(['search', 'GITHUB_TOKEN', '--no-index'], { env });
    expect(search.stdout).toContain('[masked:github-token]');
    expect(search.stdout).not.toContain(TOKEN);
    const searchJson = runCli(['search', 'GITHUB_TOKEN', '--no-index', '--format', 'json'], { env });
    expect(searchJson.stdout).not.toContain(TOKEN);
    expect(() => JSON.parse(searchJson.stdout)).not.toThrow();
    const diff = runCli(['diff', '2', '3'], { env });
    expect(diff.stdout).toContain('-DB_HOST=db\n+DB_HOST=db2');
    expect(diff.stdout).not.toContain(TOKEN);
    expect(runCli(['diff', '2', '3', '--reveal'], { env }).stdout).toContain(TOKEN);
  });
});
