// sivtr brief on the agent fixtures of a workspace plus a terminal log: requests with their
// outcome and refs, newest whole and older as one line within the budget, failed commands with
// whether a later run passed, files written, secrets masked.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHome, type AgentHome } from '../agents/helpers.js';
import { writeLog } from '../helpers/terminal-log.js';

let h: AgentHome;
beforeAll(() => {
  h = agentHome(['claude', 'codex', 'pi']);
  const app = join(h.work, 'app');
  writeLog(join(h.home, 'data'), 'brieflog', [
    { prompt: '$ ', command: 'npm test', output: 'FAIL token.test.ts', exit_code: 1, cwd: app, ended_at: '2026-11-29T10:00:00Z' },
    { prompt: '$ ', command: 'npm  test', output: 'ok', exit_code: 0, cwd: app, ended_at: '2026-11-29T10:05:00Z' },
    { prompt: '$ ', command: 'make lint', output: 'lint: 3 problems', exit_code: 2, cwd: app, ended_at: '2026-11-29T10:06:00Z' },
    { prompt: '$ ', command: 'export API_TOKEN=sk-' + 'a1B2c3D4e5'.repeat(5).slice(0, 48) + ' && false', output: '', exit_code: 1, cwd: app, ended_at: '2026-11-29T10:07:00Z' },
  ]);
});
afterAll(() => h.cleanup());

const brief = (...args: string[]) => h.run(['brief', '--since', '2020-01-01T00:00:00Z', ...args], { cwd: join(h.work, 'app') });

describe('sivtr brief', () => {
  it('packs requests, outcomes, failed commands and files with refs', () => {
    const r = brief('--budget', '8k');
    if (r.code !== 0) console.log(r.stderr);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# Context from sivtr — /);
    expect(r.stdout).toContain('## What the agents were asked (newest first)');
    expect(r.stdout).toMatch(/### (claude|codex|pi)\/\w+\/\d+ · \d{4}-\d\d-\d\d \d\d:\d\d\nAsked: /);
    expect(r.stdout).toContain('## Commands that failed');
    expect(r.stdout).toMatch(/- `npm test` · exit 1 · by you · terminal\/\w+\/1 — passed later: terminal\/\w+\/2/);
    expect(r.stdout).toMatch(/- `make lint` · exit 2 · by you · terminal\/\w+\/3 — not run again/);
    expect(r.stdout).not.toContain('a1B2c3D4e5');
    expect(r.stdout).toContain('## Files written by the agents');
  });

  it('within a small budget keeps the newest requests whole and cuts the older to a line', () => {
    const big = brief('--budget', '8k').stdout;
    const small = brief('--budget', '700c');
    expect(small.code).toBe(0);
    expect(small.stdout.length).toBeLessThanOrEqual(700);
    expect(small.stdout.length).toBeLessThan(big.length);
    const mid = brief('--budget', '2500c').stdout;
    expect(mid).toMatch(/### \w+\/\S+ · /); // the newest whole
    expect(mid).toMatch(/^- \w+\/\S+ · .* → /m); // older ones on a line
    expect(mid.length).toBeLessThanOrEqual(2500);
  });
});
