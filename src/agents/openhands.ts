// OpenHands CLI conversations (the software-agent-sdk event log). Built from the SDK's and the
// CLI's sources, not from a genuine conversation (OpenHands is a Python program we cannot run
// here): fixture-only. Layout: `$OPENHANDS_CONVERSATIONS_DIR`, else
// `${OPENHANDS_PERSISTENCE_DIR:-~/.openhands}/conversations`, one folder per conversation (a hex
// id) holding `base_state.json` and `events/event-<NNNNN>-<uuid>.json`, one JSON object per
// event, discriminated by `kind`:
// - MessageEvent {source user|agent, llm_message {role, content [{type:text,text}], reasoning_content}}
// - ActionEvent {thought [{text}], reasoning_content, tool_name, tool_call_id, tool_call {name, arguments}, action}
//   (`finish` carries the final reply in action.message, `think` a thought in action.thought)
// - ObservationEvent {tool_call_id, observation {content [{text}], is_error, exit_code}},
//   UserRejectObservation {rejection_reason}, AgentErrorEvent {error}: tool outputs
// - Condensation / CondensationSummaryEvent {summary}: compactions
// System prompts, state updates and kinds not listed are skipped. The workspace folder is read
// from base_state.json's `workspace.working_dir` (assumed: the field name comes from a peer
// reader, not from the SDK). A conversation has no stored title: its first prompt is used.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { warn } from '../errors.js';
import { expandHome, homeOf, isObject, joinContent, labelToolOutputs, prettyArgs, pushBlock, readDirQuiet, reportSkipped, str, titleFrom, toIso, UnreadableFiles } from './common.js';
import type { Transcript, Block, DiscoverOptions, Provider, TranscriptSummary } from './types.js';

type Rec = Record<string, unknown>;

export function openhandsConversationsDir(env: NodeJS.ProcessEnv): string {
  const direct = env.OPENHANDS_CONVERSATIONS_DIR?.trim();
  if (direct) return expandHome(direct, env);
  const persistence = env.OPENHANDS_PERSISTENCE_DIR?.trim();
  return join(persistence ? expandHome(persistence, env) : join(homeOf(env), '.openhands'), 'conversations');
}

const EVENT_FILE = /^event-\d+.*\.json$/;

/** Event files in write order: the zero-padded index in the name orders them. */
function eventFiles(conversation: string): string[] {
  return readDirQuiet(join(conversation, 'events'), 'OpenHands events', () => undefined)
    .filter((e) => e.isFile() && EVENT_FILE.test(e.name))
    .map((e) => e.name)
    .sort((a, b) => eventIndex(a) - eventIndex(b) || a.localeCompare(b));
}

const eventIndex = (name: string): number => Number(/^event-(\d+)/.exec(name)?.[1] ?? 0);

/** One event file; a half-written or padded one counts as unreadable instead of failing the read. */
function readEvent(path: string, stats: { malformed: number; nulPadded: number }): Rec | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    stats.malformed++;
    return undefined;
  }
  const trimmed = text.replaceAll('\0', '').trim();
  if (trimmed === '') {
    if (text.length > 0) stats.nulPadded++;
    return undefined;
  }
  try {
    const value: unknown = JSON.parse(trimmed);
    return isObject(value) ? value : undefined;
  } catch {
    stats.malformed++;
    return undefined;
  }
}

const textOf = (content: unknown): string => joinContent(content, (p) => (isObject(p) && p.type === 'text' ? str(p.text) ?? '' : typeof p === 'string' ? p : undefined));

function toolInput(e: Rec): unknown {
  const call = isObject(e.tool_call) ? e.tool_call : undefined;
  const args = call?.arguments;
  if (typeof args === 'string') {
    try {
      return JSON.parse(args);
    } catch {
      return args;
    }
  }
  if (args !== undefined) return args;
  if (isObject(e.action)) {
    const { kind: _kind, ...rest } = e.action;
    return rest;
  }
  return undefined;
}

export function eventBlocks(e: Rec): Block[] {
  const blocks: Block[] = [];
  const timestamp = toIso(e.timestamp);
  const callId = str(e.tool_call_id);
  switch (e.kind) {
    case 'MessageEvent': {
      const message = isObject(e.llm_message) ? e.llm_message : undefined;
      if (!message) break;
      // extended_content (skills, repository rules) is what the SDK appends for the model: never the user's words.
      if (e.source === 'user' && message.role === 'user') pushBlock(blocks, 'user', textOf(message.content), { timestamp });
      else if (e.source === 'agent' || message.role === 'assistant') {
        pushBlock(blocks, 'thinking', str(message.reasoning_content), { timestamp });
        pushBlock(blocks, 'assistant', textOf(message.content), { timestamp });
      }
      break;
    }
    case 'ActionEvent': {
      pushBlock(blocks, 'thinking', str(e.reasoning_content), { timestamp });
      const action = isObject(e.action) ? e.action : {};
      const tool = str(e.tool_name) ?? str(isObject(e.tool_call) ? e.tool_call.name : undefined);
      const thought = textOf(e.thought);
      if (tool === 'finish') {
        pushBlock(blocks, 'assistant', [thought, str(action.message) ?? ''].filter(Boolean).join('\n\n'), { timestamp });
        break;
      }
      if (tool === 'think') {
        pushBlock(blocks, 'thinking', [thought, str(action.thought) ?? ''].filter(Boolean).join('\n\n'), { timestamp });
        break;
      }
      pushBlock(blocks, 'assistant', thought, { timestamp });
      pushBlock(blocks, 'tool_call', prettyArgs(toolInput(e)) || '{}', { timestamp, label: tool, callId });
      break;
    }
    case 'ObservationEvent': {
      const obs = isObject(e.observation) ? e.observation : {};
      const exit = typeof obs.exit_code === 'number' ? obs.exit_code : isObject(obs.metadata) && typeof obs.metadata.exit_code === 'number' ? obs.metadata.exit_code : undefined;
      const failed = obs.is_error === true || (exit !== undefined && exit !== 0 && exit !== -1);
      // -1: the command had not exited when the observation was written (a timeout): no code
      pushBlock(blocks, 'tool_output', textOf(obs.content) || (exit !== undefined ? '(no output)' : ''), { timestamp, label: str(e.tool_name), callId, isError: failed ? true : undefined, exitCode: exit === -1 ? undefined : exit });
      break;
    }
    case 'UserRejectObservation':
      pushBlock(blocks, 'tool_output', str(e.rejection_reason) || 'rejected', { timestamp, label: str(e.tool_name), callId, isError: true });
      break;
    case 'AgentErrorEvent':
      pushBlock(blocks, 'tool_output', str(e.error) || 'error', { timestamp, label: str(e.tool_name), callId, isError: true });
      break;
    case 'Condensation':
    case 'CondensationSummaryEvent':
      pushBlock(blocks, 'compaction', str(e.summary) || 'history condensed', { timestamp });
      break;
  }
  return blocks;
}

function workingDir(conversation: string): string | undefined {
  try {
    const state: unknown = JSON.parse(readFileSync(join(conversation, 'base_state.json'), 'utf8'));
    const workspace = isObject(state) && isObject(state.workspace) ? state.workspace : undefined;
    return str(workspace?.working_dir);
  } catch {
    return undefined;
  }
}

export async function parseOpenhandsConversation(conversation: string, warnFn: (m: string) => void = warn): Promise<Transcript> {
  const stats = { malformed: 0, nulPadded: 0 };
  const blocks: Block[] = [];
  let lastUser = -1;
  let lastReply = -1;
  const files = eventFiles(conversation);
  files.forEach((name, i) => {
    const path = join(conversation, 'events', name);
    const e = readEvent(path, stats);
    if (!e) return;
    const got = eventBlocks(e);
    // one event per file: the whole document is the raw record
    for (const b of got) b.raw = { file: path, pointers: [''] };
    if (got.some((b) => b.kind === 'user')) lastUser = i;
    if (e.kind === 'MessageEvent' && e.source === 'agent') lastReply = i;
    if (e.kind === 'ActionEvent' && e.tool_name === 'finish') {
      lastReply = i;
      const last = got.at(-1) ?? blocks.at(-1);
      if (last) last.ended = { state: 'completed', evidence: 'finish', raw: { file: path, pointers: [''] }, at: toIso(e.timestamp) };
    }
    blocks.push(...got);
  });
  reportSkipped(join(conversation, 'events'), stats, warnFn);
  labelToolOutputs(blocks);
  const times = blocks.map((b) => b.timestamp).filter((t): t is string => t !== undefined);
  return {
    id: conversation.split(/[\\/]/).filter(Boolean).at(-1)!,
    cwd: workingDir(conversation),
    title: titleFrom(blocks.find((b) => b.kind === 'user')?.text),
    startedAt: times[0],
    updatedAt: times.at(-1),
    blocks,
    lastTurnOpen: lastUser >= 0 && lastReply < lastUser,
  };
}

/** Listing reads base_state.json, the events up to the first prompt, and the newest event. */
function summarize(conversation: string, id: string, files: string[], mtimeMs: number): TranscriptSummary | undefined {
  if (files.length === 0) return undefined;
  const stats = { malformed: 0, nulPadded: 0 };
  let firstPrompt: string | undefined;
  let startedAt: string | undefined;
  for (const name of files.slice(0, 8)) {
    const e = readEvent(join(conversation, 'events', name), stats);
    if (!e) continue;
    startedAt ??= toIso(e.timestamp);
    firstPrompt = eventBlocks(e).find((b) => b.kind === 'user')?.text;
    if (firstPrompt) break;
  }
  let updatedAt: string | undefined;
  for (const name of files.slice(-3).reverse()) {
    updatedAt = toIso(readEvent(join(conversation, 'events', name), stats)?.timestamp);
    if (updatedAt) break;
  }
  const cwd = workingDir(conversation);
  return {
    provider: 'openhands',
    id,
    location: conversation,
    cwd,
    cwds: cwd ? [cwd] : [],
    title: titleFrom(firstPrompt),
    startedAt,
    updatedAt: updatedAt ?? new Date(mtimeMs).toISOString(),
    // A folder of files, not one file: its newest event names the version.
    version: `${files.length}:${files.at(-1)}`,
  };
}

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const root = openhandsConversationsDir(opts.env);
  const warnFn = opts.warn ?? warn;
  const unreadable = new UnreadableFiles();
  for (const dir of readDirQuiet(root, 'OpenHands conversations', warnFn)) {
    if (!dir.isDirectory()) continue;
    const conversation = join(root, dir.name);
    try {
      const events = statSync(join(conversation, 'events'));
      const files = eventFiles(conversation);
      const compute = (): TranscriptSummary | undefined => summarize(conversation, dir.name, files, events.mtimeMs);
      const summary = opts.memo ? opts.memo.summary(conversation, events.mtimeMs, files.length, compute) : compute();
      if (summary) yield summary;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') unreadable.add(conversation, error);
    }
  }
  unreadable.report('OpenHands conversations', warnFn);
}

export const openhands: Provider = {
  name: 'openhands',
  discover,
  load: (summary, opts) => parseOpenhandsConversation(summary.location, opts.warn),
  dataLocation: openhandsConversationsDir,
  // Each conversation is a folder whose events/ gains a file per event.
  watchedPaths: (env) => {
    const root = openhandsConversationsDir(env);
    return [root, ...readDirQuiet(root, 'OpenHands conversations', () => undefined).filter((d) => d.isDirectory()).map((d) => join(root, d.name, 'events'))];
  },
};
