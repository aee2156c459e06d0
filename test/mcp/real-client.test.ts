// A real agent CLI called `sivtr mcp` (scripts/conformance/run-mcp-claude.sh: Claude Code in print
// mode, the scripted model asking for mcp__sivtr__search). Asserted from the transcript Claude
// Code itself wrote, committed under fixtures/real/mcp-claude-*: the call went out, the result
// that came back holds sivtr's refs, and those refs resolve to the seeded record today.
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const REAL = join(ROOT, 'fixtures', 'real');
const SETS = readdirSync(REAL).filter((d) => d.startsWith('mcp-claude-') && existsSync(join(REAL, d, 'mcp-run.json')));

type Record = { type?: string; message?: { content?: unknown } };
type Block = { type: string; id?: string; name?: string; input?: { query?: string }; tool_use_id?: string; content?: unknown; text?: string };

function blocks(records: Record[], type: 'user' | 'assistant'): Block[] {
  return records.filter((r) => r.type === type && Array.isArray(r.message?.content)).flatMap((r) => r.message!.content as Block[]);
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((c: { text?: string }) => c.text ?? '').join('') : '';

it('the conformance suite holds a real agent calling sivtr mcp', () => {
  expect(SETS.length).toBeGreaterThanOrEqual(1);
});

for (const set of SETS) {
  describe(`real client ${set}`, () => {
    const dir = join(REAL, set);
    const run = JSON.parse(readFileSync(join(dir, 'mcp-run.json'), 'utf8')) as { ids: { main: string }; prompt: string };
    const projects = join(dir, 'home', '.claude', 'projects');
    const file = readdirSync(projects, { recursive: true, encoding: 'utf8' }).find((p) => p.endsWith(`${run.ids.main}.jsonl`))!;
    const records = readFileSync(join(projects, file), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record);
    const calls = blocks(records, 'assistant').filter((b) => b.type === 'tool_use' && b.name === 'mcp__sivtr__search');
    const results = blocks(records, 'user').filter((b) => b.type === 'tool_result' && calls.some((c) => c.id === b.tool_use_id));

    let tmp: ReturnType<typeof tempDir>;
    beforeAll(() => {
      tmp = tempDir();
      cpSync(join(dir, 'sivtr-data'), join(tmp.path, 'data'), { recursive: true });
    });
    afterAll(() => tmp.cleanup());

    it('Claude Code called mcp__sivtr__search with the phrase of the prompt', () => {
      expect(calls).toHaveLength(1);
      expect(run.prompt).toContain(`"${calls[0]!.input?.query}"`);
    });

    it('the tool result it got back is sivtr\'s answer, citing the record by its ref', () => {
      expect(results).toHaveLength(1);
      const text = textOf(results[0]!.content);
      expect(text).toMatch(/^1 of 1 hits for "deploy-7731" in every source/);
      expect(text).toMatch(/^1\. terminal\/f00dcafe\/2(\/p\d+)?  2026-11-30T10:00Z  \(output, failed\)  cwd \/home\/me\/shop$/m);
      expect(text).toContain('ECONNREFUSED 127.0.0.1:5432 (deploy-7731)');
    });

    it('the final answer names that ref, and the ref still resolves to the seeded record', () => {
      const stdout = JSON.parse(readFileSync(join(dir, 'cli-stdout', 'turn1.json'), 'utf8')) as { result: string };
      const ref = /terminal\/f00dcafe\/2(\/p\d+)?/.exec(stdout.result)?.[0];
      expect(ref, stdout.result).toBeDefined();
      const shown = runCli(['show', ref!], { env: cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data') }) });
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('npm run deploy');
      expect(shown.stdout).toContain('(deploy-7731)');
    });

    it('sivtr reads the transcript the client wrote: the MCP call and its result are a tool call and output of the turn', () => {
      const home = join(tmp.path, 'home');
      cpSync(join(dir, 'home'), home, { recursive: true });
      const r = runCli(['show', `claude/${run.ids.main}/1`], { env: cleanEnv(home) });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/tool_call: mcp__sivtr__search/);
      expect(r.stdout).toContain('terminal/f00dcafe/2');
    });
  });
}
