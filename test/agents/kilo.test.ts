// Kilo CLI shares the OpenCode reader: the same synthetic database (fixtures/agents/opencode/
// build.mjs) placed where Kilo keeps its own is read as `kilo`, and neither tool sees the other's.
import { mkdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let app: string;
beforeAll(() => {
  tmp = tempDir('sivtr-kilo-');
  app = join(tmp.path, 'app');
  mkdirSync(app);
  const dir = join(tmp.path, 'xdg', 'kilo');
  mkdirSync(dir, { recursive: true });
  const built = spawnSync(process.execPath, [join(ROOT, 'fixtures', 'agents', 'opencode', 'build.mjs'), join(dir, 'kilo.db'), '--cwd', app], { encoding: 'utf8' });
  expect(built.stderr).toBe('');
  env = cleanEnv(tmp.path, { XDG_DATA_HOME: join(tmp.path, 'xdg') });
});
afterAll(() => tmp.cleanup());

describe('kilo', () => {
  it('lists and opens sessions from $XDG_DATA_HOME/kilo/kilo.db with the OpenCode rules', () => {
    const r = runCli(['sessions', 'kilo', '--json'], { env, cwd: app });
    expect(r.stderr).toBe('');
    const list = JSON.parse(r.stdout) as { id: string; ref: string; title: string; turns: number }[];
    expect(list.map((s) => s.id)).toEqual(['ses_A7Qm', 'ses_B2fk']);
    expect(list[0]).toMatchObject({ title: 'Fix flaky test', turns: 3 });
    expect(list[0]!.ref.startsWith('kilo/')).toBe(true);
    const out = runCli(['copy', 'kilo', 'in', '--session', 'ses_A7Qm', '--print'], { env, cwd: app });
    expect(out.stdout.trimEnd()).toBe('run the whole suite');
    expect(JSON.parse(runCli(['sessions', 'opencode', '--json', '--global'], { env }).stdout)).toEqual([]);
  });
});
