// OpenCode through the CLI, on a database built by fixtures/agents/opencode/build.mjs.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';

const BUILD = join(ROOT, 'fixtures', 'agents', 'opencode', 'build.mjs');

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let app: string;
beforeAll(() => {
  tmp = tempDir('sivtr-opencode-');
  app = join(tmp.path, 'app');
  mkdirSync(app);
  mkdirSync(join(tmp.path, '.local', 'share', 'opencode'), { recursive: true });
  const built = spawnSync(process.execPath, [BUILD, join(tmp.path, '.local', 'share', 'opencode', 'opencode.db'), '--cwd', app], { encoding: 'utf8' });
  expect(built.stderr).toBe('');
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
});
afterAll(() => tmp.cleanup());

const run = (args: string[], cwd = app, extra: NodeJS.ProcessEnv = {}) => runCli(args, { env: { ...env, ...extra }, cwd });
type TurnJson = { turn: number; complete?: boolean; blocks: { kind: string; label?: string; callId?: string; text: string; isError?: boolean }[] };

describe('opencode', () => {
  it('lists top-level, unarchived sessions newest first with directory and title', () => {
    const r = run(['sessions', 'opencode', '--json']);
    expect(r.stderr).toBe('');
    const list = JSON.parse(r.stdout) as { id: string; cwd: string; title: string; turns: number }[];
    expect(list.map((s) => s.id)).toEqual(['ses_A7Qm', 'ses_B2fk']);
    expect(list[0]).toMatchObject({ cwd: app, title: 'Fix flaky test', turns: 3 });
    expect(list[1]!.title).toBe('Fix flaky test (fork #1)');
  });

  it('joins the assistant messages of one turn; synthetic text, compaction and summaries are not turns', () => {
    const r = run(['import', 'opencode/ses_A7Qm', '--json']);
    const units = (JSON.parse(r.stdout) as { units: TurnJson[] }).units;
    expect(units.map((u) => u.blocks[0]!.text)).toEqual(['why is auth.test flaky?', 'now make the retry configurable\n[file: image/png, retry.png]', 'run the whole suite']);
    expect(units[0]!.blocks.map((b) => b.kind)).toEqual(['user', 'thinking', 'tool_call', 'tool_output', 'tool_call', 'tool_output', 'assistant', 'compaction']);
    expect(units[0]!.blocks[5]).toMatchObject({ label: 'read', callId: 'toolu_10', isError: true, text: 'File not found: auth/missing.ts' });
    // the summary is the compaction's, shown once as such
    expect(units[0]!.blocks[7]!.text).toContain('Summary of the conversation');
    expect(r.stdout.split('Summary of the conversation')).toHaveLength(2);
    expect(r.stdout).not.toContain('Continue if you have next steps');
    expect(r.stdout).not.toContain('system-reminder');
    expect(units[2]!.complete).toBe(false);
  });

  it('copy modes skip the running turn', () => {
    expect(run(['copy', 'opencode', 'out', '--print']).stdout).toBe('Added `AUTH_RETRIES` (default 3).\n');
    expect(run(['copy', 'opencode', 'tool', '--print']).stdout).toBe('File not found: auth/missing.ts\n');
    expect(run(['copy', 'opencode', 'out', '--print', '--session', 'ses_B']).stdout).toBe('Fork: it races the token refresh.\n');
    expect(run(['show', 'opencode/ses_A7Qm/1/p4']).stdout).toBe('timeout after 5000ms\n');
  });

  it('honours XDG_DATA_HOME and OPENCODE_DB_PATH', () => {
    const elsewhere = join(tmp.path, 'other-data');
    expect(JSON.parse(run(['sessions', 'opencode', '--global', '--json'], app, { XDG_DATA_HOME: elsewhere }).stdout)).toEqual([]);
    const direct = run(['sessions', 'opencode', '--global', '--json'], app, { XDG_DATA_HOME: elsewhere, OPENCODE_DB_PATH: join(tmp.path, '.local', 'share', 'opencode', 'opencode.db') });
    expect((JSON.parse(direct.stdout) as unknown[]).length).toBe(2);
  });

  it('sees rows that are still only in the write-ahead log of a database in use', async () => {
    const dir = join(tmp.path, 'live');
    mkdirSync(dir);
    const db = join(dir, 'opencode.db');
    const writer: ChildProcess = spawn(process.execPath, [BUILD, db, '--cwd', app, '--keep-wal'], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        writer.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
        writer.on('exit', (code) => reject(new Error(`builder exited ${code}`)));
      });
      expect(existsSync(`${db}-wal`)).toBe(true);
      const r = run(['copy', 'opencode', 'in', '--print'], app, { OPENCODE_DB_PATH: db });
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('run the whole suite\n');
    } finally {
      writer.stdin!.end();
      await new Promise((resolve) => writer.on('exit', resolve));
    }
  });
});
