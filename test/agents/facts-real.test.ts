// The facts of the shared block model (exit codes, token usage, raw-record locators, turn-end
// evidence) read from the genuine transcripts in fixtures/real/ through the CLI. Every expected
// value is what the file itself holds: the numbers the agent wrote, the lines it wrote them on.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readRawRecords } from '../../src/agents/raw.js';
import type { RawLocator } from '../../src/agents/types.js';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';

type Usage = { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; reasoning?: number };
type Ended = { state: string; evidence: string; part?: number; raw?: RawLocator };
type Block = { part: number; kind: string; label?: string; callId?: string; text: string; exitCode?: number; isError?: boolean; usage?: Usage; raw?: RawLocator; ended?: Ended };
type Turn = { turn: number; blocks: Block[]; ended?: Ended };

const REAL = join(ROOT, 'fixtures', 'real');

function withHome(set: string) {
  let tmp: { path: string; cleanup: () => void };
  const ctx = {
    env: {} as NodeJS.ProcessEnv,
    show(ref: string): Turn[] {
      const r = runCli(['show', ref, '--json'], { env: ctx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const parsed = JSON.parse(r.stdout) as Turn | Turn[];
      return Array.isArray(parsed) ? parsed : [parsed];
    },
    /** Lines of a fixture file, 1-based, as the agent wrote them. */
    line(rel: string, n: number): string {
      return readFileSync(join(REAL, set, 'home', rel), 'utf8').split('\n')[n - 1]!;
    },
  };
  beforeAll(() => {
    tmp = tempDir('sivtr-facts-');
    cpSync(join(REAL, set, 'home'), join(tmp.path, 'home'), { recursive: true });
    ctx.env = cleanEnv(join(tmp.path, 'home'), { SIVTR_DATA_DIR: join(tmp.path, 'data'), SIVTR_CONFIG_DIR: join(tmp.path, 'config') });
  });
  afterAll(() => tmp.cleanup());
  return ctx;
}

const parts = (turn: Turn, pick: (b: Block) => unknown): unknown[] => turn.blocks.map(pick);
const usageParts = (turn: Turn): number[] => turn.blocks.filter((b) => b.usage).map((b) => b.part);
const sum = (turns: Turn[], key: keyof Usage): number => turns.flatMap((t) => t.blocks).reduce((n, b) => n + (b.usage?.[key] ?? 0), 0);
const lines = (turn: Turn): (number | undefined)[] => turn.blocks.map((b) => (b.raw && 'lines' in b.raw ? b.raw.lines[0] : undefined));

/** Every block's locator opens the record it came from: user text and call ids are in it. */
async function rawResolves(turns: Turn[]): Promise<void> {
  for (const b of turns.flatMap((t) => t.blocks)) {
    expect(b.raw, `p${b.part} ${b.kind} has a locator`).toBeDefined();
    const [record] = await readRawRecords(b.raw!);
    expect(() => JSON.parse(record!)).not.toThrow();
    if (b.kind === 'user') expect(record).toContain(JSON.stringify(b.text.slice(0, 20)).slice(1, -1));
    if (b.callId) expect(record).toContain(b.callId);
  }
}

describe('claude 2.1.332', () => {
  const h = withHome('claude-2.1.332');
  const main = 'claude/3e5c5f9d-9680-4358-ab70-67ffa64d4abe';
  const file = '.claude/projects/-tmp-sivtr-conformance-claude-proj/3e5c5f9d-9680-4358-ab70-67ffa64d4abe.jsonl';
  test('usage once per API message although each content block repeats it; no exit code for a Bash success', () => {
    const [t1] = h.show(`${main}/1`);
    // lines 19+20, 27+28, 31+32: one message each (same message.id), usage on its first block
    expect(lines(t1!)).toEqual([3, 19, 20, 23, 27, 28, 29, 31, 32]);
    expect(JSON.parse(h.line(file, 19)).message.id).toBe(JSON.parse(h.line(file, 20)).message.id);
    expect(usageParts(t1!)).toEqual([2, 5, 8]);
    expect(t1!.blocks[1]!.usage).toEqual({ input: 120, output: 25, cacheRead: 0, cacheWrite: 0 });
    // the Bash result records stdout/stderr/interrupted, no exit code: none is invented
    expect(JSON.parse(h.line(file, 23)).toolUseResult).toEqual({ stdout: 'hello', stderr: '', interrupted: false, isImage: false, noOutputExpected: false });
    expect(parts(t1!, (b) => b.exitCode)).toEqual(Array(9).fill(undefined));
  });
  test('each turn ends on the stop_reason the last message recorded', () => {
    const turns = h.show(main);
    expect(turns.map((t) => [t.ended?.state, t.ended?.evidence, t.ended?.part])).toEqual([
      ['completed', 'stop_reason: end_turn', 9],
      ['completed', 'stop_reason: end_turn', 2],
      ['completed', 'stop_reason: end_turn', 6],
      ['completed', 'stop_reason: end_turn', 9],
    ]);
    expect(turns[0]!.ended!.raw).toMatchObject({ lines: [32] });
    expect(JSON.parse(h.line(file, 32)).message.stop_reason).toBe('end_turn');
  });
  test('raw locators open the very lines', async () => {
    const [t1] = h.show(`${main}/1`);
    expect(await readRawRecords(t1!.blocks[3]!.raw!)).toEqual([h.line(file, 23)]);
    await rawResolves(h.show(main));
  });
});

describe('claude 2.1.197', () => {
  const h = withHome('claude-2.1.197');
  const main = 'claude/2ebbb680-db2e-4957-9873-ddca5cc75da6';
  test('usage, end evidence and locators', async () => {
    const turns = h.show(main);
    expect(usageParts(turns[0]!)).toEqual([2, 5, 8]);
    expect(turns[0]!.blocks[1]!.usage).toEqual({ input: 120, output: 25, cacheRead: 0, cacheWrite: 0 });
    expect(turns.every((t) => t.ended?.state === 'completed' && t.ended.evidence === 'stop_reason: end_turn')).toBe(true);
    expect(turns.flatMap((t) => t.blocks).some((b) => b.exitCode !== undefined)).toBe(false);
    await rawResolves(turns);
  });
});

describe('codex 0.171.0', () => {
  const h = withHome('codex-0.171.0');
  const main = 'codex/01a230d5-994b-77e1-8762-d8fc28861734';
  const file = '.codex/sessions/2026/12/01/rollout-2026-12-01T09-00-34-01a230d5-994b-77e1-8762-d8fc28861734.jsonl';
  test('exit codes from "Process exited with code 0"; usage sums to the thread total Codex wrote last', () => {
    const turns = h.show(main);
    const [t1] = turns;
    expect(t1!.blocks.filter((b) => b.kind === 'tool_output').map((b) => [b.part, b.exitCode])).toEqual([[4, 0], [7, 0]]);
    expect(JSON.parse(h.line(file, 15)).payload.output).toContain('Process exited with code 0');
    // one token_usage_record per response: after each function call, and after the final message
    expect(usageParts(t1!)).toEqual([3, 6, 9]);
    expect(t1!.blocks[2]!.usage).toEqual({ input: 120, output: 25, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
    const last = JSON.parse(h.line(file, 58)).payload.info.total_token_usage;
    expect(last).toMatchObject({ input_tokens: 720, output_tokens: 150 });
    expect(sum(turns, 'input') + sum(turns, 'cacheRead')).toBe(720);
    expect(sum(turns, 'output')).toBe(150);
  });
  test('every turn ends on task_complete, located on its line', async () => {
    const turns = h.show(main);
    expect(turns.map((t) => [t.ended?.state, t.ended?.evidence])).toEqual(Array(3).fill(['completed', 'task_complete']));
    expect(turns[0]!.ended!.raw).toMatchObject({ lines: [30] });
    expect(JSON.parse(h.line(file, 30)).payload.type).toBe('task_complete');
    await rawResolves(turns);
  });
  test("a fork's inherited blocks point into the parent rollout", () => {
    const [t1] = h.show('codex/01a230d5-a0ec-7742-a665-602156bf33cf/1');
    expect(t1!.blocks[0]!.raw).toMatchObject({ lines: [8] });
    expect((t1!.blocks[0]!.raw as { file: string }).file).toMatch(/01a230d5-994b-77e1-8762-d8fc28861734\.jsonl$/);
  });
});

describe('pi 0.73.1', () => {
  const h = withHome('pi-0.73.1');
  const main = 'pi/01a230d6-a7a1-72eb-b91d-70cf13dd1d39';
  const file = '.pi/agent/sessions/--tmp-sivtr-conformance-pi-proj--/2026-12-01T09-01-43-713Z_01a230d6-a7a1-72eb-b91d-70cf13dd1d39.jsonl';
  test('usage per assistant message as Pi wrote it, stopReason as the end, no exit code for a bash success', async () => {
    const turns = h.show(main);
    const [t1] = turns;
    expect(lines(t1!)).toEqual([4, 5, 5, 6, 7, 7, 8, 9]);
    expect(usageParts(t1!)).toEqual([2, 5, 8]);
    expect(JSON.parse(h.line(file, 5)).message.usage).toMatchObject({ input: 120, output: 25, cacheRead: 0, cacheWrite: 0 });
    expect(t1!.blocks[1]!.usage).toEqual({ input: 120, output: 25, cacheRead: 0, cacheWrite: 0 });
    expect(t1!.blocks[3]).toMatchObject({ kind: 'tool_output', label: 'bash' });
    expect(t1!.blocks[3]!.exitCode).toBeUndefined();
    expect(t1!.ended).toMatchObject({ state: 'completed', evidence: 'stopReason: stop', part: 8, raw: { lines: [9] } });
    expect(JSON.parse(h.line(file, 9)).message.stopReason).toBe('stop');
    await rawResolves(turns);
  });
});

describe('gemini 0.61.0', () => {
  const h = withHome('gemini-0.61.0');
  const main = 'gemini/41d84900-26b3-44c1-bd3c-2a1b94d75b99';
  test('usage once per message (its record is upserted by id), no completion evidence since Gemini writes none', async () => {
    const turns = h.show(main);
    const [t1] = turns;
    // the message of line 5 is rewritten with its tool calls on line 7: one message, one usage
    expect(lines(t1!)).toEqual([3, 7, 7, 7, 12, 12, 12, 15]);
    expect(usageParts(t1!)).toEqual([2, 5, 8]);
    expect(t1!.blocks[1]!.usage).toEqual({ input: 120, output: 25, cacheRead: 0, reasoning: 0 });
    expect(turns.map((t) => t.ended)).toEqual([undefined, undefined, undefined]);
    expect(t1!.blocks.find((b) => b.label === 'run_shell_command' && b.kind === 'tool_output')!.exitCode).toBeUndefined();
    await rawResolves(turns);
  });
});

// the databases' session ids change with every run of the driver; run.json names the main one
const mainSessionOf = (set: string): string => (JSON.parse(readFileSync(join(REAL, set, 'run.json'), 'utf8')) as { ids: { main: string } }).ids.main;

for (const [set, provider, db] of [
  ['opencode-1.18.33', 'opencode', '.local/share/opencode/opencode.db'],
  ['kilo-7.7.7', 'kilo', '.local/share/kilo/kilo.db'],
] as const) {
  describe(set, () => {
    const main = mainSessionOf(set);
    const h = withHome(set);
    test('bash exit code from the tool metadata, message tokens, finish: stop, rows by id', async () => {
      const turns = h.show(`${provider}/${main}`);
      const [t1] = turns;
      const bash = t1!.blocks.find((b) => b.kind === 'tool_output' && b.label === 'bash')!;
      expect(bash.exitCode).toBe(0);
      const [row] = await readRawRecords(bash.raw!);
      const data = JSON.parse(JSON.parse(row!).data);
      expect(data.state.metadata.exit).toBe(0);
      expect(bash.raw).toMatchObject({ table: 'part', column: 'id' });
      expect((bash.raw as { db: string }).db).toMatch(new RegExp(`${db.replace(/[./]/g, '\\$&')}$`));
      expect(usageParts(t1!)).toEqual([2, 5, 8]);
      expect(t1!.blocks[1]!.usage).toEqual({ input: 120, output: 25, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
      expect(t1!.ended).toMatchObject({ state: 'completed', evidence: 'finish: stop', part: 8, raw: { table: 'message' } });
      await rawResolves(turns);
    });
  });
}

describe('copilot 1.0.102', () => {
  const h = withHome('copilot-1.0.102');
  const main = 'copilot/b6f1c1f8-62c2-4f8b-a465-4c25c6f46ee9';
  const file = '.copilot/session-state/b6f1c1f8-62c2-4f8b-a465-4c25c6f46ee9/events.jsonl';
  test('shellExecution.exitCode, the usage record before each message, turn_end after the final message', async () => {
    const turns = h.show(main);
    const [t1] = turns;
    expect(lines(t1!)).toEqual([2, 6, 6, 8, 12, 12, 14, 18]);
    expect(JSON.parse(h.line(file, 8)).data.shellExecution).toEqual({ exitCode: 0 });
    expect(t1!.blocks.filter((b) => b.kind === 'tool_output').map((b) => b.exitCode)).toEqual([0, undefined]);
    // usage_record on line 5 belongs to the message of line 6
    expect(JSON.parse(h.line(file, 5)).data.usage).toMatchObject({ inputTokens: 120, outputTokens: 25, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(usageParts(t1!)).toEqual([2, 5, 8]);
    expect(t1!.blocks[1]!.usage).toEqual({ input: 120, output: 25, cacheRead: 0, cacheWrite: 0 });
    // turn_end after a tool step (line 9) does not end the user's turn; the one after the answer (line 19) does
    expect(t1!.ended).toMatchObject({ state: 'completed', evidence: 'assistant.turn_end', part: 8, raw: { lines: [19] } });
    expect(t1!.blocks.filter((b) => b.ended).map((b) => b.part)).toEqual([8]);
    await rawResolves(turns);
  });
});

describe('qwen 0.24.4', () => {
  const h = withHome('qwen-0.24.4');
  const main = 'qwen/791154f9-557d-4fbf-bced-67d9b4911625';
  const file = '.qwen/projects/-tmp-sivtr-conformance-qwen-proj/chats/791154f9-557d-4fbf-bced-67d9b4911625.jsonl';
  test('shell exit code from resultDisplay, usageMetadata per assistant record, no end evidence (none written)', async () => {
    const turns = h.show(main);
    const [t1] = turns;
    expect(lines(t1!)).toEqual([1, 4, 4, 6, 8, 8, 10, 12]);
    expect(JSON.parse(h.line(file, 6)).toolCallResult.resultDisplay.exitCode).toBe(0);
    expect(t1!.blocks.filter((b) => b.kind === 'tool_output').map((b) => b.exitCode)).toEqual([0, undefined]);
    expect(JSON.parse(h.line(file, 4)).usageMetadata).toMatchObject({ promptTokenCount: 120, candidatesTokenCount: 25, cachedContentTokenCount: 0 });
    expect(usageParts(t1!)).toEqual([2, 5, 8]);
    expect(t1!.blocks[1]!.usage).toEqual({ input: 120, output: 25, cacheRead: 0, reasoning: 0 });
    expect(turns.every((t) => t.ended === undefined)).toBe(true);
    await rawResolves(turns);
  });
});

describe('droid 0.215.0', () => {
  const h = withHome('droid-0.215.0');
  const main = 'droid/34cac438-7b39-483a-99c8-623f112aa2ec';
  const file = '.factory/sessions/-tmp-sivtr-conformance-droid-proj/34cac438-7b39-483a-99c8-623f112aa2ec.jsonl';
  test('"[Process exited with code 0]" as the exit code, agent_turn_outcome as the end; no per-message usage recorded', async () => {
    const turns = h.show(main);
    const [t1] = turns;
    expect(JSON.parse(h.line(file, 5)).message.content[0].content).toMatch(/\[Process exited with code 0\]$/);
    expect(t1!.blocks.filter((b) => b.kind === 'tool_output').map((b) => b.exitCode)).toEqual([0, undefined]);
    expect(t1!.ended).toMatchObject({ state: 'completed', evidence: 'agent_turn_outcome: completed', raw: { lines: [9] } });
    expect(JSON.parse(h.line(file, 9))).toMatchObject({ type: 'agent_turn_outcome', reason: 'completed' });
    expect(turns.flatMap((t) => t.blocks).some((b) => b.usage)).toBe(false);
    await rawResolves(turns);
  });
});

describe('auggie 0.36.0', () => {
  const h = withHome('auggie-0.36.0');
  const main = 'auggie/875275ab-8729-4285-8877-6fb705b4538d';
  test('<return-code> as the exit code, exchanges by JSON pointer, a completed answer as the end', async () => {
    const turns = h.show(main);
    const [t1] = turns;
    const out = t1!.blocks.find((b) => b.label === 'launch-process' && b.kind === 'tool_output')!;
    expect(out.exitCode).toBe(0);
    expect(out.raw).toMatchObject({ pointers: ['/chatHistory/1'] });
    const [exchange] = await readRawRecords(out.raw!);
    expect(JSON.parse(exchange!).exchange.request_nodes[1].tool_result_node.content).toContain('<return-code>\n0\n</return-code>');
    expect(t1!.ended).toMatchObject({ state: 'completed', evidence: 'completed: true', part: 8 });
    expect(turns.flatMap((t) => t.blocks).some((b) => b.usage)).toBe(false);
    await rawResolves(turns);
  });
});

describe('continue 1.5.47', () => {
  const h = withHome('continue-1.5.47');
  const main = 'continue/5762eef8-eaed-42fc-92f5-7b62fee4b8ba';
  test('usage per assistant item, no exit code (the Bash tool keeps none), no end evidence', async () => {
    const turns = h.show(main);
    const [t1] = turns;
    expect(t1!.blocks.map((b) => (b.raw && 'pointers' in b.raw ? b.raw.pointers[0] : undefined))).toEqual(['/history/0', '/history/1', '/history/1', '/history/1', '/history/2', '/history/2', '/history/2', '/history/3']);
    expect(usageParts(t1!)).toEqual([2, 5, 8]);
    expect(t1!.blocks[1]!.usage).toEqual({ input: 120, output: 25 });
    expect(turns.flatMap((t) => t.blocks).some((b) => b.exitCode !== undefined)).toBe(false);
    expect(turns.every((t) => t.ended === undefined)).toBe(true);
    await rawResolves(turns);
  });
});
