import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  tmp = tempDir();
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: `${tmp.path}/data` });
  expect(runCli(['pipe'], { env, input: 'piped line\n' }).code).toBe(0);
});
afterAll(() => tmp.cleanup());

describe('captured history as a source', () => {
  it('is listed by `sessions history`', () => {
    const list = JSON.parse(runCli(['sessions', 'history', '--json'], { env }).stdout) as { ref: string; title: string }[];
    expect(list).toHaveLength(1);
    expect(list[0]!.title).toBe('(piped) piped line');
  });

  it('shows a piped capture without an empty input line', () => {
    expect(runCli(['show', 'history/1'], { env }).stdout).toBe('piped line\n');
  });

  it('an unknown source still lists the known ones', () => {
    const r = runCli(['sessions', 'nosuch'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sivtr: unknown source "nosuch" — use terminal, history, claude/);
  });
});
