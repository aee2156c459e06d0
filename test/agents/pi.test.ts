// Pi through the CLI: the active branch only, compaction, session names, v1 linear files.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHome, listJson, type AgentHome } from './helpers.js';

const TREE = '0196f0aa-2b7c-7e11-8d2a-5c1e9a7b3f10';
const V1 = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

let h: AgentHome;
beforeAll(() => {
  h = agentHome(['pi']);
});
afterAll(() => h.cleanup());

type Block = { part: number; kind: string; label?: string; callId?: string; text: string; isError?: boolean };
type TurnJson = { ref: string; turn: number; complete?: boolean; session: { id: string; cwd?: string; title?: string }; blocks: Block[] };
const turns = (session: string): TurnJson[] => {
  const r = h.run(['import', `pi/${session}`, '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { units: TurnJson[] }).units;
};
const copy = (args: string[], cwd = join(h.work, 'app')) => h.run(['copy', 'pi', ...args, '--print'], { cwd });

describe('pi', () => {
  it('lists sessions with the session_info name as title, v1 files with their first prompt', () => {
    const list = listJson(h, ['pi', '--global']);
    expect(list.map((s) => s.id)).toEqual([TREE, V1]);
    expect(list[0]).toMatchObject({ ref: `pi/${TREE}`, title: 'disk usage', cwd: join(h.work, 'app'), turns: 3 });
    expect(list[1]).toMatchObject({ title: 'what is in this folder?', cwd: join(h.work, 'other'), turns: 2 });
    expect(listJson(h, ['pi'], join(h.work, 'other')).map((s) => s.id)).toEqual([V1]);
  });

  it('follows the active branch: the abandoned branch never appears', () => {
    const all = turns(TREE);
    expect(all.map((t) => t.blocks[0]!.text)).toEqual(['list large files', '[skill: disk]\nwhich folder grows fastest?\n[image: image/png, 18 B]', 'thanks']);
    const text = JSON.stringify(all);
    expect(text).not.toContain('delete node_modules');
    expect(text).not.toContain('Abandoned branch');
    expect(text).not.toContain('secret'); // redacted thinking
    expect(text).not.toContain('extension note'); // custom messages
  });

  it('maps tool calls and results with ids, names and error flags; `!` commands are bash pairs inside the turn', () => {
    const [t1, t2] = turns(TREE);
    expect(t1!.blocks.map((b) => `${b.kind}:${b.label ?? ''}:${b.callId ?? ''}`)).toEqual([
      'user::', 'thinking::', 'tool_call:bash:call_1', 'tool_output:bash:call_1', 'assistant::', 'tool_call:bash:', 'tool_output:bash:',
    ]);
    expect(t1!.blocks[5]!.text).toBe('df -h .');
    expect(t2!.blocks[2]).toMatchObject({ kind: 'tool_output', label: 'read', callId: 'call_2', isError: true, text: 'ENOENT: no such file dist/.sizes' });
  });

  it('copy modes and selectors', () => {
    expect(copy(['out']).stdout).toBe("You're welcome.\n");
    expect(copy(['out', '2']).stdout).toBe('The `dist/` folder grows fastest.\n');
    expect(copy(['tool']).stdout).toBe('ENOENT: no such file dist/.sizes\n');
    expect(copy(['in', '3']).stdout).toBe('list large files\n');
    expect(copy([]).stdout).toBe("── p1 user ──\nthanks\n\n── p2 assistant ──\nYou're welcome.\n");
  });

  it('a v1 file is read linearly and its running turn is not the last completed one', () => {
    const [, t2] = turns(V1);
    expect(t2!.complete).toBe(false);
    expect(copy(['out'], join(h.work, 'other')).stdout).toBe('A README and a LICENSE.\n');
    expect(copy(['in'], join(h.work, 'other')).stdout).toBe('run the tests\n');
  });

  it('reads PI_CODING_AGENT_SESSION_DIR and sessionDir in settings.json (flat folders) beside the default tree', () => {
    const [file] = readdirSync(join(h.home, '.pi', 'agent', 'sessions'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    const custom = join(h.home, 'pi-sessions');
    mkdirSync(custom);
    // pi writes into an overridden session dir directly, without per-cwd folders
    const text = readFileSync(join(file!.parentPath, file!.name), 'utf8');
    const id = '0000aaaa-1111-4222-8333-444455556666';
    writeFileSync(join(custom, `2026-01-01T00-00-00-000Z_${id}.jsonl`), text.replace(/"type":"session","version":(\d+),"id":"[^"]+"/, `"type":"session","version":$1,"id":"${id}"`));
    try {
      const ids = (env: Record<string, string>): string[] => (JSON.parse(h.run(['sessions', 'pi', '--global', '--json'], { env }).stdout) as { id: string }[]).map((s) => s.id);
      expect(ids({})).not.toContain(id);
      expect(ids({ PI_CODING_AGENT_SESSION_DIR: '~/pi-sessions' })).toEqual(expect.arrayContaining([id]));
      expect(ids({ PI_CODING_AGENT_SESSION_DIR: '~/pi-sessions' })).toHaveLength(3);
      writeFileSync(join(h.home, '.pi', 'agent', 'settings.json'), JSON.stringify({ sessionDir: '~/pi-sessions' }));
      expect(ids({})).toEqual(expect.arrayContaining([id]));
      expect(h.run(['show', `pi/${id}/1`], {}).code).toBe(0);
    } finally {
      rmSync(join(h.home, '.pi', 'agent', 'settings.json'), { force: true });
      rmSync(custom, { recursive: true, force: true });
    }
  });

  it('honours PI_CODING_AGENT_DIR (with ~)', () => {
    renameSync(join(h.home, '.pi', 'agent'), join(h.home, 'pi-elsewhere'));
    try {
      expect(listJson(h, ['pi', '--global'])).toEqual([]);
      const r = h.run(['sessions', 'pi', '--global', '--json'], { env: { PI_CODING_AGENT_DIR: '~/pi-elsewhere' } });
      expect((JSON.parse(r.stdout) as unknown[]).length).toBe(2);
    } finally {
      renameSync(join(h.home, 'pi-elsewhere'), join(h.home, '.pi', 'agent'));
    }
  });
});
