// Continue CLI (`cn`) sessions: `<global>/sessions/<sessionId>.json`, one JSON document per
// session rewritten whole on every change, with `<global>/sessions/sessions.json` as an index
// (title, workspaceDirectory, dateCreated as a string of epoch ms). `<global>` is
// $CONTINUE_GLOBAL_DIR or ~/.continue (docs/formats.md). A session is an ordered `history`: user
// items, and assistant items whose tool calls carry their results in `toolCallStates` (there are
// no tool-role items). Messages have no ids and no times: the file's mtime is the last activity.
// Headless `/compact` is not persisted, and a fork is a copy that does not name its parent.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { warn } from '../errors.js';
import {
  expandHome, homeOf, imagePlaceholder, isInjectedText, isObject, joinContent, labelToolOutputs, prettyArgs, pushBlock, readDirQuiet, statOrUndefined, str, titleFrom, toIso, summariesOfFiles,
} from './common.js';
import type { Transcript, Block, TokenUsage, DiscoverOptions, Provider, TranscriptSummary } from './types.js';
import { tokenCount, tokenUsage } from './usage.js';

type Rec = Record<string, unknown>;

/** Continue's placeholder until a title is generated (headless runs never generate one). */
const UNTITLED = 'Untitled Session';

export function continueGlobalDir(env: NodeJS.ProcessEnv): string {
  return env.CONTINUE_GLOBAL_DIR ? expandHome(env.CONTINUE_GLOBAL_DIR, env) : join(homeOf(env), '.continue');
}

function messageText(content: unknown): string {
  return joinContent(content, (part) => {
    if (typeof part === 'string') return part;
    if (!isObject(part)) return undefined;
    if (part.type === 'text') return str(part.text);
    if (part.type === 'imageUrl' || part.type === 'image_url') return imagePlaceholder(undefined, undefined);
    return undefined;
  });
}

/** The read tool prefixes the file's text with `Content of <path>:`; the output is the text. */
function unwrapRead(name: string | undefined, text: string): string {
  if (name !== 'Read' && name !== 'read_file') return text;
  return text.replace(/^Content of [^\n]*:\n/, '');
}

/** OpenAI-style usage: `prompt_tokens` includes the cached ones (`prompt_tokens_details.cached_tokens`). */
function continueUsage(u: unknown): TokenUsage | undefined {
  if (!isObject(u)) return undefined;
  const details = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const cached = tokenCount(details.cached_tokens) ?? u.cache_read_input_tokens;
  return tokenUsage({ input: u.prompt_tokens, output: u.completion_tokens, cacheRead: cached }, { inputHolds: ['cacheRead'] });
}

/** `path`: the session file, for raw locators (`/history/<i>`, the item a block came from). */
function historyBlocks(history: unknown[], path?: string): Block[] {
  const blocks: Block[] = [];
  for (const [index, item] of history.entries()) {
    if (!isObject(item) || !isObject(item.message)) continue;
    const m = item.message;
    const from = blocks.length;
    const locate = (): void => {
      if (path) for (let i = from; i < blocks.length; i++) blocks[i]!.raw = { file: path, pointers: [`/history/${index}`] };
    };
    if (m.role === 'user') {
      const text = messageText(m.content);
      if (!isInjectedText(text)) pushBlock(blocks, 'user', text);
      locate();
      continue;
    }
    if (m.role !== 'assistant') continue; // system, tool (rebuilt by the CLI from toolCallStates)
    if (typeof m.reasoning === 'string') pushBlock(blocks, 'thinking', m.reasoning);
    pushBlock(blocks, 'assistant', messageText(m.content));
    const states = Array.isArray(item.toolCallStates) ? item.toolCallStates.filter(isObject) : [];
    const calls = Array.isArray(m.toolCalls) ? m.toolCalls.filter(isObject) : [];
    for (const call of calls) {
      const fn = isObject(call.function) ? call.function : {};
      const name = str(fn.name);
      const id = str(call.id);
      pushBlock(blocks, 'tool_call', prettyArgs(fn.arguments) || '{}', { label: name, callId: id });
      const state = states.find((s) => s.toolCallId === id);
      if (!state) continue;
      const output = Array.isArray(state.output) ? state.output.filter(isObject).map((o) => str(o.content) ?? '').join('\n') : '';
      const failed = state.status === 'errored' || state.status === 'error';
      pushBlock(blocks, 'tool_output', unwrapRead(name, output) || (failed ? String(state.status) : ''), { label: name, callId: id, isError: failed ? true : undefined });
    }
    const usage = continueUsage(m.usage);
    if (usage && blocks.length > from) blocks[from]!.usage = usage;
    locate();
  }
  labelToolOutputs(blocks);
  return blocks;
}

type IndexEntry = { title?: string; cwd?: string; createdAt?: string };

function readIndex(dir: string): Map<string, IndexEntry> {
  const out = new Map<string, IndexEntry>();
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(dir, 'sessions.json'), 'utf8'));
  } catch {
    return out; // no index, or one being rewritten: the session files say enough
  }
  if (!Array.isArray(raw)) return out;
  for (const e of raw) {
    if (!isObject(e) || typeof e.sessionId !== 'string') continue;
    const created = typeof e.dateCreated === 'string' && /^\d+$/.test(e.dateCreated) ? Number(e.dateCreated) : e.dateCreated;
    out.set(e.sessionId, { title: str(e.title), cwd: str(e.workspaceDirectory), createdAt: toIso(created) });
  }
  return out;
}

const realTitle = (title: string | undefined): string | undefined => (title && title.trim() !== '' && title !== UNTITLED ? title.trim() : undefined);

function readSession(path: string): Rec {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (!isObject(doc) || !Array.isArray(doc.history)) throw new Error('not a Continue session');
  return doc;
}

function toSession(path: string, doc: Rec, mtimeMs: number, index?: IndexEntry): Transcript {
  const blocks = historyBlocks(doc.history as unknown[], path);
  const last = blocks.at(-1);
  return {
    id: str(doc.sessionId) ?? basename(path).replace(/\.json$/, ''),
    cwd: str(doc.workspaceDirectory) ?? index?.cwd,
    title: realTitle(str(doc.title)) ?? realTitle(index?.title) ?? titleFrom(blocks.find((b) => b.kind === 'user')?.text),
    startedAt: index?.createdAt,
    updatedAt: new Date(mtimeMs).toISOString(),
    blocks,
    // a tool call without its result, or a prompt without an answer: the CLI is still at work
    lastTurnOpen: last !== undefined && last.kind !== 'assistant',
  };
}

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const say = opts.warn ?? warn;
  const dir = join(continueGlobalDir(opts.env), 'sessions');
  const files = readDirQuiet(dir, 'Continue sessions', say)
    .filter((e) => e.name.endsWith('.json') && e.name !== 'sessions.json')
    .map((e) => join(dir, e.name));
  let index: Map<string, IndexEntry> | undefined; // read once, and only when a session must be summarized
  const summarize = (path: string, _size: number, mtimeMs: number): TranscriptSummary | undefined => {
    index ??= readIndex(dir);
    const doc = readSession(path);
    const s = toSession(path, doc, mtimeMs, index.get(str(doc.sessionId) ?? ''));
    if (!s.blocks.some((b) => b.kind === 'user')) return undefined;
    return { provider: 'continue', id: s.id, location: path, cwd: s.cwd, cwds: s.cwd ? [s.cwd] : [], title: s.title, startedAt: s.startedAt, updatedAt: s.updatedAt! };
  };
  yield* summariesOfFiles(files, 'Continue sessions', summarize, opts, say);
}

function load(path: string): Transcript {
  const st = statOrUndefined(path);
  const doc = readSession(path);
  const index = readIndex(join(path, '..'));
  return toSession(path, doc, st?.mtimeMs ?? Date.now(), index.get(str(doc.sessionId) ?? ''));
}

export const continueCli: Provider = {
  name: 'continue',
  discover,
  dataLocation: (env) => join(continueGlobalDir(env), 'sessions'),
  load: async (summary) => load(summary.location),
  detect(head) {
    return /^\s*\{\s*"sessionId"\s*:/.test(head) && head.includes('"history"');
  },
  loadFile: async (path) => load(path),
};
