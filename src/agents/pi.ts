// Pi coding agent sessions (docs/formats.md): `<agentDir>/sessions/--<cwd>--/<ts>_<id>.jsonl`,
// an append-only tree. The conversation is the path from the last entry back to the root;
// entries of abandoned branches sit mid-file and are never shown. v1 files have no ids: linear.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { warn } from '../errors.js';
import { firstRecord, headRecords, newJsonlStats, readJsonlNumbered, tailRecords } from '../session/jsonl.js';
import {
  expandHome, homeOf, imagePlaceholder, isObject, labelToolOutputs, prettyArgs, pushBlock,
  readDirQuiet, reportSkipped, statOrUndefined, str, summariesInFolders, titleFrom, toIso, UnreadableFiles,
  joinContent,
} from './common.js';
import type { Transcript, Block, DiscoverOptions, Provider, TranscriptSummary, TokenUsage, ToolTruncation, TurnEnd } from './types.js';
import { tokenUsage } from './usage.js';

type Rec = Record<string, unknown>;

const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 64 * 1024;

export function piAgentDir(env: NodeJS.ProcessEnv): string {
  return env.PI_CODING_AGENT_DIR ? expandHome(env.PI_CODING_AGENT_DIR, env) : join(homeOf(env), '.pi', 'agent');
}

function contentText(content: unknown): string {
  return joinContent(content, (item) => {
    if (!isObject(item)) return undefined;
    if (item.type === 'text' && typeof item.text === 'string') return item.text;
    return item.type === 'image' ? imagePlaceholder(str(item.mimeType), item.data) : undefined;
  });
}

/** `/skill:name args` arrives as `<skill name="…">…</skill>` before the user's text. */
function userText(content: unknown): string {
  return contentText(content).replace(/<skill name="([^"]*)"[^>]*>[\s\S]*?<\/skill>\s*/g, (_m, name: string) => `[skill: ${name}]\n`);
}

/**
 * How Pi cut a tool output: the bash tool keeps the last lines and writes the whole output to a
 * temp file, recording `details.truncation` (totalLines/outputLines, totalBytes/outputBytes) and
 * `details.fullOutputPath`; a user's `!cmd` (bashExecution) records `truncated` and `fullOutputPath`.
 */
function truncationOf(holder: Rec | undefined): ToolTruncation | undefined {
  if (!holder) return undefined;
  const t = isObject(holder.truncation) ? holder.truncation : undefined;
  const path = str(holder.fullOutputPath);
  if (!path && t?.truncated !== true) return undefined;
  const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const out: ToolTruncation = {};
  if (path) out.fullOutputPath = path;
  if (t) {
    const totalLines = num(t.totalLines), shownLines = num(t.outputLines), totalBytes = num(t.totalBytes), shownBytes = num(t.outputBytes);
    if (totalLines !== undefined) out.totalLines = totalLines;
    if (shownLines !== undefined) out.shownLines = shownLines;
    if (totalBytes !== undefined) out.totalBytes = totalBytes;
    if (shownBytes !== undefined) out.shownBytes = shownBytes;
  }
  return out;
}

/** Blocks of one message entry; `finished` tells whether an assistant message ends its turn. */
function messageBlocks(message: Rec, timestamp: string | undefined): { blocks: Block[]; role: string; stop?: string } {
  const blocks: Block[] = [];
  const role = str(message.role) ?? '';
  switch (role) {
    case 'user':
      pushBlock(blocks, 'user', userText(message.content), { timestamp });
      break;
    case 'assistant':
      if (Array.isArray(message.content)) {
        for (const item of message.content) {
          if (!isObject(item)) continue;
          if (item.type === 'text') pushBlock(blocks, 'assistant', str(item.text), { timestamp });
          else if (item.type === 'thinking' && item.redacted !== true) pushBlock(blocks, 'thinking', str(item.thinking), { timestamp });
          else if (item.type === 'toolCall') pushBlock(blocks, 'tool_call', prettyArgs(item.arguments) || '{}', { timestamp, label: str(item.name), callId: str(item.id) });
        }
      } else pushBlock(blocks, 'assistant', str(message.content), { timestamp });
      break;
    case 'toolResult':
      pushBlock(blocks, 'tool_output', contentText(message.content), {
        timestamp,
        callId: str(message.toolCallId),
        label: str(message.toolName),
        isError: message.isError === true ? true : undefined,
        truncated: truncationOf(isObject(message.details) ? message.details : undefined),
      });
      break;
    case 'bashExecution': {
      // The user's own `!cmd`: a tool call and its output, not a turn start.
      pushBlock(blocks, 'tool_call', str(message.command), { timestamp, label: 'bash' });
      const exit = typeof message.exitCode === 'number' ? message.exitCode : undefined;
      const cut = message.truncated === true ? (truncationOf(message) ?? {}) : undefined;
      pushBlock(blocks, 'tool_output', str(message.output), { timestamp, label: 'bash', exitCode: exit, isError: (exit !== undefined && exit !== 0) || message.cancelled === true ? true : undefined, truncated: cut });
      break;
    }
    default:
      break; // custom / hookMessage (extension messages), developer, system
  }
  return { blocks, role, stop: str(message.stopReason) };
}

type Entry = { id?: string; parent?: string | null; seq: number; blocks: Block[]; role?: string; stop?: string; end?: TurnEnd };

/** Pi's usage keeps fresh input, output and cache reads and writes apart already. */
function piUsage(u: unknown): TokenUsage | undefined {
  if (!isObject(u)) return undefined;
  return tokenUsage({ input: u.input, output: u.output, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite });
}

/** Pi's `stopReason` on an assistant message: toolUse continues the turn, the others end it. */
function piEnd(message: Rec): Omit<TurnEnd, 'raw'> | undefined {
  const stop = str(message.stopReason);
  const at = toIso(message.timestamp);
  if (stop === 'stop' || stop === 'length') return { state: 'completed', evidence: `stopReason: ${stop}`, at };
  if (stop === 'aborted') return { state: 'aborted', evidence: 'stopReason: aborted', at };
  if (stop === 'error') return { state: 'error', evidence: `stopReason: error${str(message.errorMessage) ? ` (${titleFrom(str(message.errorMessage), 120)})` : ''}`, at };
  return undefined;
}

/** A failed bash call's result says the code it exited with after a blank line; success records none. */
const BASH_EXIT = /(?:^|\n\n)Command exited with code (-?\d+)(?![\s\S]*\n\nCommand exited with code)/;

export async function parsePiFile(path: string, warnFn: (m: string) => void = warn): Promise<Transcript> {
  const stats = newJsonlStats();
  let header: Rec | undefined;
  const entries: Entry[] = [];
  const byId = new Map<string, Entry>();
  let name: string | undefined;
  let updatedAt: string | undefined;
  let seq = 0;
  let linear = true;
  for await (const { value, line } of readJsonlNumbered(path, stats)) {
    if (!isObject(value)) continue;
    if (value.type === 'session' && header === undefined) {
      header = value;
      continue;
    }
    const ts = str(value.timestamp);
    if (value.type === 'session_info') {
      const n = str(value.name)?.trim();
      name = n ? n : undefined; // an empty name clears the title
    }
    const entry: Entry = { seq: seq++, blocks: [] };
    if (typeof value.id === 'string') {
      entry.id = value.id;
      entry.parent = typeof value.parentId === 'string' ? value.parentId : null;
      linear = false;
      byId.set(value.id, entry);
    }
    if (value.type === 'compaction') pushBlock(entry.blocks, 'compaction', str(value.summary), { timestamp: ts });
    else if (value.type === 'message' && isObject(value.message)) {
      const parsed = messageBlocks(value.message, ts ?? toIso(value.message.timestamp));
      entry.blocks = parsed.blocks;
      entry.role = parsed.role;
      entry.stop = parsed.stop;
      if (parsed.role === 'assistant') {
        const first = entry.blocks[0];
        const usage = piUsage(value.message.usage);
        if (first && usage) first.usage = usage;
        const end = piEnd(value.message);
        if (end) entry.end = { ...end, raw: { file: path, lines: [line] } };
      }
      if (parsed.role === 'toolResult' && parsed.blocks[0]?.label === 'bash' && parsed.blocks[0].isError) {
        const code = BASH_EXIT.exec(parsed.blocks[0].text);
        if (code) parsed.blocks[0].exitCode = Number(code[1]);
      }
      if (ts && (parsed.role === 'user' || parsed.role === 'assistant')) updatedAt = ts;
    }
    const raw = { file: path, lines: [line] };
    for (const b of entry.blocks) b.raw = raw;
    entries.push(entry);
  }
  reportSkipped(path, stats, warnFn);

  const path_ = linear ? entries : activePath(entries, byId);
  const blocks: Block[] = [];
  let lastMessage: Entry | undefined;
  for (const e of path_) {
    blocks.push(...e.blocks);
    if (e.end && blocks.length > 0) blocks.at(-1)!.ended = e.end;
    if (e.role) lastMessage = e;
  }
  labelToolOutputs(blocks);
  // Finished when the last message is an assistant reply that stopped on its own.
  const finished = lastMessage?.role === 'assistant' && (lastMessage.stop === undefined || ['stop', 'length', 'error', 'aborted'].includes(lastMessage.stop));
  const id = str(header?.id) ?? idFromName(path);
  return {
    id,
    cwd: str(header?.cwd),
    title: name ?? titleFrom(blocks.find((b) => b.kind === 'user')?.text),
    startedAt: toIso(header?.timestamp),
    updatedAt: updatedAt ?? toIso(header?.timestamp),
    blocks,
    lastTurnOpen: lastMessage !== undefined && !finished,
  };
}

/** Root→leaf entries of the branch that ends at the file's last entry. */
function activePath(entries: Entry[], byId: Map<string, Entry>): Entry[] {
  const leaf = [...entries].reverse().find((e) => e.id !== undefined);
  if (!leaf) return entries;
  const path: Entry[] = [];
  const seen = new Set<string>();
  let node: Entry | undefined = leaf;
  while (node && node.id !== undefined && !seen.has(node.id)) {
    seen.add(node.id);
    path.push(node);
    if (!node.parent) break;
    node = byId.get(node.parent);
  }
  return path.reverse();
}

function idFromName(path: string): string {
  const stem = basename(path).replace(/\.jsonl$/, '');
  const us = stem.indexOf('_');
  return us === -1 ? stem : stem.slice(us + 1);
}

function summarize(path: string, size: number, mtimeMs: number): TranscriptSummary | undefined {
  const head = headRecords(path, HEAD_BYTES, size);
  const header = head[0];
  if (!isObject(header) || header.type !== 'session' || typeof header.id !== 'string') return undefined;
  let firstPrompt: string | undefined;
  for (const r of head) {
    if (isObject(r) && r.type === 'message' && isObject(r.message) && r.message.role === 'user') {
      firstPrompt = userText(r.message.content);
      break;
    }
  }
  let name: string | undefined;
  let updatedAt: string | undefined;
  for (const r of size > HEAD_BYTES ? tailRecords(path, size, TAIL_BYTES) : head) {
    if (!isObject(r)) continue;
    if (r.type === 'session_info') name = str(r.name)?.trim() || undefined;
    if (r.type === 'message' && isObject(r.message) && (r.message.role === 'user' || r.message.role === 'assistant')) updatedAt = str(r.timestamp) ?? updatedAt;
  }
  const cwd = str(header.cwd);
  return {
    provider: 'pi',
    id: header.id,
    location: path,
    cwd,
    cwds: cwd ? [cwd] : [],
    title: name ?? titleFrom(firstPrompt),
    startedAt: toIso(header.timestamp),
    updatedAt: toIso(updatedAt) ?? new Date(mtimeMs).toISOString(),
  };
}

/**
 * Where pi writes sessions when told to: PI_CODING_AGENT_SESSION_DIR, else `sessionDir` in
 * `<agent dir>/settings.json`. Such a directory holds the session files directly, with no
 * per-cwd folders (pi's SessionManager puts them there as they are).
 */
export function piSessionDirOverride(env: NodeJS.ProcessEnv): string | undefined {
  if (env.PI_CODING_AGENT_SESSION_DIR) return expandHome(env.PI_CODING_AGENT_SESSION_DIR, env);
  const file = join(piAgentDir(env), 'settings.json');
  // Most homes have none: asked first, a missing file costs no exception and its stack.
  if (!existsSync(file)) return undefined;
  try {
    const settings = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    const dir = isObject(settings) ? str(settings.sessionDir)?.trim() : undefined;
    return dir ? expandHome(dir, env) : undefined;
  } catch {
    return undefined; // no settings, or not JSON: pi then uses its default too
  }
}

/** Session files lying directly in `dir` (an overridden session directory). */
function* summariesIn(dir: string, opts: DiscoverOptions, skip: Set<string>): Generator<TranscriptSummary> {
  const unreadable = new UnreadableFiles();
  const say = opts.warn ?? warn;
  for (const file of readDirQuiet(dir, 'Pi sessions', say)) {
    if (!file.isFile() || !file.name.endsWith('.jsonl')) continue;
    const path = join(dir, file.name);
    const st = statOrUndefined(path);
    if (!st || skip.has(path)) continue;
    try {
      const compute = (): TranscriptSummary | undefined => summarize(path, st.size, st.mtimeMs);
      const summary = opts.memo ? opts.memo.summary(path, st.mtimeMs, st.size, compute) : compute();
      if (summary) yield summary;
    } catch (error) {
      unreadable.add(path, error);
    }
  }
  unreadable.report('Pi sessions', say);
}

function* discover(opts: DiscoverOptions): Generator<TranscriptSummary> {
  // Sessions written before an override was set stay in the default tree: both are read.
  const seen = new Set<string>();
  for (const s of summariesInFolders(join(piAgentDir(opts.env), 'sessions'), 'Pi sessions', (name) => name.endsWith('.jsonl'), summarize, opts, opts.warn ?? warn)) {
    seen.add(s.location);
    yield s;
  }
  const custom = piSessionDirOverride(opts.env);
  if (custom) yield* summariesIn(custom, opts, seen);
}

export const pi: Provider = {
  name: 'pi',
  discover,
  dataLocation: (env) => piSessionDirOverride(env) ?? join(piAgentDir(env), 'sessions'),
  listingInputs(env) {
    const custom = piSessionDirOverride(env);
    const trees = [join(piAgentDir(env), 'sessions')];
    if (custom) trees.push(custom);
    return { trees, paths: [join(piAgentDir(env), 'settings.json')] };
  },
  load: (summary, opts) => parsePiFile(summary.location, opts.warn),
  detect(head) {
    const r = firstRecord(head);
    return isObject(r) && r.type === 'session' && typeof r.id === 'string';
  },
  loadFile: (path, opts) => parsePiFile(path, opts.warn),
};
