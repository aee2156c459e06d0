// Reading transcripts that are being written, damaged, absent or unreadable; listing every
// source at once; the listing cache staying correct as files change.
import { appendFileSync, chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, runCliUnprivileged, tempDir, unprivilegedIsNobody } from '../helpers/cli.js';
import { agentHome, listJson } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function freshHome() {
  const tmp = tempDir('sivtr-robust-');
  cleanups.push(tmp.cleanup);
  const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
  return { home: tmp.path, env, run: (args: string[], cwd = tmp.path) => runCli(args, { env, cwd }) };
}

const line = (v: unknown): string => JSON.stringify(v) + '\n';
const NUL_LINE = '\0\0\0\0\0\0\0\0\n';
const BAD_LINE = '{"type":"user","uuid":\n';

/** One damaged transcript per provider: good records around a NUL-padded line, a malformed
 * line and an unknown record type, ending in a half-written line (no newline). */
function writeDamaged(home: string): { claude: string; codex: string; pi: string } {
  const cwd = join(home, 'proj');
  mkdirSync(cwd, { recursive: true });
  const claudeDir = join(home, '.claude', 'projects', '-proj');
  mkdirSync(claudeDir, { recursive: true });
  const sid = 'c1a2b3c4-0000-4000-8000-000000000001';
  const base = { sessionId: sid, cwd, isSidechain: false };
  const claude = join(claudeDir, `${sid}.jsonl`);
  writeFileSync(
    claude,
    line({ ...base, type: 'user', uuid: 'u1', parentUuid: null, timestamp: '2026-06-01T10:00:00Z', message: { role: 'user', content: 'first question' } }) +
      NUL_LINE +
      line({ ...base, type: 'assistant', uuid: 'a1', parentUuid: 'u1', timestamp: '2026-06-01T10:00:01Z', message: { role: 'assistant', content: [{ type: 'text', text: 'first answer' }], stop_reason: 'end_turn' } }) +
      BAD_LINE +
      line({ type: 'brand-new-record-type', uuid: 'z1', parentUuid: 'a1', payload: { anything: true } }) +
      line({ ...base, type: 'user', uuid: 'u2', parentUuid: 'z1', timestamp: '2026-06-01T10:01:00Z', message: { role: 'user', content: 'second question' } }) +
      line({ ...base, type: 'assistant', uuid: 'a2', parentUuid: 'u2', timestamp: '2026-06-01T10:01:01Z', message: { role: 'assistant', content: [{ type: 'text', text: 'second answer' }], stop_reason: 'end_turn' } }) +
      '{"type":"assistant","uuid":"a3","parentUuid":"a2","message":{"role":"assis',
  );

  const codexDir = join(home, '.codex', 'sessions', '2026', '06', '01');
  mkdirSync(codexDir, { recursive: true });
  const tid = '019b0000-0000-7000-8000-000000000002';
  const codex = join(codexDir, `rollout-2026-06-01T10-00-00-${tid}.jsonl`);
  const env = (timestamp: string, type: string, payload: unknown) => line({ timestamp, type, payload });
  const msg = (role: string, text: string) => ({ type: 'message', role, content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }] });
  writeFileSync(
    codex,
    env('2026-06-01T09:00:00Z', 'session_meta', { id: tid, cwd, source: 'cli' }) +
      env('2026-06-01T09:00:01Z', 'response_item', msg('user', 'codex question')) +
      NUL_LINE +
      BAD_LINE +
      env('2026-06-01T09:00:02Z', 'some_future_type', { x: 1 }) +
      env('2026-06-01T09:00:03Z', 'response_item', msg('assistant', 'codex answer')) +
      '{"timestamp":"2026-06-01T09:00:04Z","type":"response_item","payload":{"type":"mess',
  );

  const piDir = join(home, '.pi', 'agent', 'sessions', '--proj--');
  mkdirSync(piDir, { recursive: true });
  const pid = '0197aaaa-0000-7000-8000-000000000003';
  const pi = join(piDir, `2026-06-01T08-00-00-000Z_${pid}.jsonl`);
  writeFileSync(
    pi,
    line({ type: 'session', version: 3, id: pid, timestamp: '2026-06-01T08:00:00Z', cwd }) +
      line({ type: 'message', id: 'aaaa0001', parentId: null, timestamp: '2026-06-01T08:00:01Z', message: { role: 'user', content: 'pi question' } }) +
      BAD_LINE +
      NUL_LINE +
      line({ type: 'usage', id: 'aaaa0002', parentId: 'aaaa0001', timestamp: '2026-06-01T08:00:02Z', usage: {} }) +
      line({ type: 'message', id: 'aaaa0003', parentId: 'aaaa0002', timestamp: '2026-06-01T08:00:03Z', message: { role: 'assistant', content: [{ type: 'text', text: 'pi answer' }], stopReason: 'stop' } }) +
      '{"type":"message","id":"aaaa0004","parentId":"aaaa0003","message":{"role":"us',
  );
  return { claude, codex, pi };
}

describe('robust reading', () => {
  it('skips NUL-padded and malformed lines with one counted warning, ignores unknown types and a half-written tail', () => {
    const h = freshHome();
    const paths = writeDamaged(h.home);
    const cwd = join(h.home, 'proj');
    const cases: [string, string, string][] = [
      ['claude', 'second answer', paths.claude],
      ['codex', 'codex answer', paths.codex],
      ['pi', 'pi answer', paths.pi],
    ];
    for (const [provider, reply, path] of cases) {
      const r = h.run(['copy', provider, 'out', '--print'], cwd);
      expect(r.stdout, provider).toBe(`${reply}\n`);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(`sivtr: skipped 2 unreadable lines in ${path}\n`);
    }
    // the Claude chain runs through the unknown record: the first turn is still there
    expect(h.run(['copy', 'claude', 'out', '2', '--print'], cwd).stdout).toBe('first answer\n');
  });

  it('keeps reading a transcript that is still being appended to', () => {
    const h = freshHome();
    const paths = writeDamaged(h.home);
    const cwd = join(h.home, 'proj');
    expect(h.run(['sessions', 'pi', '--json'], cwd).stdout).toContain('"turns": 1');
    // the writer finishes its line and adds another turn
    appendFileSync(paths.pi, 'er","content":"pi follow-up"}}\n' + line({ type: 'message', id: 'aaaa0005', parentId: 'aaaa0004', timestamp: '2026-06-01T08:00:09Z', message: { role: 'assistant', content: [{ type: 'text', text: 'pi second answer' }], stopReason: 'stop' } }));
    const list = JSON.parse(h.run(['sessions', 'pi', '--json'], cwd).stdout) as { turns: number; updated_at: string }[];
    expect(list[0]).toMatchObject({ turns: 2, updated_at: '2026-06-01T08:00:09.000Z' });
    expect(h.run(['copy', 'pi', 'in', '--print'], cwd).stdout).toBe('pi follow-up\n');
  });

  it('streams a transcript with a multi-megabyte line', () => {
    const h = freshHome();
    const paths = writeDamaged(h.home);
    const big = 'x'.repeat(6 * 1024 * 1024) + '\nlast line of a huge output';
    appendFileSync(paths.codex, '"}]}}\n' + line({ timestamp: '2026-06-01T09:01:00Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'c', output: big } }));
    const r = h.run(['copy', 'codex', 'tool', '--print', '--lines', '-1'], join(h.home, 'proj'));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('last line of a huge output\n');
  });

  it('lists a session whose first line alone is larger than the listing head', () => {
    const h = freshHome();
    const dir = join(h.home, '.claude', 'projects', '-big');
    mkdirSync(dir, { recursive: true });
    const sid = 'b1b2b3b4-0000-4000-8000-000000000009';
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(300_000) } };
    writeFileSync(
      join(dir, `${sid}.jsonl`),
      line({ type: 'user', uuid: 'u1', parentUuid: null, sessionId: sid, cwd: h.home, timestamp: '2026-06-02T10:00:00Z', message: { role: 'user', content: [{ type: 'text', text: 'what is wrong in this screenshot?' }, image] } }) +
        line({ type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: sid, cwd: h.home, timestamp: '2026-06-02T10:00:05Z', message: { role: 'assistant', content: [{ type: 'text', text: 'The button is clipped.' }], stop_reason: 'end_turn' } }),
    );
    const list = JSON.parse(h.run(['sessions', 'claude', '--global', '--json']).stdout) as { id: string; title: string; cwd: string }[];
    expect(list).toMatchObject([{ id: sid, title: 'what is wrong in this screenshot?', cwd: h.home }]);
    expect(h.run(['copy', 'claude', 'in', '--print']).stdout).toBe('what is wrong in this screenshot?\n[image: image/png, 220 KB]\n');
  });

  it('is silent about providers without data', () => {
    const h = freshHome();
    const r = h.run(['sessions', '--global', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([]);
    const human = h.run(['sessions', 'claude']);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^sivtr: no claude sessions found for .+ — add --global to see every workspace\n$/);
  });

  it('warns in one line about unreadable data and still lists the other providers', () => {
    const h = freshHome();
    writeDamaged(h.home);
    const projects = join(h.home, '.claude', 'projects');
    rmSync(projects, { recursive: true });
    symlinkSync(projects, projects); // a loop: readdir fails with ELOOP, as it would with EACCES
    const r = h.run(['sessions', '--global', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`sivtr: cannot read Claude Code sessions in ${projects} (ELOOP) — check its permissions\n`);
    expect((JSON.parse(r.stdout) as { source: string }[]).map((s) => s.source).sort()).toEqual(['codex', 'pi']);
  });

  it('reports session files it may not read in one line and lists the rest', () => {
    const h = freshHome();
    const paths = writeDamaged(h.home);
    const second = paths.claude.replace('c1a2b3c4', 'c1a2b3c5');
    writeFileSync(second, '{}\n');
    mkdirSync(join(h.home, 'data'), { recursive: true });
    if (unprivilegedIsNobody()) spawnSync('chmod', ['-R', 'a+rwX', h.home]);
    for (const p of [paths.claude, second]) chmodSync(p, 0o000);
    const r = runCliUnprivileged(['sessions', '--global', '--json'], { env: h.env, cwd: h.home });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^sivtr: cannot read Claude Code sessions: .+c1a2b3c[45]-[^ ]+\.jsonl \(EACCES\) and 1 more — check their permissions\n$/);
    expect((JSON.parse(r.stdout) as { source: string }[]).map((s) => s.source).sort()).toEqual(['codex', 'pi']);
  });

  it('rejects unknown sources as a usage error, listing the known ones', () => {
    const h = freshHome();
    const r = h.run(['sessions', 'windsurf']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sivtr: unknown source "windsurf" — use terminal, .*claude.*codex.*pi/);
  });
});

describe('sessions across sources', () => {
  it('lists every source newest first, terminal logs included', () => {
    const h = agentHome();
    cleanups.push(h.cleanup);
    mkdirSync(join(h.home, 'data', 'terminals'), { recursive: true });
    writeFileSync(join(h.home, 'data', 'terminals', 't-1.jsonl'), line({ prompt: '$ ', command: 'ls', output: 'a', ended_at: '2026-11-01T00:00:00Z' }));
    const all = listJson(h, ['--global']);
    const order = all.map((s) => s.updated_at ?? '');
    expect([...order].sort().reverse()).toEqual(order);
    expect(new Set(all.map((s) => s.source))).toEqual(new Set(['terminal', 'claude', 'codex', 'pi']));
    expect(all.find((s) => s.source === 'terminal')).toMatchObject({ ref: 'terminal/t-1', id: 't-1', turns: 1 });
    expect(listJson(h, ['--global', '--limit', '2'])).toHaveLength(2);
    // workspace: only sessions of the app repository (and terminal logs, which span directories)
    const here = listJson(h, [], join(h.work, 'app'));
    expect(here.filter((s) => s.source !== 'terminal').every((s) => s.cwd!.startsWith(join(h.work, 'app')))).toBe(true);
  });

  it('the listing cache follows changes and can be deleted without loss', () => {
    const h = agentHome(['pi']);
    cleanups.push(h.cleanup);
    const before = listJson(h, ['pi', '--global']);
    const file = join(h.home, '.pi', 'agent', 'sessions', '--home-ana-app--', '2026-05-21T07-12-03-114Z_0196f0aa-2b7c-7e11-8d2a-5c1e9a7b3f10.jsonl');
    appendFileSync(file, line({ type: 'session_info', id: 'ffff0001', parentId: '0e1f2a3b', timestamp: '2026-05-21T08:00:00.000Z', name: 'renamed' }));
    const after = listJson(h, ['pi', '--global']);
    expect(after[0]!.title).toBe('renamed');
    rmSync(join(h.home, 'data', 'cache'), { recursive: true, force: true });
    expect(listJson(h, ['pi', '--global'])).toEqual(after);
    expect(before[0]!.title).toBe('disk usage');
  });
});

describe('sessions usage', () => {
  it('rejects a bad --limit', () => {
    const h = freshHome();
    const r = h.run(['sessions', '--limit', '0']);
    expect(r.code).toBe(2);
  });
});
