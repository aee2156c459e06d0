// Hand-made agent transcripts in the formats the providers read, written where each agent
// keeps them under a temporary HOME: for tests whose point is what the sessions contain.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type ToolCall = { name: string; input: unknown; result: string; error?: boolean };
export type TurnSpec = { prompt: string; calls?: ToolCall[]; reply: string };

/** A Claude Code transcript: one record per line, each the child of the one before, one minute apart from `start`. */
export function writeClaudeSession(home: string, opts: { id: string; cwd: string; start?: string; turns: TurnSpec[] }): string {
  const dir = join(home, '.claude', 'projects', opts.cwd.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  const start = Date.parse(opts.start ?? '2026-11-30T10:00:00.000Z');
  const lines: unknown[] = [];
  let parent: string | null = null;
  let n = 0;
  const push = (rec: Record<string, unknown>): void => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    lines.push({ parentUuid: parent, isSidechain: false, uuid, sessionId: opts.id, cwd: opts.cwd, timestamp: new Date(start + n * 60_000).toISOString(), version: '2.1.332', ...rec });
    parent = uuid;
  };
  opts.turns.forEach((t, ti) => {
    push({ type: 'user', message: { role: 'user', content: t.prompt } });
    (t.calls ?? []).forEach((c, ci) => {
      const id = `toolu_${ti}_${ci}`;
      push({ type: 'assistant', message: { id: `msg_${ti}_${ci}`, role: 'assistant', content: [{ type: 'tool_use', id, name: c.name, input: c.input }] } });
      push({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: c.result, is_error: c.error === true }] } });
    });
    push({ type: 'assistant', message: { id: `msg_${ti}_end`, role: 'assistant', content: [{ type: 'text', text: t.reply }] } });
  });
  const path = join(dir, `${opts.id}.jsonl`);
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const end = new Date(start + n * 60_000);
  utimesSync(path, end, end);
  return path;
}

/** A Codex rollout of one answered prompt at `at`. */
export function writeCodexSession(home: string, opts: { id: string; cwd: string; at: string; prompt?: string }): string {
  const day = opts.at.slice(0, 10).split('-');
  const dir = join(home, '.codex', 'sessions', ...day);
  mkdirSync(dir, { recursive: true });
  const stamp = opts.at.slice(0, 19).replace(/:/g, '-');
  const path = join(dir, `rollout-${stamp}-${opts.id}.jsonl`);
  const lines = [
    { timestamp: opts.at, type: 'session_meta', payload: { id: opts.id, timestamp: opts.at, cwd: opts.cwd, originator: 'codex_cli_rs', cli_version: '0.171.0', source: 'cli' } },
    { timestamp: opts.at, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: opts.prompt ?? 'hello' }] } },
    { timestamp: opts.at, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }], phase: 'final_answer' } },
    { timestamp: opts.at, type: 'event_msg', payload: { type: 'task_complete', turn_id: 't1' } },
  ];
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const t = new Date(opts.at);
  utimesSync(path, t, t);
  return path;
}
