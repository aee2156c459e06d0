// copy --budget on a long terminal output: within the budget, the failure kept with its context,
// the summary at the end, and the ref that holds the whole output; a usage error for a bad budget.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeLog } from '../helpers/terminal-log.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
const lines = ['> build', ...Array.from({ length: 3000 }, (_, i) => `compiling module ${i}`), 'src/db.ts:12:3 - error TS2304: Cannot find name pool', '  12   pool.query()', 'Found 1 error.', 'exit status 2'];
beforeAll(() => {
  tmp = tempDir();
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
  writeLog(join(tmp.path, 'data'), 'log1', [{ prompt: '$ ', command: 'npm run build', output: lines.join('\n'), exit_code: 2, ended_at: '2026-11-29T10:00:00Z' }]);
});
afterAll(() => tmp.cleanup());

describe('copy --budget', () => {
  it('keeps what matters within the budget and names the ref with it all', () => {
    const r = runCli(['copy', 'out', '--print', '--budget', '1000c'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeLessThanOrEqual(1001);
    const out = r.stdout.split('\n');
    for (const line of ['> build', 'src/db.ts:12:3 - error TS2304: Cannot find name pool', '  12   pool.query()', 'Found 1 error.', 'exit status 2']) expect(out).toContain(line);
    expect(r.stdout).toMatch(/\[… \d+ (?:similar lines|lines left out) …\]/);
    expect(out.at(-2)).toMatch(/^\[budget 1000 characters: kept \d+ of 3005 lines, left out \d+ \(\d+ characters in all\) — the whole text: sivtr show terminal\/log1\w*\/1\/p3\]$/);
    expect(r.stderr).toMatch(/kept \d+ of 3005 lines within 1000 characters/);
    const ref = /sivtr show (\S+)\]/.exec(r.stdout)![1]!;
    expect(runCli(['show', ref, '--max-chars', '0'], { env }).stdout).toBe(lines.join('\n') + '\n');
  });

  it('names the ref with it all for a run counted by --by too', () => {
    const r = runCli(['copy', 'out', '1', '--by', 'all', '--print', '--budget', '1000c'], { env });
    expect(r.code).toBe(0);
    const ref = /— the whole text: sivtr show (\S+)\]$/m.exec(r.stdout)?.[1];
    expect(ref).toBeDefined();
    expect(runCli(['show', ref!, '--max-chars', '0'], { env }).stdout).toContain(lines.join('\n') + '\n');
  });

  it('leaves a short output as it is', () => {
    const r = runCli(['copy', 'cmd', '--print', '--budget', '2k'], { env });
    expect(r.stdout).toBe('npm run build\n');
  });

  it('refuses a budget it cannot read, as a usage error', () => {
    const r = runCli(['copy', 'out', '--print', '--budget', 'lots'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('sivtr: --budget lots is not a budget — give tokens (2000, 2k) or characters (8000c, 8kc)\n');
  });
});
