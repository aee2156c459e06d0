// GitHub Copilot CLI sessions: `<copilot>/session-state/<sessionId>/events.jsonl` (from 0.0.378;
// 0.0.342–0.0.377 wrote `session-state/<sessionId>.jsonl` with the same events), where
// `<copilot>` is $COPILOT_HOME, else ~/.copilot (docs/formats.md). One event per line,
// `{type, data, id, timestamp, parentId}`, across resumes of the same file: `user.message`,
// `assistant.message` (text plus `toolRequests`), `tool.execution_start|complete` (the result,
// with the shell's exit code), `session.compaction_complete` (the summary). Events marked
// ephemeral only reach stdout; `model.*` events repeat what the others say.
import { basename, dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { warn } from '../errors.js';
import { firstRecord, headRecords, newJsonlStats, readJsonlNumbered, tailRecords } from '../session/jsonl.js';
import {
  expandHome, homeOf, isInjectedText, isObject, labelToolOutputs, prettyArgs, pushBlock, readDirQuiet, reportSkipped, str, titleFrom, toIso, summariesOfFiles,
} from './common.js';
import type { Transcript, Block, DiscoverOptions, Provider, RecordedChange, TranscriptSummary, TokenUsage, TurnEnd } from './types.js';
import { tokenUsage } from './usage.js';

type Rec = Record<string, unknown>;

const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 64 * 1024;

export function copilotHome(env: NodeJS.ProcessEnv): string {
  return env.COPILOT_HOME ? expandHome(env.COPILOT_HOME, env) : join(homeOf(env), '.copilot');
}

/** The shell tool appends `<shellId: N completed with exit code C>`; the output is what precedes it. */
const SHELL_NOTE = /\s*<shellId: [^>]*?exit code (-?\d+)>\s*$/;

const dataOf = (r: Rec): Rec => (isObject(r.data) ? r.data : {});

/** The user's own words: Copilot stores `content` as typed and `transformedContent` with its additions. */
function userText(data: Rec): string {
  return str(data.content) ?? '';
}

type Parsed = { blocks: Block[]; lastTurnOpen: boolean; cwd?: string; id?: string; startedAt?: string; updatedAt?: string };

/** `session.usage_record`: one per model call, written just before the message it produced. */
function copilotUsage(data: Rec): TokenUsage | undefined {
  const u = isObject(data.usage) ? data.usage : undefined;
  if (!u) return undefined;
  return tokenUsage({ input: u.inputTokens, output: u.outputTokens, cacheRead: u.cacheReadTokens, cacheWrite: u.cacheWriteTokens });
}

const stringsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : []);

/** `tool.execution_complete.fileEdits`: `[{path, kind: create|edit}]`, the files this call changed. */
const callEdits = (data: Rec): string[] => (Array.isArray(data.fileEdits) ? data.fileEdits.filter(isObject).map((f) => str(f.path)).filter((p): p is string => p !== undefined && p !== '') : []);

/** `session.shutdown.codeChanges.filesModified`: every file changed in the session so far (it is cumulative). */
const shutdownFiles = (data: Rec): string[] => stringsOf(isObject(data.codeChanges) ? data.codeChanges.filesModified : undefined);

/** Blocks of a whole events file; `events` in file order, with their line numbers in `file`. */
function eventBlocks(events: Iterable<{ e: Rec; line: number }>, file: string): Parsed {
  const blocks: Block[] = [];
  const calls = new Map<string, Block>();
  let cwd: string | undefined;
  let id: string | undefined;
  let startedAt: string | undefined;
  let updatedAt: string | undefined;
  let open = false;
  let usage: TokenUsage | undefined;
  /** The last model message asked for no tools: the next turn_end closes the user's turn. */
  let answered = false;
  /** Files an earlier shutdown already listed: its list is the session's so far, not the process's. */
  const listed = new Set<string>();
  const end = (state: TurnEnd['state'], evidence: string, line: number, at: string | undefined): void => {
    const last = blocks.at(-1);
    if (last) last.ended = { state, evidence, raw: { file, lines: [line] }, at };
  };
  for (const { e, line } of events) {
    if (e.ephemeral === true) continue;
    const data = dataOf(e);
    const timestamp = toIso(e.timestamp);
    const from = blocks.length;
    switch (e.type) {
      case 'session.start':
        id ??= str(data.sessionId);
        cwd ??= isObject(data.context) ? str(data.context.cwd) : undefined;
        startedAt ??= toIso(data.startTime) ?? timestamp;
        break;
      case 'session.resume':
        cwd ??= isObject(data.context) ? str(data.context.cwd) : undefined;
        break;
      case 'user.message': {
        const text = userText(data);
        if (isInjectedText(text)) break;
        pushBlock(blocks, 'user', text, { timestamp });
        open = true;
        updatedAt = timestamp ?? updatedAt;
        break;
      }
      case 'assistant.message': {
        if (typeof data.reasoningText === 'string') pushBlock(blocks, 'thinking', data.reasoningText, { timestamp });
        pushBlock(blocks, 'assistant', str(data.content), { timestamp });
        const requests = Array.isArray(data.toolRequests) ? data.toolRequests.filter(isObject) : [];
        for (const req of requests) {
          const callId = str(req.toolCallId);
          const before = blocks.length;
          pushBlock(blocks, 'tool_call', prettyArgs(req.arguments) || '{}', { timestamp, label: str(req.name), callId });
          if (callId && blocks.length > before) calls.set(callId, blocks.at(-1)!);
        }
        open = requests.length > 0;
        answered = requests.length === 0;
        updatedAt = timestamp ?? updatedAt;
        if (usage && blocks.length > from) {
          blocks[from]!.usage = usage;
          usage = undefined;
        }
        break;
      }
      case 'session.usage_record':
        usage = copilotUsage(data) ?? usage;
        break;
      case 'assistant.turn_end':
        if (answered) end('completed', 'assistant.turn_end', line, timestamp);
        answered = false;
        break;
      case 'tool.execution_start': {
        // A call the model did not announce in toolRequests (older versions) still shows.
        const callId = str(data.toolCallId);
        if (callId && !calls.has(callId)) {
          pushBlock(blocks, 'tool_call', prettyArgs(data.arguments) || '{}', { timestamp, label: str(data.toolName), callId });
          calls.set(callId, blocks.at(-1)!);
        }
        break;
      }
      case 'tool.execution_complete': {
        const result = isObject(data.result) ? data.result : {};
        let text = str(result.content) ?? str(result.detailedContent) ?? (isObject(data.error) ? str(data.error.message) : str(data.error)) ?? '';
        const note = SHELL_NOTE.exec(text);
        if (note) text = text.slice(0, note.index);
        const exit = isObject(data.shellExecution) && typeof data.shellExecution.exitCode === 'number' ? data.shellExecution.exitCode : note ? Number(note[1]) : undefined;
        const failed = data.success === false || (exit !== undefined && exit !== 0);
        const callId = str(data.toolCallId);
        pushBlock(blocks, 'tool_output', text || (note ? '(no output)' : ''), { timestamp, callId, label: callId ? calls.get(callId)?.label : undefined, isError: failed ? true : undefined, exitCode: exit });
        const edits = data.success === false ? [] : callEdits(data);
        if (edits.length > 0 && callId && blocks.length > from) blocks.at(-1)!.changes = [{ record: 'fileEdits', files: edits, scope: 'call' }];
        break;
      }
      case 'session.shutdown': {
        // the shutdown has no block of its own: its news (files no earlier shutdown listed) goes on the last one
        const files = shutdownFiles(data).filter((f) => !listed.has(f));
        for (const f of files) listed.add(f);
        const last = blocks.at(-1);
        if (files.length > 0 && last) {
          const change: RecordedChange = { record: 'codeChanges.filesModified', files, scope: 'turn', raw: { file, lines: [line] } };
          (last.changes ??= []).push(change);
        }
        break;
      }
      case 'session.compaction_complete':
        if (data.success !== false) pushBlock(blocks, 'compaction', str(data.summaryContent) || 'history compacted', { timestamp });
        break;
      case 'abort':
      case 'session.error':
        open = false; // the turn ended, without a reply
        answered = false;
        if (e.type === 'abort') end('aborted', `abort${str(data.reason) ? `: ${str(data.reason)}` : ''}`, line, timestamp);
        else end('error', `session.error${str(data.message) ? `: ${titleFrom(str(data.message), 120)}` : ''}`, line, timestamp);
        break;
      default:
        break; // system.message, model.* (the summary call's own bookkeeping), unknown kinds
    }
    for (let i = from; i < blocks.length; i++) blocks[i]!.raw = { file, lines: [line] };
  }
  labelToolOutputs(blocks);
  return { blocks, lastTurnOpen: open && blocks.at(-1)?.kind !== 'assistant', cwd, id, startedAt, updatedAt };
}

/** `name:` of workspace.yaml when the user named the session (else it only repeats the first prompt). */
function userGivenName(dir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, 'workspace.yaml'), 'utf8');
  } catch {
    return undefined;
  }
  if (!/^user_named:\s*true\s*$/m.test(text)) return undefined;
  const m = /^name:\s*(.+)$/m.exec(text);
  return m ? m[1]!.trim().replace(/^(['"])(.*)\1$/, '$2') : undefined;
}

const sessionDirOf = (path: string): string | undefined => (basename(path) === 'events.jsonl' ? dirname(path) : undefined);

export async function parseCopilotFile(path: string, warnFn: (m: string) => void = warn): Promise<Transcript> {
  const stats = newJsonlStats();
  const events: { e: Rec; line: number }[] = [];
  for await (const { value, line } of readJsonlNumbered(path, stats)) if (isObject(value)) events.push({ e: value, line });
  reportSkipped(path, stats, warnFn);
  const parsed = eventBlocks(events, path);
  const dir = sessionDirOf(path);
  return {
    id: parsed.id ?? (dir ? basename(dir) : basename(path).replace(/\.jsonl$/, '')),
    cwd: parsed.cwd,
    title: (dir && userGivenName(dir)) || titleFrom(parsed.blocks.find((b) => b.kind === 'user')?.text),
    startedAt: parsed.startedAt,
    updatedAt: parsed.updatedAt,
    blocks: parsed.blocks,
    lastTurnOpen: parsed.lastTurnOpen,
  };
}

function summarize(path: string, size: number, mtimeMs: number): TranscriptSummary | undefined {
  const head = headRecords(path, HEAD_BYTES, size).filter(isObject);
  const start = head.find((r) => r.type === 'session.start');
  if (!start) return undefined;
  const data = dataOf(start);
  const firstUser = head.find((r) => r.type === 'user.message' && !isInjectedText(userText(dataOf(r))));
  const tail = size > HEAD_BYTES ? tailRecords(path, size, TAIL_BYTES).filter(isObject) : head;
  let updatedAt: string | undefined;
  for (const r of tail) if (r.type === 'user.message' || r.type === 'assistant.message') updatedAt = toIso(r.timestamp) ?? updatedAt;
  const cwd = isObject(data.context) ? str(data.context.cwd) : undefined;
  const dir = sessionDirOf(path);
  return {
    provider: 'copilot',
    id: str(data.sessionId) ?? (dir ? basename(dir) : basename(path).replace(/\.jsonl$/, '')),
    location: path,
    cwd,
    cwds: cwd ? [cwd] : [],
    title: (dir && userGivenName(dir)) || titleFrom(firstUser ? userText(dataOf(firstUser)) : undefined),
    startedAt: toIso(data.startTime) ?? toIso(start.timestamp),
    updatedAt: updatedAt ?? new Date(mtimeMs).toISOString(),
  };
}

/** `<root>/<id>/events.jsonl`; a flat `<root>/<id>.jsonl` is the older layout. */
function* eventFiles(root: string, say: (m: string) => void): Generator<string> {
  for (const entry of readDirQuiet(root, 'Copilot CLI sessions', say)) {
    // a session folder can outlive its events.jsonl: the stat in summariesOfFiles skips it
    if (entry.isDirectory()) yield join(root, entry.name, 'events.jsonl');
    else if (entry.name.endsWith('.jsonl')) yield join(root, entry.name);
  }
}

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const say = opts.warn ?? warn;
  yield* summariesOfFiles(eventFiles(join(copilotHome(opts.env), 'session-state'), say), 'Copilot CLI sessions', summarize, opts, say);
}

export const copilot: Provider = {
  name: 'copilot',
  discover,
  dataLocation: (env) => join(copilotHome(env), 'session-state'),
  load: (summary, opts) => parseCopilotFile(summary.location, opts.warn),
  detect(head) {
    const r = firstRecord(head);
    return isObject(r) && r.type === 'session.start' && isObject(r.data) && 'sessionId' in r.data;
  },
  loadFile: (path, opts) => parseCopilotFile(path, opts.warn),
};
