// Parsers and helpers called directly, plus `import <path>` format detection through the CLI.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClaudeFile } from '../../src/agents/claude.js';
import { parseCodexFile } from '../../src/agents/codex.js';
import { parsePiFile } from '../../src/agents/pi.js';
import { allProviders, findProvider, providerNames } from '../../src/agents/registry.js';
import { assembleTurns, lastCompletedTurn } from '../../src/agents/turns.js';
import { gitCommonDir, workspaceMatcher } from '../../src/agents/workspace.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { FIXTURES } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('sivtr-agent-units-');
});
afterAll(() => tmp.cleanup());

const claudeMain = join(FIXTURES, 'claude', 'projects', '-home-ana-app', '7f3e0c2a-5b1d-4c8e-9a61-0d2f4b6c8e10.jsonl');
const codexEra2 = join(FIXTURES, 'codex', 'sessions', '2026', '03', '10', 'rollout-2026-03-10T09-15-02-0199b0c2-7a1e-7c3d-9f00-1b2c3d4e5f60.jsonl');
const piTree = join(FIXTURES, 'pi', 'sessions', '--home-ana-app--', '2026-05-21T07-12-03-114Z_0196f0aa-2b7c-7e11-8d2a-5c1e9a7b3f10.jsonl');

describe('registry', () => {
  it('is the one provider list, in priority order', () => {
    expect(providerNames()).toEqual(['claude', 'codex', 'pi', 'opencode', 'gemini', 'copilot', 'qwen', 'cline', 'roo', 'cursor', 'kilo', 'droid', 'continue', 'auggie', 'openhands', 'zed', 'goose', 'hermes', 'crush', 'grok', 'aider', 'kimi']);
    expect(allProviders().every((p) => typeof p.discover === 'function' && typeof p.load === 'function')).toBe(true);
  });

  it('finds each provider by the name it answers to, and nothing else', () => {
    for (const name of providerNames()) expect(findProvider(name)?.name).toBe(name);
    expect(allProviders().map((p) => p.name)).toEqual(providerNames());
    expect(findProvider('toString')).toBeUndefined();
    expect(findProvider('terminal')).toBeUndefined();
  });
});

describe('parsers', () => {
  it('claude: chain, titles, the running last turn', async () => {
    const s = await parseClaudeFile(claudeMain, () => {});
    expect(s).toMatchObject({ id: '7f3e0c2a-5b1d-4c8e-9a61-0d2f4b6c8e10', cwd: '/home/ana/app', title: 'npm test failure', lastTurnOpen: true });
    const turns = assembleTurns(s);
    expect(turns.map((t) => t.complete)).toEqual([true, true, false]);
    expect(lastCompletedTurn(turns)!.number).toBe(2);
    expect(s.blocks.filter((b) => b.kind === 'tool_output').map((b) => [b.callId, b.label])).toEqual([['toolu_1', 'Bash'], ['toolu_3', 'Bash'], ['toolu_2', 'Edit']]);
  });

  it('codex: commentary is flagged, the session_index title wins', async () => {
    const s = await parseCodexFile(codexEra2, new Map([['0199b0c2-7a1e-7c3d-9f00-1b2c3d4e5f60', 'named']]), () => {});
    expect(s.title).toBe('named');
    expect(s.blocks.filter((b) => b.kind === 'assistant').map((b) => Boolean(b.commentary))).toEqual([true, false, false]);
    expect(s.lastTurnOpen).toBe(false);
  });

  it('pi: the active path only', async () => {
    const s = await parsePiFile(piTree, () => {});
    expect(s.blocks.some((b) => b.text.includes('Abandoned'))).toBe(false);
    expect(s.title).toBe('disk usage');
    expect(s.lastTurnOpen).toBe(false);
  });

  it('pi: a session whose leaf is a tool call is still running', async () => {
    const path = join(tmp.path, 'running.jsonl');
    writeFileSync(
      path,
      [
        { type: 'session', version: 3, id: 'p1', timestamp: '2026-01-01T00:00:00Z', cwd: '/x' },
        { type: 'message', id: 'a', parentId: null, timestamp: '2026-01-01T00:00:01Z', message: { role: 'user', content: 'go' } },
        { type: 'message', id: 'b', parentId: 'a', timestamp: '2026-01-01T00:00:02Z', message: { role: 'assistant', content: [{ type: 'text', text: 'Starting.' }, { type: 'toolCall', id: 'c', name: 'bash', arguments: {} }], stopReason: 'toolUse' } },
      ].map((r) => JSON.stringify(r)).join('\n') + '\n',
    );
    const s = await parsePiFile(path, () => {});
    expect(s.lastTurnOpen).toBe(true);
    expect(assembleTurns(s)[0]!.complete).toBe(false);
  });
});

describe('workspace', () => {
  it('matches the same directory, subdirectories and worktrees of one repository by git common dir', () => {
    const repo = join(tmp.path, 'repo');
    mkdirSync(join(repo, 'sub'), { recursive: true });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    git('commit', '-q', '--allow-empty', '-m', 'x');
    git('worktree', 'add', '-q', join(tmp.path, 'wt'));
    expect(gitCommonDir(join(repo, 'sub'))).toBe(join(repo, '.git'));
    expect(gitCommonDir(join(tmp.path, 'wt'))).toBe(join(repo, '.git'));
    const inRepo = workspaceMatcher(join(repo, 'sub'));
    expect(inRepo([join(tmp.path, 'wt')])).toBe(true);
    expect(inRepo(undefined)).toBe(true);
    expect(inRepo([tmp.path])).toBe(false);
    const plain = workspaceMatcher(join(tmp.path, 'plain'));
    expect(plain([join(tmp.path, 'plain')])).toBe(true);
    expect(plain([join(tmp.path, 'plain', 'below')])).toBe(false);
  });
});

describe('import <path>', () => {
  it('detects Claude, Codex and Pi transcripts from their content', () => {
    const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') });
    const cases: [string, string, number][] = [
      [claudeMain, 'claude', 3],
      [codexEra2, 'codex', 2],
      [piTree, 'pi', 3],
      [join(FIXTURES, 'codex', 'sessions', '2025', '08', '14', 'rollout-2025-08-14T10-00-00-5a0c8e1e-2b3c-4d5e-8f90-a1b2c3d4e5f6.jsonl'), 'codex', 1],
      [join(FIXTURES, 'codex', 'sessions', '2026', '02', '01', 'rollout-2026-02-01T09-00-00-019c0000-aaaa-7bbb-8ccc-0123456789ab.jsonl.zst'), 'codex', 1],
    ];
    for (const [path, source, turns] of cases) {
      const r = runCli(['import', path, '--json'], { env });
      expect(r.stderr, path).toBe('');
      const parsed = JSON.parse(r.stdout) as { source: string; units: unknown[] };
      expect(parsed.source).toBe(source);
      expect(parsed.units).toHaveLength(turns);
    }
  });
});
