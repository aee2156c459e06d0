// Auggie (Augment Code's CLI): `~/.augment/sessions/<sessionId>.json`, one JSON document per
// session rewritten on every change (docs/formats.md). The unit is an exchange (one request, one
// response): `request_nodes` hold the prompt (type 0), tool results (type 1), the IDE state with
// the working directory (type 4) and a history summary after a compaction (type 10);
// `response_nodes` hold text (type 0) and tool calls (type 5). A tool result arrives in the next
// exchange's request, whose `request_message` is empty.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { warn } from '../errors.js';
import {
  homeOf, isObject, labelToolOutputs, prettyArgs, pushBlock, readDirQuiet, str, titleFrom, toIso, summariesOfFiles,
} from './common.js';
import type { Transcript, Block, DiscoverOptions, Provider, TranscriptSummary } from './types.js';

type Rec = Record<string, unknown>;

const NODE = { text: 0, toolResult: 1, ideState: 4, toolUse: 5, summary: 10 } as const;

export const auggieSessions = (env: NodeJS.ProcessEnv): string => join(homeOf(env), '.augment', 'sessions');

/** What the tools wrap around their output: the output is what a person wants to read. */
function unwrapOutput(name: string | undefined, text: string): string {
  if (name === 'launch-process' || name === 'read-process') {
    const out = /<output>\n?([\s\S]*?)<\/output>/.exec(text);
    if (out) return out[1]!.replace(/\n+$/, '');
  }
  if (name === 'view') return text.replace(/^Here's the result of running `cat -n` on [^\n]*:\n/, '').replace(/\n*Total lines in file: \d+\s*$/, '');
  return text;
}

function exitCode(text: string): number | undefined {
  const m = /<return-code>\s*(-?\d+)\s*<\/return-code>/.exec(text);
  return m ? Number(m[1]) : undefined;
}

const nodesOf = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** `path`: the session file, for raw locators (`/chatHistory/<i>`, the exchange a block came from). */
function historyBlocks(history: unknown[], path?: string): { blocks: Block[]; cwd?: string; open: boolean } {
  const blocks: Block[] = [];
  const toolNames = new Map<string, string>();
  let cwd: string | undefined;
  let open = false;
  for (const [index, entry] of history.entries()) {
    const item = isObject(entry) ? entry : {};
    const ex = isObject(item.exchange) ? item.exchange : undefined;
    if (!ex) continue;
    const from = blocks.length;
    const timestamp = toIso(item.finishedAt);
    const request = nodesOf(ex.request_nodes);
    let prompt = request.filter((n) => n.type === NODE.text).map((n) => (isObject(n.text_node) ? str(n.text_node.content) ?? '' : '')).join('\n');
    if (prompt.trim() === '') prompt = str(ex.request_message) ?? '';
    pushBlock(blocks, 'user', prompt, { timestamp });
    for (const n of request) {
      if (n.type === NODE.ideState && isObject(n.ide_state_node)) {
        const state = n.ide_state_node;
        const terminal = isObject(state.current_terminal) ? str(state.current_terminal.current_working_directory) : undefined;
        const folder = nodesOf(state.workspace_folders).map((f) => str(f.folder_root)).find(Boolean);
        cwd ??= terminal ?? folder;
      } else if (n.type === NODE.toolResult && isObject(n.tool_result_node)) {
        const r = n.tool_result_node;
        const callId = str(r.tool_use_id);
        const name = callId ? toolNames.get(callId) : undefined;
        const raw = str(r.content) ?? '';
        const code = exitCode(raw);
        const failed = r.is_error === true || (code !== undefined && code !== 0);
        pushBlock(blocks, 'tool_output', unwrapOutput(name, raw) || (code !== undefined ? '(no output)' : ''), { timestamp, callId, label: name, isError: failed ? true : undefined, exitCode: code });
      } else if (n.type === NODE.summary && isObject(n.history_summary_node)) {
        pushBlock(blocks, 'compaction', str(n.history_summary_node.summary_text) || 'history summarized', { timestamp });
      }
    }
    const response = nodesOf(ex.response_nodes);
    let calls = 0;
    if (response.length === 0) pushBlock(blocks, 'assistant', str(ex.response_text), { timestamp });
    for (const n of response) {
      if (n.type === NODE.text) pushBlock(blocks, 'assistant', str(n.content), { timestamp: toIso(n.timestamp_ms) ?? timestamp });
      else if (n.type === NODE.toolUse && isObject(n.tool_use)) {
        const t = n.tool_use;
        const callId = str(t.tool_use_id);
        const name = str(t.tool_name);
        if (callId && name) toolNames.set(callId, name);
        pushBlock(blocks, 'tool_call', prettyArgs(t.input_json) || '{}', { timestamp, label: name, callId });
        calls++;
      }
    }
    open = item.completed !== true || calls > 0;
    if (path) for (let i = from; i < blocks.length; i++) blocks[i]!.raw = { file: path, pointers: [`/chatHistory/${index}`] };
    // The exchange that answered without calling a tool, marked completed: the turn's end.
    if (item.completed === true && calls === 0 && blocks.length > 0) blocks.at(-1)!.ended = { state: 'completed', evidence: 'completed: true', at: timestamp, ...(path ? { raw: { file: path, pointers: [`/chatHistory/${index}`] } } : {}) };
  }
  labelToolOutputs(blocks);
  return { blocks, cwd, open };
}

function readSession(path: string): Rec {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (!isObject(doc) || !Array.isArray(doc.chatHistory)) throw new Error('not an Auggie session');
  return doc;
}

function toSession(path: string, doc: Rec): Transcript {
  const { blocks, cwd, open } = historyBlocks(doc.chatHistory as unknown[], path);
  return {
    id: str(doc.sessionId) ?? basename(path).replace(/\.json$/, ''),
    cwd,
    title: titleFrom(blocks.find((b) => b.kind === 'user')?.text),
    startedAt: toIso(doc.created),
    updatedAt: toIso(doc.modified),
    blocks,
    lastTurnOpen: blocks.length > 0 && open,
  };
}

function summarize(path: string, _size: number, mtimeMs: number): TranscriptSummary | undefined {
  const s = toSession(path, readSession(path));
  if (!s.blocks.some((b) => b.kind === 'user')) return undefined;
  return { provider: 'auggie', id: s.id, location: path, cwd: s.cwd, cwds: s.cwd ? [s.cwd] : [], title: s.title, startedAt: s.startedAt, updatedAt: s.updatedAt ?? new Date(mtimeMs).toISOString() };
}

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const say = opts.warn ?? warn;
  const dir = auggieSessions(opts.env);
  const files = readDirQuiet(dir, 'Auggie sessions', say).filter((e) => e.name.endsWith('.json')).map((e) => join(dir, e.name));
  yield* summariesOfFiles(files, 'Auggie sessions', summarize, opts, say);
}

export const auggie: Provider = {
  name: 'auggie',
  discover,
  dataLocation: auggieSessions,
  load: async (summary) => toSession(summary.location, readSession(summary.location)),
  detect: (head) => /^\s*\{\s*"sessionId"\s*:/.test(head) && head.includes('"chatHistory"'),
  loadFile: async (path) => toSession(path, readSession(path)),
};
