// `sivtr diff --prev`: a run against the previous run of its command in its workspace, by anyone —
// terminal records (the test helper's logs), a genuine Claude Code session's shell calls
// (fixtures/real/claude-2.1.332) and a `sivtr run` capture — with run-to-run noise masked, and
// `--summary` over real vitest outputs (fixtures/runners/vitest).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { copyRealHome } from '../helpers/real-home.js';
import { writeLog } from '../helpers/terminal-log.js';

const RECORDED_CWD = '/tmp/sivtr-conformance/claude/proj';
const vitest = (state: string): string => readFileSync(join(ROOT, 'fixtures', 'runners', 'vitest', `${state}.txt`), 'utf8');

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let PROJ: string;
let OTHER: string;
const cli = (args: string[], cwd = PROJ) => runCli(args, { env, cwd });

beforeAll(() => {
  tmp = tempDir('sivtr-diff-prev-');
  const home = join(tmp.path, 'home');
  PROJ = join(tmp.path, 'proj');
  OTHER = join(tmp.path, 'other');
  mkdirSync(PROJ);
  mkdirSync(OTHER);
  copyRealHome('claude-2.1.332', RECORDED_CWD, home, PROJ);
  env = cleanEnv(home);
  // the agent ran `echo hello` at 09:28; the user runs it at 09:30
  writeLog(join(home, '.local', 'state', 'sivtr'), 't1', [
    { prompt: '$ ', command: 'npx vitest run', output: vitest('before'), cwd: PROJ, ended_at: '2026-12-01T09:00:00.000Z', exit_code: 1 },
    { prompt: '$ ', command: 'npx vitest run', output: 'elsewhere', cwd: OTHER, ended_at: '2026-12-01T09:05:00.000Z', exit_code: 0 },
    { prompt: '$ ', command: 'npx  vitest run ', output: vitest('after'), cwd: PROJ, ended_at: '2026-12-01T09:10:00.000Z', exit_code: 1 },
    { prompt: '$ ', command: 'date', output: 'Tue Dec  1 09:20:01 UTC 2026', cwd: PROJ, ended_at: '2026-12-01T09:20:01.000Z', exit_code: 0 },
    { prompt: '$ ', command: 'date', output: 'Tue Dec  1 09:29:13 UTC 2026', cwd: PROJ, ended_at: '2026-12-01T09:29:13.000Z', exit_code: 0 },
    { prompt: '$ ', command: 'echo hello', output: 'hello', cwd: PROJ, ended_at: '2026-12-01T09:30:00.000Z', exit_code: 0 },
    { prompt: '$ ', command: 'sivtr runs', output: '…', cwd: PROJ, ended_at: '2026-12-01T09:31:00.000Z', exit_code: 0 },
  ]);
});
afterAll(() => tmp.cleanup());

describe('diff --prev', () => {
  it('pairs the last command with the agent run of it before: same output, no differences', () => {
    const r = cli(['diff', '--prev', '--exit-code']);
    expect(r).toMatchObject({ code: 0, stdout: 'no differences\n', stderr: '' });
  });

  it('masks what changes every run and says what it masked; --no-mask shows it raw', () => {
    const masked = cli(['diff', '--prev', '2']);
    expect(masked).toMatchObject({ code: 0, stdout: 'no differences\n', stderr: 'sivtr: masked 2 times — --no-mask compares them as printed\n' });
    const raw = cli(['diff', '--prev', '2', '--no-mask', '--exit-code']);
    expect(raw.code).toBe(1);
    expect(raw.stdout).toBe(
      [
        '--- terminal/t1/4 (me, ' + localMinute('2026-12-01T09:20:01.000Z') + ') date',
        '+++ terminal/t1/5 (me, ' + localMinute('2026-12-01T09:29:13.000Z') + ') date',
        '@@ -1,1 +1,1 @@',
        '-Tue Dec  1 09:20:01 UTC 2026',
        '+Tue Dec  1 09:29:13 UTC 2026',
        '',
      ].join('\n'),
    );
  });

  it('pairs by the normalised command in the same workspace, skipping another directory’s run', () => {
    const r = cli(['diff', '--prev', 'terminal/t1/3']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^--- terminal\/t1\/1 \(me, .*\) npx vitest run\n\+\+\+ terminal\/t1\/3 \(me, .*\) npx vitest run\n/);
    expect(r.stdout).toContain(' RUN  v4.1.12 ⟨tmp⟩/vitest\n');
    expect(r.stdout).toContain('    Duration  ⟨duration⟩ (transform ⟨duration⟩');
    expect(r.stdout).not.toMatch(/\d+ms/);
    expect(r.stdout).toContain('- FAIL  test/math.test.js > math > adds');
    expect(r.stdout).toContain('+ FAIL  test/text.test.js > trims');
    expect(r.stderr).toBe('sivtr: masked 2 times, 2 temp paths, 22 durations — --no-mask compares them as printed\n');
  });

  it('--summary: newly failing, fixed and still failing with file:line', () => {
    const r = cli(['diff', '--prev', 'terminal/t1/3', '--summary']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(
      [
        'vitest: 1 newly failing, 1 fixed, 1 still failing (terminal/t1/1 → terminal/t1/3)',
        'newly failing:',
        '  test/text.test.js:2  trims',
        'fixed:',
        '  test/math.test.js:2  math > adds',
        'still failing:',
        '  test/text.test.js:1  parses',
        '',
      ].join('\n'),
    );
    const none = cli(['diff', '--prev', '2', '--summary']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^sivtr: no test runner output recognised in terminal\/t1\/5 — --summary reads cargo test, go test, pytest, vitest, jest, tsc, eslint; leave it out for a line diff\n$/);
  });

  it('an agent run pairs with the previous run of its command by anyone; --summary works on any two sides', () => {
    const agent = JSON.parse(cli(['runs', '--by', 'agent', '--json', '--limit', '1']).stdout)[0] as { ref: string };
    const r = cli(['diff', '--prev', agent.ref]);
    // the subagent's `echo hello` against the main session's turn 3 (a run by the same agent)
    expect(r).toMatchObject({ code: 0, stdout: 'no differences\n' });
    const summary = cli(['diff', 'terminal/t1/1', 'terminal/t1/3', '--summary']);
    expect(summary.stdout.split('\n')[0]).toBe('vitest: 1 newly failing, 1 fixed, 1 still failing (terminal/t1/1 → terminal/t1/3)');
  });

  it('a `sivtr run` capture pairs with your terminal record of the same command', () => {
    const ran = cli(['run', 'echo', 'hello']);
    expect(ran.code).toBe(0);
    const r = cli(['diff', '--prev', 'history/1']);
    expect(r).toMatchObject({ code: 0, stdout: 'no differences\n' });
    const listed = JSON.parse(cli(['runs', '--json', '--limit', '1']).stdout)[0] as { ref: string; source: string; command: string };
    expect(listed).toMatchObject({ ref: 'history/1', source: 'history', command: 'echo hello' });
  });

  it('says so when there is no earlier run, and refuses two sides with --prev', () => {
    const first = cli(['diff', '--prev', 'terminal/t1/2'], OTHER);
    expect(first.code).toBe(1);
    expect(first.stderr).toBe(`sivtr: no earlier run of \`npx vitest run\` in the workspace of ${OTHER} — run it again, then \`sivtr diff --prev\`; \`sivtr runs\` lists what ran\n`);
    const two = cli(['diff', '--prev', '1', '2']);
    expect(two.code).toBe(2);
  });
});

function localMinute(iso: string): string {
  const d = new Date(iso);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}
