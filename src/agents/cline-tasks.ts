// The task folders of Cline and the extensions forked from it (Roo Code, the legacy Kilo Code
// extension): `<storage>/tasks/<taskId>/api_conversation_history.json` (the Anthropic-shaped
// message list the model saw) beside `ui_messages.json` (what the panel showed, with times), and
// an index in `<storage>/state/taskHistory.json` (docs/formats.md). Both files are rewritten whole
// on every change. One reader serves all three; each provider only says where its storage lives.
//
// What makes these transcripts particular: the first prompt is wrapped in `<task>`, later ones in
// `<feedback>` or `<answer>`; every user message carries an `<environment_details>` part; older
// versions write tool calls as XML inside the assistant's text and their results as user text
// (`[execute_command for 'ls'] Result:`); the final answer is the `result` of
// `attempt_completion`, not plain text.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { warn } from '../errors.js';
import { childPath } from '../files.js';
import {
  expandHome, homeOf, imagePlaceholder, isObject, joinContent, labelToolOutputs, prettyArgs, pushBlock, readDirQuiet,
  statOrUndefined, str, titleFrom, toIso, UnreadableFiles,
} from './common.js';
import type { Transcript, Block, DiscoverOptions, Provider, TokenUsage, TranscriptSummary } from './types.js';
import { tokenUsage } from './usage.js';

type Rec = Record<string, unknown>;

/** Editors whose user data may hold a VS Code extension's global storage. */
const EDITORS = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf'];

/** `<editor data>/User/globalStorage/<extension id>` for every editor and platform layout. */
export function extensionStorages(env: NodeJS.ProcessEnv, extensionId: string): string[] {
  // Every search asks (its index check names each storage): one join for each root, then plain
  // names below it (childPath), which give the very paths join would.
  const home = join(homeOf(env));
  const roots: string[] = [];
  if (process.platform === 'darwin') roots.push(join(home, 'Library', 'Application Support'));
  else if (process.platform === 'win32') roots.push(join(env.APPDATA ?? join(home, 'AppData', 'Roaming')));
  else roots.push(env.XDG_CONFIG_HOME ? join(expandHome(env.XDG_CONFIG_HOME, env)) : join(home, '.config'));
  const out = roots.flatMap((root) => EDITORS.map((app) => childPath(root, app, 'User', 'globalStorage', extensionId)));
  // VS Code's remote servers (SSH, containers, Codespaces) keep their own user data.
  for (const remote of ['.vscode-server', '.vscode-remote', '.cursor-server', '.windsurf-server']) out.push(childPath(home, remote, 'data', 'User', 'globalStorage', extensionId));
  return out;
}

/** Tools whose XML call is the answer itself rather than work. */
const ANSWER_TOOLS: Record<string, string> = { attempt_completion: 'result', ask_followup_question: 'question', plan_mode_respond: 'response' };
const XML_TOOLS = [
  'execute_command', 'read_file', 'write_to_file', 'replace_in_file', 'apply_diff', 'insert_content', 'search_and_replace', 'search_files',
  'list_files', 'list_code_definition_names', 'browser_action', 'use_mcp_tool', 'access_mcp_resource', 'new_task', 'switch_mode', 'codebase_search',
  ...Object.keys(ANSWER_TOOLS),
];
const XML_CALL = new RegExp(`<(${XML_TOOLS.join('|')})>([\\s\\S]*?)(?:</\\1>|$)`, 'g');

function xmlParams(inner: string): Rec {
  const params: Rec = {};
  for (const m of inner.matchAll(/<([a-z_]+)>([\s\S]*?)<\/\1>/g)) params[m[1]!] = m[2]!.trim();
  return params;
}

const unwrapTag = (text: string, tag: string): string | undefined => {
  const m = new RegExp(`^\\s*<${tag}>\\n?([\\s\\S]*?)\\n?</${tag}>\\s*$`).exec(text);
  return m ? m[1] : undefined;
};

function assistantBlocks(blocks: Block[], text: string, timestamp: string | undefined): void {
  let rest = text;
  for (const m of text.matchAll(/<thinking>([\s\S]*?)<\/thinking>/g)) pushBlock(blocks, 'thinking', m[1], { timestamp });
  rest = rest.replace(/<thinking>[\s\S]*?<\/thinking>/g, '');
  let from = 0;
  for (const m of rest.matchAll(XML_CALL)) {
    pushBlock(blocks, 'assistant', rest.slice(from, m.index), { timestamp });
    from = m.index! + m[0].length;
    const tool = m[1]!;
    const params = xmlParams(m[2]!);
    const answerKey = ANSWER_TOOLS[tool];
    if (answerKey) pushBlock(blocks, 'assistant', str(params[answerKey]), { timestamp });
    else pushBlock(blocks, 'tool_call', prettyArgs(params), { timestamp, label: tool });
  }
  pushBlock(blocks, 'assistant', rest.slice(from), { timestamp });
}

function resultText(content: unknown): string {
  return joinContent(content, (part) => {
    if (typeof part === 'string') return part;
    if (!isObject(part)) return undefined;
    if (part.type === 'text') return str(part.text);
    const source = isObject(part.source) ? part.source : undefined;
    return part.type === 'image' ? imagePlaceholder(str(source?.media_type), source?.data) : undefined;
  });
}

/** A user text part: the prompt, a tool result of the XML era, or context to leave out. */
function userPart(blocks: Block[], text: string, timestamp: string | undefined): void {
  const t = text.trim();
  if (t.startsWith('<environment_details>') || t.startsWith('<system-reminder>')) return;
  const result = /^\[([a-z_]+)(?: for [\s\S]*?)?\] Result:\s*\n?([\s\S]*)$/.exec(t);
  if (result) {
    // an answer to ask_followup_question is the user speaking again
    const answer = unwrapTag(result[2]!, 'answer');
    if (result[1] === 'ask_followup_question' && answer !== undefined) pushBlock(blocks, 'user', answer, { timestamp });
    else if (result[1] !== 'attempt_completion') pushBlock(blocks, 'tool_output', result[2], { timestamp, label: result[1], isError: /^(The tool execution failed|Error)/.test(result[2]!) ? true : undefined });
    else {
      const feedback = unwrapTag(result[2]!.replace(/^The user has provided feedback on the results[^\n]*\n/, ''), 'feedback');
      if (feedback !== undefined) pushBlock(blocks, 'user', feedback, { timestamp });
    }
    return;
  }
  const prompt = unwrapTag(t, 'task') ?? unwrapTag(t, 'feedback') ?? unwrapTag(t, 'user_message') ?? t;
  if (/^\[TASK RESUMPTION\]/.test(prompt)) return; // Cline's note when a task is reopened
  pushBlock(blocks, 'user', prompt, { timestamp });
}

/**
 * `metrics.tokens` of an assistant message (Cline 3.x): `prompt` counts the cached tokens too
 * (`cached` is the part of it served from the cache), so fresh input is the difference.
 */
function taskUsage(m: Rec): TokenUsage | undefined {
  const tokens = isObject(m.metrics) && isObject(m.metrics.tokens) ? m.metrics.tokens : undefined;
  if (!tokens) return undefined;
  return tokenUsage({ input: tokens.prompt, output: tokens.completion, cacheRead: tokens.cached }, { inputHolds: ['cacheRead'] });
}

/** `file`: the api_conversation_history.json they came from, for raw locators (`/<index>`). */
export function taskBlocks(messages: unknown[], file?: string): { blocks: Block[]; open: boolean } {
  const blocks: Block[] = [];
  let finished = false;
  for (const [index, m] of messages.entries()) {
    if (!isObject(m)) continue;
    const from = blocks.length;
    const wasFinished = finished;
    taskMessage(m, blocks, (f) => (finished = f), wasFinished);
    const raw = file ? { file, pointers: [`/${index}`] } : undefined;
    if (raw) for (let i = from; i < blocks.length; i++) blocks[i]!.raw = raw;
    const usage = m.role === 'assistant' ? taskUsage(m) : undefined;
    if (usage && blocks.length > from) blocks[from]!.usage = usage;
    // attempt_completion: the agent's own record that it considers the task done
    if (finished && m.role === 'assistant' && blocks.length > 0) blocks.at(-1)!.ended = { state: 'completed', evidence: 'attempt_completion', at: toIso(m.ts), ...(raw ? { raw } : {}) };
  }
  labelToolOutputs(blocks);
  return { blocks, open: !finished && blocks.at(-1)?.kind !== 'assistant' };
}

function taskMessage(m: Rec, blocks: Block[], setFinished: (f: boolean) => void, wasFinished: boolean): void {
  let finished = wasFinished;
  {
    const timestamp = toIso(m.ts);
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [];
    if (m.role === 'user') {
      for (const part of content) {
        if (!isObject(part)) continue;
        if (part.type === 'text') userPart(blocks, str(part.text) ?? '', timestamp);
        else if (part.type === 'image') userPart(blocks, imagePlaceholder(isObject(part.source) ? str(part.source.media_type) : undefined, isObject(part.source) ? part.source.data : undefined), timestamp);
        else if (part.type === 'tool_result') {
          const text = resultText(part.content);
          pushBlock(blocks, 'tool_output', text, { timestamp, callId: str(part.tool_use_id), isError: part.is_error === true ? true : undefined });
        }
      }
      finished = false;
    } else if (m.role === 'assistant') {
      finished = false;
      for (const part of content) {
        if (!isObject(part)) continue;
        if (part.type === 'text') assistantBlocks(blocks, str(part.text) ?? '', timestamp);
        else if (part.type === 'thinking' || part.type === 'reasoning') pushBlock(blocks, 'thinking', str(part.thinking) ?? str(part.text), { timestamp });
        else if (part.type === 'tool_use') {
          const name = str(part.name) ?? '';
          const input = isObject(part.input) ? part.input : {};
          const answerKey = ANSWER_TOOLS[name];
          if (answerKey) {
            pushBlock(blocks, 'assistant', str(input[answerKey]), { timestamp });
            if (name === 'attempt_completion') finished = true;
          } else pushBlock(blocks, 'tool_call', prettyArgs(part.input) || '{}', { timestamp, label: name, callId: str(part.id) });
        }
      }
      if (content.some((p) => isObject(p) && p.type === 'text' && /<attempt_completion>/.test(str(p.text) ?? ''))) finished = true;
    }
  }
  setFinished(finished);
}

type IndexItem = { task?: string; cwd?: string; ts?: string };

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

/** The extension's task list, when it has one (titles and working directories live there). */
function readIndex(storage: string): Map<string, IndexItem> {
  const out = new Map<string, IndexItem>();
  for (const file of [join(storage, 'state', 'taskHistory.json'), join(storage, 'tasks', '_index.json')]) {
    let raw: unknown;
    try {
      raw = readJson(file);
    } catch {
      continue;
    }
    const items = Array.isArray(raw) ? raw : isObject(raw) && Array.isArray(raw.tasks) ? raw.tasks : [];
    for (const it of items) {
      if (!isObject(it) || typeof it.id !== 'string') continue;
      out.set(it.id, { task: str(it.task), cwd: str(it.cwdOnTaskInitialization) ?? str(it.workspace), ts: toIso(it.ts) });
    }
  }
  return out;
}

/** The working directory Cline reports to the model in its environment details. */
function cwdFromEnvironment(messages: unknown[]): string | undefined {
  for (const m of messages) {
    if (!isObject(m) || m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const p of m.content) {
      const text = isObject(p) ? str(p.text) : undefined;
      const found = text && /# Current (?:Working|Workspace) Directory \(([^)\n]+)\)/.exec(text);
      if (found) return found[1]!.trim();
    }
  }
  return undefined;
}

/** First and last times the panel showed. */
function uiTimes(dir: string): { first?: string; last?: string } {
  try {
    const ui = readJson(join(dir, 'ui_messages.json'));
    if (!Array.isArray(ui) || ui.length === 0) return {};
    return { first: toIso(isObject(ui[0]) ? ui[0].ts : undefined), last: toIso(isObject(ui.at(-1)) ? ui.at(-1).ts : undefined) };
  } catch {
    return {};
  }
}

/** `storages`: normalised paths (as `join` leaves them): the paths below them are named by childPath. */
export type TaskStore = { name: string; label: string; storages: (env: NodeJS.ProcessEnv) => string[] };

function loadTask(store: TaskStore, dir: string, index?: IndexItem): Transcript {
  const messages = readJson(join(dir, 'api_conversation_history.json'));
  if (!Array.isArray(messages)) throw new Error(`not a ${store.label} task`);
  const { blocks, open } = taskBlocks(messages, join(dir, 'api_conversation_history.json'));
  const times = uiTimes(dir);
  let own: Rec = {};
  try {
    const item = readJson(join(dir, 'history_item.json')); // Roo 3.49+
    if (isObject(item)) own = item;
  } catch {
    // older versions keep the item only in the index
  }
  const id = dir.split(/[\\/]/).at(-1)!;
  return {
    id,
    cwd: index?.cwd ?? str(own.workspace) ?? cwdFromEnvironment(messages),
    title: titleFrom(index?.task ?? str(own.task) ?? blocks.find((b) => b.kind === 'user')?.text),
    startedAt: times.first ?? index?.ts,
    updatedAt: times.last ?? toIso(statOrUndefined(join(dir, 'api_conversation_history.json'))?.mtimeMs),
    blocks,
    lastTurnOpen: open,
  };
}

async function* discover(store: TaskStore, opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const say = opts.warn ?? warn;
  const unreadable = new UnreadableFiles();
  for (const storage of store.storages(opts.env)) {
    const tasks = childPath(storage, 'tasks');
    const entries = readDirQuiet(tasks, `${store.label} tasks`, say);
    if (entries.length === 0) continue;
    let index: Map<string, IndexItem> | undefined;
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const dir = childPath(tasks, e.name);
      const file = childPath(dir, 'api_conversation_history.json');
      const st = statOrUndefined(file);
      if (!st) continue;
      try {
        const compute = (): TranscriptSummary | undefined => {
          index ??= readIndex(storage);
          const s = loadTask(store, dir, index.get(e.name));
          if (!s.blocks.some((b) => b.kind === 'user')) return undefined;
          return { provider: store.name, id: s.id, location: file, cwd: s.cwd, cwds: s.cwd ? [s.cwd] : [], title: s.title, startedAt: s.startedAt, updatedAt: s.updatedAt ?? new Date(st.mtimeMs).toISOString() };
        };
        const summary = opts.memo ? opts.memo.summary(file, st.mtimeMs, st.size, compute) : compute();
        if (summary) yield summary;
      } catch (error) {
        // a file being rewritten right now parses again on the next run
        if (!(error instanceof SyntaxError)) unreadable.add(file, error);
      }
    }
  }
  unreadable.report(`${store.label} tasks`, say);
}

export function taskProvider(store: TaskStore): Provider {
  return {
    name: store.name,
    discover: (opts) => discover(store, opts),
    // A session's location is its api_conversation_history.json: the file that changes.
    load: async (summary) => {
      const dir = dirname(summary.location);
      return loadTask(store, dir, readIndex(join(dir, '..', '..')).get(summary.id));
    },
    // For people (doctor, "nothing found" notes): the first storage and how many others were looked at.
    dataLocation: (env) => {
      const all = store.storages(env);
      return all.length > 1 ? `${join(all[0]!, 'tasks')} and ${all.length - 1} other editor storages` : join(all[0]!, 'tasks');
    },
    // Several storages, so no single folder to watch: each storage, its task list and its index.
    watchedPaths: (env) => store.storages(env).flatMap((s) => [s, join(s, 'tasks'), join(s, 'state', 'taskHistory.json')]),
  };
}
