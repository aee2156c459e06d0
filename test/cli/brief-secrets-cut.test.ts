// brief cuts long commands to a line before its text is printed; a secret cut in half by that
// ellipsis no longer matches its rule, so its first half used to be printed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeLog } from '../helpers/terminal-log.js';

const TOKEN = 'ghp_' + 'R8kq2ZtXw4Yb'.repeat(3);
let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let app: string;
beforeAll(() => {
  tmp = tempDir();
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
  app = join(tmp.path, 'app');
  mkdirSync(app);
  const command = `curl --fail --silent --show-error --retry 3 https://api.example.com/v1/deploy -H "X-Api: ${TOKEN}" -d @payload.json`;
  expect(command.indexOf(TOKEN)).toBeLessThan(110);
  writeLog(join(tmp.path, 'data'), 'log1', [{ prompt: '$ ', command, output: 'curl: (22) 403', exit_code: 22, cwd: app, ended_at: '2026-11-29T10:00:00Z' }]);
});
afterAll(() => tmp.cleanup());

describe('sivtr brief', () => {
  it('masks a secret in a failed command before cutting the command to a line', () => {
    const r = runCli(['brief', '--since', '2020-01-01T00:00:00Z'], { env, cwd: app });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('curl --fail');
    expect(r.stdout).not.toContain(TOKEN.slice(0, 12));
    expect(r.stdout).toContain('[masked:github-token]');
  });
});
