// What a warm `sessions` reads and prints stays the same while its start gets cheaper: the listing
// cache is kept as ASCII JSON (one character outside ASCII made the whole file a two-byte string,
// slower to parse), and titles are masked one by one only when one test over all of them finds a
// hint of a secret.
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentHome, listJson, type AgentHome } from '../agents/helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

const PI_APP = ['.pi', 'agent', 'sessions', '--home-ana-app--', '2026-05-21T07-12-03-114Z_0196f0aa-2b7c-7e11-8d2a-5c1e9a7b3f10.jsonl'];
const PI_OTHER = ['.pi', 'agent', 'sessions', '--home-ana-other--', '2025-11-02T10-00-00-000Z_1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.jsonl'];

function piHome(): AgentHome {
  const h = agentHome(['pi']);
  cleanups.push(h.cleanup);
  return h;
}

/** Renames a Pi session the way Pi does: a session_info record with the new name. */
function rename(h: AgentHome, file: string[], name: string): void {
  appendFileSync(join(h.home, ...file), JSON.stringify({ type: 'session_info', id: `ffff${name.length}`, parentId: '0e1f2a3b', timestamp: '2026-05-21T08:00:00.000Z', name }) + '\n');
}

const cacheFile = (h: AgentHome): string => join(h.home, 'data', 'cache', 'agents-pi.json');
const nonAscii = (bytes: Buffer): number => bytes.findIndex((b) => b > 0x7f);

describe('sessions, warm', () => {
  it('keeps the listing cache as ASCII and reads back titles outside ASCII as they were', () => {
    const h = piHome();
    const title = 'déploiement 会话 🚀 — fini…';
    rename(h, PI_APP, title);
    const first = listJson(h, ['pi', '--global']);
    expect(first.map((s) => s.title)).toContain(title);
    expect(nonAscii(readFileSync(cacheFile(h)))).toBe(-1);
    expect(JSON.parse(readFileSync(cacheFile(h), 'utf8')).version).toBeDefined();
    // From the cache now: the same listing, the same table.
    expect(listJson(h, ['pi', '--global'])).toEqual(first);
    const table = h.run(['sessions', 'pi', '--global']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(title);
  });

  it('writes a cache left with characters outside ASCII again as ASCII, listing the same', () => {
    const h = piHome();
    rename(h, PI_APP, 'réunion 会话');
    const before = listJson(h, ['pi', '--global']);
    // As an older sivtr wrote it: the same JSON, its characters as they are.
    const raw = JSON.stringify(JSON.parse(readFileSync(cacheFile(h), 'utf8')));
    writeFileSync(cacheFile(h), raw);
    expect(nonAscii(readFileSync(cacheFile(h)))).not.toBe(-1);
    expect(listJson(h, ['pi', '--global'])).toEqual(before);
    expect(nonAscii(readFileSync(cacheFile(h)))).toBe(-1);
    expect(readdirSync(join(h.home, 'data', 'cache')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('masks the one title holding a secret among plain ones, and only that one', () => {
    const h = piHome();
    const token = 'ghp_' + 'R8kq2ZtXw4Yb'.repeat(3);
    rename(h, PI_APP, `push with ${token} tonight`);
    rename(h, PI_OTHER, 'tidy the password docs: key rotation notes');
    const r = h.run(['sessions', 'pi', '--global']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('push with [masked:github-token] tonight');
    expect(r.stdout).not.toContain(token.slice(0, 12));
    expect(r.stdout).toContain('tidy the password docs: key rotation notes');
    expect(r.stderr).toContain('masked 1 secret (github-token)');
    const revealed = h.run(['sessions', 'pi', '--global', '--reveal']);
    expect(revealed.stdout).toContain(`push with ${token} tonight`);
    // Nothing to mask anywhere: every title as it is, and no note.
    rename(h, PI_APP, 'push tonight');
    const plain = h.run(['sessions', 'pi', '--global']);
    expect(plain.stdout).toContain('push tonight');
    expect(plain.stderr).not.toContain('masked');
  });

  it("masks a secret whose name ends one column and whose value begins the next, as the whole table was masked", () => {
    // The titles were tested on their own and hold no hint; the cwd column ends with a secret's
    // name and the title begins with `=`: together, on one line of the table, they assign it.
    const h = piHome();
    const value = 'Zq8vT3mW9xK2pL7nR4';
    const dir = join(h.home, '.pi', 'agent', 'sessions', '--srv-api_token--');
    mkdirSync(dir, { recursive: true });
    const lines = [
      { type: 'session', id: '2b3c4d5e-6f70-4a8b-9c0d-1e2f3a4b5c6d', timestamp: '2026-05-22T10:00:00.000Z', cwd: '/srv/api_token' },
      { type: 'message', timestamp: '2026-05-22T10:00:01.000Z', message: { role: 'user', content: `= ${value}`, timestamp: 1779444001000 } },
      { type: 'message', timestamp: '2026-05-22T10:00:03.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }], stopReason: 'stop', timestamp: 1779444003000 } },
    ];
    writeFileSync(join(dir, '2026-05-22T10-00-00-000Z_2b3c4d5e-6f70-4a8b-9c0d-1e2f3a4b5c6d.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = h.run(['sessions', 'pi', '--global']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('/srv/api_token');
    expect(r.stdout).not.toContain(value);
    expect(r.stdout).toContain('[masked:');
    expect(r.stderr).toContain('masked 1 secret');
    expect(h.run(['sessions', 'pi', '--global', '--reveal']).stdout).toContain(`= ${value}`);
  });
});
