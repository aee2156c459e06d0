// Claude Code through the CLI: discovery, chain following, turns, copy modes, session choice.
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentHome, listJson, type AgentHome } from './helpers.js';

const MAIN = '7f3e0c2a-5b1d-4c8e-9a61-0d2f4b6c8e10';
const OTHER = '2b8d4f60-0a1b-4c2d-8e3f-405162738495';
const WORKTREE = '7f9a1b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b';
const COMPACTED = '4c5d6e7f-8091-4a2b-9c3d-4e5f60718293';

let h: AgentHome;
beforeAll(() => {
  h = agentHome(['claude']);
});
afterAll(() => h.cleanup());

type TurnJson = { ref: string; turn: number; complete?: boolean; session: { id: string; cwd?: string; title?: string }; blocks: { part: number; kind: string; label?: string; callId?: string; text: string; isError?: boolean }[] };
const show = (ref: string): TurnJson => {
  const r = h.run(['show', ref, '--json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as TurnJson;
};
const copy = (args: string[], cwd?: string, env?: Record<string, string | undefined>) => h.run(['copy', 'claude', ...args, '--print'], { cwd: cwd ?? join(h.work, 'app'), env });

describe('claude: discovery', () => {
  it('lists main transcripts newest first with id, cwd, title and turn count; a subagent file right under its session', () => {
    const list = listJson(h, ['claude', '--global']);
    // <session>/subagents/agent-<id>.jsonl belongs to that session; a flat agent-*.jsonl names no parent
    expect(list.map((s) => s.id)).toEqual([MAIN, 'agent-9c1d2e3f', OTHER, WORKTREE, COMPACTED]);
    expect(list[1]).toMatchObject({ parent: MAIN, title: 'Subagent file: find every caller of parseDate', turns: 1 });
    expect(list[0]).not.toHaveProperty('parent');
    expect(list[0]).toMatchObject({ ref: `claude/${MAIN}`, source: 'claude', cwd: join(h.work, 'app'), title: 'npm test failure', turns: 3, updated_at: '2026-05-02T09:04:02.000Z' });
    // ai-title when there is no custom title; a summary pointing at another file is ignored
    expect(list[2]).toMatchObject({ title: 'README summary', cwd: join(h.work, 'other'), turns: 2 });
  });

  it('filters by workspace: same directory, subdirectory or worktree of the same repository', () => {
    expect(listJson(h, ['claude'], join(h.work, 'other')).map((s) => s.id)).toEqual([OTHER]);
    expect(listJson(h, ['claude'], join(h.work, 'app', 'src')).map((s) => s.id)).toEqual([MAIN, 'agent-9c1d2e3f', WORKTREE]);
    expect(listJson(h, ['claude'], join(h.work, 'app-wt')).map((s) => s.id)).toEqual([MAIN, 'agent-9c1d2e3f', WORKTREE]);
    expect(listJson(h, ['claude'], join(h.work, 'legacy'))).toEqual([]);
  });

  it('prints a readable table', () => {
    const r = h.run(['sessions', 'claude', '--global']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+SOURCE\s+LAST ACTIVITY\s+TURNS\s+CWD\s+TITLE$/);
    expect(lines[1]).toMatch(/^7f3e0c2a\s+claude\s+2026-05-0\d \d\d:\d\d\s+3\s+~\/work\/app\s+npm test failure$/);
    expect(lines[2]).toMatch(/^↳ agent-9c\s+claude\s.*Subagent file: find every caller of parseDate$/);
    expect(lines).toHaveLength(6);
  });

  it('honours CLAUDE_CONFIG_DIR', () => {
    const moved = join(h.home, 'elsewhere-claude');
    renameSync(join(h.home, '.claude'), moved);
    try {
      expect(listJson(h, ['claude', '--global'])).toEqual([]);
      const r = h.run(['sessions', 'claude', '--global', '--json'], { env: { CLAUDE_CONFIG_DIR: moved } });
      expect((JSON.parse(r.stdout) as unknown[]).length).toBe(5);
    } finally {
      renameSync(moved, join(h.home, '.claude'));
    }
  });
});

describe('claude: blocks and turns', () => {
  it('maps a turn to user, thinking, tool call, tool output (with error flag) and reply, in order', () => {
    const t = show(`claude/7f3e0c2a/1`);
    expect(t.session).toEqual({ id: MAIN, cwd: join(h.work, 'app'), title: 'npm test failure' });
    expect(t.blocks.map((b) => b.kind)).toEqual(['user', 'thinking', 'tool_call', 'tool_output', 'assistant']);
    expect(t.blocks[2]).toMatchObject({ label: 'Bash', callId: 'toolu_1', text: '{\n  "command": "npm test"\n}' });
    expect(t.blocks[3]).toMatchObject({ label: 'Bash', callId: 'toolu_1', text: '1 failing: parse.test.ts', isError: true });
  });

  it('pairs parallel tool results to their calls by id even when they arrive out of order', () => {
    const t = show(`claude/7f3e0c2a/2`);
    expect(t.blocks.map((b) => `${b.kind}:${b.label ?? ''}:${b.callId ?? ''}`)).toEqual([
      'user::', 'tool_call:Edit:toolu_2', 'tool_call:Bash:toolu_3', 'tool_output:Bash:toolu_3', 'tool_output:Edit:toolu_2', 'assistant::',
    ]);
    expect(t.blocks[0]!.text).toBe('Fix it. The screenshot shows the diff.\n[image: image/png, 45 B]');
  });

  it('never shows sidechains, abandoned branches, meta records, built-in commands or request payloads', () => {
    const r = h.run(['import', `claude/${MAIN}`]);
    expect(r.code).toBe(0);
    for (const hidden of ['Subagent', 'Abandoned branch', 'changelog', '/model', 'Set model', 'Caveat', 'not a turn']) expect(r.stdout).not.toContain(hidden);
    const other = h.run(['import', 'claude/2b8d']).stdout;
    expect(other).not.toContain('system-reminder');
    expect(other).not.toContain('interrupted');
  });

  it('exposes the running last turn separately from the last completed one', () => {
    const t = show(`claude/7f3e0c2a/3`);
    expect(t.complete).toBe(false);
    expect(t.blocks.map((b) => b.kind)).toEqual(['user', 'tool_call']);
    expect(copy(['out']).stdout).toBe('Fixed: the parser now keeps the offset.\n');
  });

  it('treats a final text reply of an old transcript (no turn_duration, stop_reason null) as complete', () => {
    expect(copy(['out'], join(h.work, 'other')).stdout).toBe('MIT.\n');
    expect(show('claude/2b8d4f60/2').complete).toBeUndefined();
  });

  it('renders the `!` shell mode as a bash tool call and output', () => {
    const r = h.run(['import', 'claude/2b8d', '--json']);
    const parsed = JSON.parse(r.stdout) as { units: TurnJson[] };
    // the shell command came before the first prompt: it belongs to no turn
    expect(parsed.units.map((u) => u.blocks[0]!.text)).toEqual(['Summarise the README', 'And the licence?']);
  });
});

describe('claude: compaction and invented records', () => {
  it('follows compact_boundary back to the history before it; summaries and <synthetic> records are not turns', () => {
    const r = h.run(['import', 'claude/4c5d', '--json']);
    const units = (JSON.parse(r.stdout) as { units: TurnJson[] }).units;
    expect(units.map((u) => u.blocks.filter((b) => b.kind !== 'compaction').map((b) => b.text))).toEqual([
      ['what year is in the licence?', '2025.'],
      ['bump it to 2026', 'Bumped the licence year to 2026.'],
      ['and push it', 'API Error: 529 Overloaded'],
    ]);
    // the summary is shown once, as the compaction it is, never as a turn or a reply
    const compactions = units.flatMap((u) => u.blocks.filter((b) => b.kind === 'compaction'));
    expect(compactions).toHaveLength(1);
    expect(compactions[0]!.text).toContain('being continued');
    expect(r.stdout).not.toContain('No response requested');
  });

  it('an API error is kept, flagged, and not taken as the last completed reply', () => {
    const t = show('claude/4c5d/3');
    expect(t.blocks[1]).toMatchObject({ kind: 'assistant', isError: true });
    expect(t.complete).toBe(false);
    expect(copy(['out'], join(h.work, 'elsewhere')).stdout).toBe('Bumped the licence year to 2026.\n');
  });
});

describe('claude: copy modes and selectors', () => {
  it('default: the last completed turn as prompt plus reply', () => {
    const r = copy([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Fix it. The screenshot shows the diff.');
    expect(r.stdout).toContain('Fixed: the parser now keeps the offset.');
    expect(r.stdout).not.toContain('npm test -- parse');
  });

  it('in, out, tool, all and recency selectors', () => {
    expect(copy(['in']).stdout).toBe('Now run the linter\n');
    expect(copy(['in', '2']).stdout).toBe('Fix it. The screenshot shows the diff.\n[image: image/png, 45 B]\n');
    expect(copy(['out', '2']).stdout).toBe('`parse.test.ts` fails because the date parser drops the time zone.\n');
    expect(copy(['tool']).stdout).toBe('The file src/parse.ts has been updated.\n');
    expect(copy(['tool', '2']).stdout).toBe('PASS parse.test.ts\nTests: 4 passed\n');
    expect(copy(['out', '1..2']).stdout).toBe('`parse.test.ts` fails because the date parser drops the time zone.\n\nFixed: the parser now keeps the offset.\n');
    const all = copy(['all']).stdout;
    expect(all.indexOf('Why does `npm test` fail?')).toBeLessThan(all.indexOf('Now run the linter'));
    const past = copy(['out', '5']);
    expect(past.code).toBe(1);
    expect(past.stderr).toMatch(/^sivtr: .+ — .+\n$/);
  });

  it('line filters apply to agent text', () => {
    expect(copy(['tool', '2', '--lines', '-1']).stdout).toBe('Tests: 4 passed\n');
    expect(copy(['tool', '2', '--regex', 'PASS']).stdout).toBe('PASS parse.test.ts\n');
  });
});

describe('claude: which session', () => {
  it('--session N counts sessions of the workspace newest first; --session takes ids and prefixes', () => {
    expect(copy(['out', '--session', '2']).stdout).toBe('Bumped to 1.3.0 in the worktree.\n');
    expect(copy(['out', '--session', '2b8d']).stdout).toBe('MIT.\n'); // ids are looked up in every workspace
    expect(copy(['out', '--session', OTHER]).stdout).toBe('MIT.\n');
    const far = copy(['out', '--session', '3']);
    expect(far.code).toBe(1);
    expect(far.stderr).toContain('only 2 claude sessions in this workspace, not 3');
  });

  it('--session N follows the rule plain copy follows: the workspace first, every session when it has none', () => {
    const legacy = join(h.work, 'legacy'); // no Claude session was run here
    expect(copy(['out', '--session', '1'], legacy).stdout).toBe(copy(['out'], legacy).stdout);
    expect(copy(['out', '--session', '1'], legacy).stdout).toBe('Fixed: the parser now keeps the offset.\n');
    expect(copy(['out', '--session', '2'], legacy).stdout).toBe('MIT.\n'); // second newest of all four
    const far = copy(['out', '--session', '5'], legacy);
    expect(far.code).toBe(1);
    expect(far.stderr).toBe('sivtr: only 4 claude sessions, not 5 — list them with `sivtr sessions claude --global`\n');
  });

  it('an ambiguous prefix lists the candidates; an unknown one says so', () => {
    const r = copy(['out', '--session', '7f']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ambiguous');
    expect(r.stderr).toContain(MAIN);
    expect(r.stderr).toContain(WORKTREE);
    const unknown = copy(['out', '--session', 'ffff']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no claude session "ffff"');
  });

  it('refs resolve ids and prefixes the same way', () => {
    expect(show('claude/7f9a/1').blocks.at(-1)!.text).toBe('Bumped to 1.3.0 in the worktree.');
    expect(show(`claude/${OTHER}/2`).blocks.at(-1)!.text).toBe('MIT.');
  });

  it('current: env hint first, then newest in the workspace, then newest overall', () => {
    expect(copy(['out'], join(h.work, 'other')).stdout).toBe('MIT.\n');
    expect(copy(['out'], join(h.work, 'app-wt')).stdout).toBe('Fixed: the parser now keeps the offset.\n');
    expect(copy(['out'], join(h.work, 'legacy')).stdout).toBe('Fixed: the parser now keeps the offset.\n');
    expect(copy(['out'], join(h.work, 'app'), { CLAUDE_CODE_SESSION_ID: WORKTREE }).stdout).toBe('Bumped to 1.3.0 in the worktree.\n');
    const transcript = join(h.home, '.claude', 'projects', '-home-ana-other', `${OTHER}.jsonl`);
    expect(copy(['out'], join(h.work, 'app'), { CLAUDE_TRANSCRIPT_PATH: transcript }).stdout).toBe('MIT.\n');
    // a hint naming no known session is ignored
    expect(copy(['out'], join(h.work, 'other'), { CLAUDE_CODE_SESSION_ID: 'gone' }).stdout).toBe('MIT.\n');
  });

  it('says where it looked when there are no sessions at all', () => {
    const empty = join(h.home, 'empty-claude');
    mkdirSync(empty, { recursive: true });
    const r = copy(['out'], undefined, { CLAUDE_CONFIG_DIR: empty });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`sivtr: no claude sessions found in ${join(empty, 'projects')} — run claude once, or point its home override at the right place\n`);
  });
});
