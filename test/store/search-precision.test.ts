// Search precision over a hand-made Claude Code session whose turns differ in exactly where the
// words are: `--kind`, `--terms` with `--operator and|or` (AND inside one message, or across one
// tool call and its output), `--sort time`, the command printed with each hit — and every answer
// the same without the index.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const SID = '5e1f0a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
const CWD = '/home/ana/shop';

/** Claude Code records for three turns, an hour apart. */
function transcript(): string {
  const lines: object[] = [];
  let parent: string | null = null;
  let n = 0;
  const rec = (type: string, at: string, message: object): void => {
    const uuid = `u${++n}`;
    lines.push({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: CWD, sessionId: SID, version: '2.1.40', type, uuid, timestamp: at, message });
    parent = uuid;
  };
  const assistant = (content: object[], stop: string) => ({ id: `msg_${n}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content, stop_reason: stop });
  // Turn 1: the command is in the tool call, the error in its output.
  rec('user', '2026-11-02T10:00:00.000Z', { role: 'user', content: 'run the suite please' });
  rec('assistant', '2026-11-02T10:00:01.000Z', assistant([{ type: 'tool_use', id: 'toolu_A', name: 'Bash', input: { command: 'npm test' } }], 'tool_use'));
  rec('user', '2026-11-02T10:00:02.000Z', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_A', content: 'Error: connect ECONNREFUSED 127.0.0.1:5432', is_error: true }] });
  rec('assistant', '2026-11-02T10:00:03.000Z', assistant([{ type: 'text', text: 'The database is down.' }], 'end_turn'));
  // Turn 2: both words, but in two different messages.
  rec('user', '2026-11-02T11:00:00.000Z', { role: 'user', content: 'why does npm test fail?' });
  rec('assistant', '2026-11-02T11:00:01.000Z', assistant([{ type: 'text', text: 'Because of ECONNREFUSED from postgres.' }], 'end_turn'));
  // Turn 3: one word, in the thinking; another in the prompt.
  rec('user', '2026-11-02T12:00:00.000Z', { role: 'user', content: 'think about the flamingo' });
  rec('assistant', '2026-11-02T12:00:01.000Z', assistant([{ type: 'thinking', thinking: 'a flamingo would run npm test first', signature: 'c2ln' }, { type: 'text', text: 'Done thinking.' }], 'end_turn'));
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

let tmp: { path: string; cleanup: () => void };
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  tmp = tempDir('sivtr-precision-');
  const home = join(tmp.path, 'home');
  const project = join(home, '.claude', 'projects', '-home-ana-shop');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, `${SID}.jsonl`), transcript());
  env = cleanEnv(home, { SIVTR_DATA_DIR: join(tmp.path, 'data'), SIVTR_CONFIG_DIR: join(tmp.path, 'config') });
});
afterAll(() => tmp.cleanup());

type Hit = { ref: string; index: number; part: number | null; kind: string | null; all_terms: boolean; open: string; snippet: string };

function search(...args: string[]): Hit[] {
  const r = runCli(['search', 'claude', ...args, '--format', 'json', '--limit', '20'], { env });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { hits: Hit[] }).hits;
}
const turns = (hits: Hit[]): number[] => hits.map((h) => h.index);
const TERMS = JSON.stringify(['npm test', 'ECONNREFUSED']);

describe('--terms and --operator', () => {
  it('and: every term in one message, or across a tool call and its output', () => {
    const hits = search('--terms', TERMS, '--operator', 'and');
    expect(turns(hits)).toEqual([1]);
    expect(hits[0]!.all_terms).toBe(true);
  });

  it('or: any term, in any message', () => {
    expect(turns(search('--terms', TERMS, '--operator', 'or')).sort()).toEqual([1, 2, 3]);
  });

  it('without an operator, turns holding every term come first, then the rest', () => {
    const hits = search('--terms', TERMS);
    expect(turns(hits.filter((h) => h.all_terms)).sort()).toEqual([1, 2]);
    expect(turns(hits.filter((h) => !h.all_terms))).toEqual([3]);
    expect(hits.findIndex((h) => !h.all_terms)).toBe(2);
  });

  it('a term is an exact substring, spaces and case-folding included', () => {
    expect(turns(search('--terms', '["NPM TEST"]', '--operator', 'and')).sort()).toEqual([1, 2, 3]);
    expect(search('--terms', '["npm  test"]')).toEqual([]);
  });

  it('the operator applies to QUERY words too', () => {
    expect(turns(search('npm', 'ECONNREFUSED', '--operator', 'and')).sort()).toEqual([1]);
  });
});

describe('--kind', () => {
  it('searches only parts of the kinds given', () => {
    expect(turns(search('npm test', '--kind', 'user'))).toEqual([2]);
    const thinking = search('flamingo', '--kind', 'thinking');
    expect(turns(thinking)).toEqual([3]);
    expect(thinking[0]!.kind).toBe('thinking');
    expect(search('flamingo', '--kind', 'assistant')).toEqual([]);
    const output = search('ECONNREFUSED', '--kind', 'tool_output');
    expect(turns(output)).toEqual([1]);
    expect(output[0]!.kind).toBe('tool_output');
    expect(turns(search('ECONNREFUSED', '--kind', 'assistant,tool_output')).sort()).toEqual([1, 2]);
  });

  it('with AND, the terms must be together in parts of those kinds', () => {
    expect(search('--terms', TERMS, '--operator', 'and', '--kind', 'tool_call')).toEqual([]);
    expect(turns(search('--terms', TERMS, '--operator', 'and', '--kind', 'tool_call,tool_output'))).toEqual([1]);
  });

  it('without words, keeps the turns that have a part of the kind', () => {
    expect(turns(search('--kind', 'thinking'))).toEqual([3]);
    expect(turns(search('--kind', 'tool_call'))).toEqual([1]);
  });
});

describe('--sort time', () => {
  it('puts the newest hit first', () => {
    expect(turns(search('npm test', '--sort', 'time'))).toEqual([3, 2, 1]);
    expect(turns(search('--kind', 'user', '--sort', 'time'))).toEqual([3, 2, 1]);
  });
});

describe('each hit says how to open it', () => {
  it('the printed command shows the part that matched', () => {
    const hits = search('--terms', TERMS, '--operator', 'or');
    for (const hit of hits) {
      expect(hit.open).toBe(`sivtr show ${hit.ref}/p${hit.part}`);
      const [cmd, ...args] = hit.open.split(' ');
      expect(cmd).toBe('sivtr');
      const shown = runCli(args, { env });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout.toLowerCase()).toMatch(/npm test|econnrefused/);
    }
    const full = runCli(['search', 'claude', 'flamingo', '--kind', 'thinking', '--color', 'never'], { env });
    const open = full.stdout.split('\n').map((l) => l.trim()).find((l) => l.startsWith('sivtr show '));
    expect(open).toMatch(/^sivtr show claude\/[0-9a-f]+\/3\/p\d+$/);
    const shown = runCli(open!.split(' ').slice(1), { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('a flamingo would run npm test first');
    expect(shown.stdout).not.toContain('think about the flamingo');
  });
});

describe('usage errors', () => {
  it.each([
    [['--terms', 'npm'], /--terms npm is not a JSON array/],
    [['--terms', '[]'], /not a JSON array of non-empty strings/],
    [['--terms', '["a"]', 'flamingo'], /both QUERY .* and --terms/],
    [['--kind', 'toolcall', 'x'], /unknown kind toolcall.*use one or more of user, assistant/],
    // an operator with nothing to join would list every turn as though it had not been given
    [['claude', '--operator', 'and'], /^sivtr: --operator and has no words to join — give QUERY words or --terms/],
    [['claude', '--operator', 'or', '--kind', 'user'], /^sivtr: --operator or has no words to join/],
    // the runs search matches QUERY words only: --terms/--operator there would be dropped unread
    [['--by', 'all', 'npm', '--operator', 'and'], /^sivtr: search --by does not take --operator: .* — drop --operator, or drop --by/],
    [['--by', 'agent', '--terms', '["npm"]'], /^sivtr: search --by does not take --terms: /],
  ])('%j', (args, message) => {
    const r = runCli(['search', ...args], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('--no-index gives the same answers', () => {
  it('for every precision flag', () => {
    const cases: string[][] = [
      ['--terms', TERMS, '--operator', 'and'],
      ['--terms', TERMS, '--operator', 'or'],
      ['--terms', TERMS],
      ['npm', 'ECONNREFUSED', '--operator', 'and'],
      ['npm test', '--kind', 'user'],
      ['flamingo', '--kind', 'thinking'],
      ['--kind', 'tool_call,tool_output'],
      ['npm test', '--sort', 'time'],
    ];
    for (const args of cases) {
      for (const format of ['json', 'full']) {
        const indexed = runCli(['search', 'claude', ...args, '--format', format, '--color', 'never'], { env });
        const direct = runCli(['search', 'claude', ...args, '--format', format, '--color', 'never', '--no-index'], { env });
        expect(indexed.code, indexed.stderr).toBe(0);
        expect(direct.stdout, args.join(' ')).toBe(indexed.stdout);
        expect(direct.stderr).toBe(indexed.stderr);
      }
    }
  }, 120_000);
});
