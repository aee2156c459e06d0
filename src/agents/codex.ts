// Codex CLI rollouts (docs/formats.md): `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl`.
// Three eras are read by the same loop: bare response items (≤ Sept 2025), `{timestamp, type,
// payload}` envelopes, and the 0.14x+ drift (paginated mode, `item_completed`, ordinals).
import { basename, join, normalize } from 'node:path';
import { warn } from '../errors.js';
import { childPath } from '../files.js';
import { firstLine, jsonlLinesSync, newJsonlStats, parseJsonlLine, readBytes, readJsonlSync, tailRecords, textLines, type JsonlStats } from '../session/jsonl.js';
import { withDecompressed, zstdHead } from './zstd.js';
import { columnsOf, openReadOnly } from './sqlite.js';
import {
  expandHome, homeOf, imagePlaceholder, isInjectedText, isObject, labelToolOutputs, prettyArgs,
  pushBlock, readDirQuiet, UnreadableFiles, reportSkipped, statOrUndefined, str, titleFrom, toIso,
  joinContent,
} from './common.js';
import type { Transcript, Block, DiscoverOptions, Provider, RawLocator, RecordedChange, TranscriptSummary, TokenUsage, TurnEnd } from './types.js';
import { sumUsage, tokenUsage } from './usage.js';

type Rec = Record<string, unknown>;

const HEAD_BYTES = 256 * 1024;
const TAIL_BYTES = 16 * 1024;
const ID_IN_NAME = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(?:\.zst)?$/i;

const CODEX_INJECTED = [
  '<user_instructions>',
  '<permissions instructions>',
  '<collaboration_mode>',
  '<multi_agent_mode>',
  '<apps_instructions>',
  '<user_shell_command>',
  '<INSTRUCTIONS>',
  'You are `/root`',
];

export function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME ? expandHome(env.CODEX_HOME, env) : join(homeOf(env), '.codex');
}

function rolloutRoots(env: NodeJS.ProcessEnv): string[] {
  const roots = [join(codexHome(env), 'sessions')];
  const extra = env.SIVTR_CODEX_SESSION_DIRS;
  // Normalised as `join` leaves its results: files below are named by childPath.
  if (extra) for (const d of extra.split(process.platform === 'win32' ? ';' : ':')) if (d) roots.push(normalize(expandHome(d, env)));
  return [...new Set(roots)];
}

/** The human's request inside a user message, or undefined for harness-injected context. */
function realUserText(text: string): string | undefined {
  const marker = text.indexOf('## My request for Codex:');
  if (marker !== -1) return text.slice(marker + '## My request for Codex:'.length);
  if (isInjectedText(text, CODEX_INJECTED)) return undefined;
  return text;
}

function contentText(content: unknown): string {
  return joinContent(content, (item) => {
    if (!isObject(item)) return undefined;
    if (typeof item.text === 'string') return item.text;
    if (item.type !== 'input_image' && item.type !== 'image') return undefined;
    const url = str(item.image_url) ?? '';
    const mime = /^data:([^;,]+)/.exec(url)?.[1];
    return imagePlaceholder(mime, url.includes(',') ? url.slice(url.indexOf(',') + 1) : undefined);
  });
}

const stripCitation = (text: string): string => text.replace(/<oai-mem-citation>[\s\S]*?<\/oai-mem-citation>\s*$/, '');

/** A tool output as the user wants it: legacy JSON `{output, metadata}` and exec framing removed. */
function toolOutput(output: unknown): { text: string; isError?: boolean; exitCode?: number } {
  if (Array.isArray(output)) return { text: contentText(output) };
  if (isObject(output)) return { text: str(output.content) ?? str(output.output) ?? JSON.stringify(output, null, 2) };
  let text = typeof output === 'string' ? output : '';
  let exit: number | undefined;
  const t = text.trimStart();
  if (t.startsWith('{')) {
    try {
      const parsed = JSON.parse(t) as unknown;
      if (isObject(parsed) && typeof parsed.output === 'string') {
        text = parsed.output;
        const meta = parsed.metadata;
        if (isObject(meta) && typeof meta.exit_code === 'number') exit = meta.exit_code;
      }
    } catch {
      // not JSON after all: keep the text
    }
  }
  // exec_command (0.17x) frames output: "Chunk ID: …\nWall time: …\nProcess exited with code N\nOutput:\n…"
  const framed = /^(?:(?:Chunk ID|Wall time|Process exited with code|Original token count|Process running with session ID)[^\n]*\n)+Output:\n?/.exec(text);
  if (framed) {
    const code = /Process exited with code (-?\d+)/.exec(framed[0]);
    if (code) exit = Number(code[1]);
    text = text.slice(framed[0].length);
  }
  return { text, isError: exit !== undefined && exit !== 0 ? true : undefined, exitCode: exit };
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * OpenAI usage: `input_tokens` includes the cached ones, so fresh input is the difference;
 * `output_tokens` includes reasoning.
 */
function codexUsage(u: unknown): TokenUsage | undefined {
  if (!isObject(u)) return undefined;
  return tokenUsage(
    { input: u.input_tokens, output: u.output_tokens, cacheRead: u.cached_input_tokens, cacheWrite: u.cache_write_input_tokens, reasoning: u.reasoning_output_tokens },
    { inputHolds: ['cacheRead'] },
  );
}

const MODEL_KINDS = new Set(['assistant', 'thinking', 'tool_call']);

/**
 * The files of Codex's record of an applied patch: `changes` maps each path to its change
 * (`{type: add|update|delete, move_path?}`); a move writes its new path too.
 */
function changedFiles(changes: unknown): string[] {
  if (!isObject(changes)) return [];
  const files: string[] = [];
  for (const [path, change] of Object.entries(changes)) {
    files.push(path);
    const moved = isObject(change) ? (str(change.move_path) ?? (isObject(change.update) ? str(change.update.move_path) : undefined)) : undefined;
    if (moved !== undefined && !files.includes(moved)) files.push(moved);
  }
  return files;
}

/** The newest block the model wrote in the current turn (a response's usage belongs to it). */
function lastModelBlock(blocks: Block[]): Block | undefined {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i]!;
    if (b.kind === 'user') return undefined;
    if (MODEL_KINDS.has(b.kind)) return b;
  }
  return undefined;
}

/** State of one parse; the same handlers serve every era. */
class CodexReader {
  id?: string;
  cwd?: string;
  startedAt?: string;
  updatedAt?: string;
  readonly fromItems: Block[] = [];
  readonly fromEvents: Block[] = [];
  sawItemMessages = false;
  sawTaskEvents = false;
  openTurn = false;
  /** Start index (in fromItems / fromEvents) of each real user turn, for thread_rolled_back. */
  readonly itemTurns: number[] = [];
  readonly eventTurns: number[] = [];
  /** 0.17x forks do not copy history: they point into the parent rollout. */
  historyBase?: { threadId: string; endByte?: number; endOrdinal?: number };
  /** Exit codes the harness recorded apart from the output (exec_command_end, CommandExecution items). */
  readonly exitCodes = new Map<string, number>();
  /** Codex's own record of the files each patch call changed (FileChange items, patch_apply_end). */
  readonly fileChanges = new Map<string, RecordedChange>();
  /**
   * Usage per model response: `token_usage_record` (0.17x, one per response) when the rollout
   * has them, else `token_count` events, counted only when the running total moved (the same
   * event is repeated at turn starts and after compaction).
   */
  readonly usages: { source: 'record' | 'count'; usage: TokenUsage; items?: Block; events?: Block }[] = [];
  private lastTotal?: string;
  /** Where the record being read is (for raw locators of the blocks and turn ends it gives). */
  at?: { file: string; line: number };

  line(r: Rec): void {
    const items = this.fromItems.length;
    const events = this.fromEvents.length;
    this.read(r);
    if (!this.at) return;
    const raw = { file: this.at.file, lines: [this.at.line] };
    for (let i = items; i < this.fromItems.length; i++) this.fromItems[i]!.raw = raw;
    for (let i = events; i < this.fromEvents.length; i++) this.fromEvents[i]!.raw = raw;
  }

  private read(r: Rec): void {
    const ts = str(r.timestamp);
    if (typeof r.type === 'string' && 'payload' in r) {
      if (ts) {
        this.startedAt ??= ts;
        this.updatedAt = ts;
      }
      const payload = isObject(r.payload) ? r.payload : {};
      switch (r.type) {
        case 'session_meta':
          this.meta(payload);
          return;
        case 'turn_context':
          this.cwd ??= str(payload.cwd);
          return;
        case 'response_item':
          this.item(payload, ts);
          return;
        case 'event_msg':
          this.event(payload, ts);
          return;
        case 'compacted':
          this.compacted(payload);
          return;
        case 'token_usage_record':
          this.usage('record', codexUsage(payload.usage));
          return;
        default:
          return; // world_state, inter_agent_*, …
      }
    }
    // Bare era: line 1 is `{id, timestamp, instructions}`, then bare response items.
    if (r.record_type !== undefined) return;
    if (this.id === undefined && typeof r.id === 'string' && r.type === undefined) {
      this.meta(r);
      return;
    }
    if (typeof r.type === 'string') this.item(r, ts);
  }

  meta(p: Rec): void {
    // A fork replays its parent's session_meta: the first one is this session's own.
    if (this.id !== undefined) return;
    this.id = str(p.id) ?? str(p.session_id);
    this.cwd ??= str(p.cwd);
    this.startedAt ??= toIso(p.timestamp);
    const base = isObject(p.history_base) ? p.history_base : undefined;
    const threadId = str(base?.thread_id) ?? (base ? str(p.forked_from_id) : undefined);
    if (base && threadId) {
      this.historyBase = {
        threadId,
        endByte: typeof base.end_byte_offset === 'number' ? base.end_byte_offset : undefined,
        endOrdinal: typeof base.end_ordinal_exclusive === 'number' ? base.end_ordinal_exclusive : undefined,
      };
    }
  }

  item(p: Rec, ts: string | undefined): void {
    const blocks = this.fromItems;
    switch (p.type) {
      case 'message': {
        const role = p.role;
        const text = contentText(p.content);
        if (role === 'user') {
          this.sawItemMessages = true;
          const real = realUserText(text);
          if (real === undefined) {
            if (this.cwd === undefined) this.cwd = /<cwd>([^<]+)<\/cwd>/.exec(text)?.[1]?.trim();
            return;
          }
          if (real.trim() === '') return;
          this.itemTurns.push(blocks.length);
          pushBlock(blocks, 'user', real, { timestamp: ts });
          this.openTurn = true;
        } else if (role === 'assistant') {
          this.sawItemMessages = true;
          pushBlock(blocks, 'assistant', stripCitation(text), { timestamp: ts, commentary: p.phase === 'commentary' ? true : undefined });
        }
        return;
      }
      case 'reasoning': {
        const texts: string[] = [];
        if (Array.isArray(p.summary)) for (const s of p.summary) if (isObject(s) && typeof s.text === 'string') texts.push(s.text);
        if (Array.isArray(p.content)) for (const s of p.content) if (isObject(s) && typeof s.text === 'string') texts.push(s.text);
        pushBlock(blocks, 'thinking', texts.join('\n\n'), { timestamp: ts });
        return;
      }
      case 'function_call':
        pushBlock(blocks, 'tool_call', prettyArgs(p.arguments) || '{}', { timestamp: ts, label: str(p.name), callId: str(p.call_id) });
        return;
      case 'custom_tool_call':
        pushBlock(blocks, 'tool_call', str(p.input) ?? prettyArgs(p.input), { timestamp: ts, label: str(p.name), callId: str(p.call_id) });
        return;
      case 'local_shell_call': {
        const action = isObject(p.action) ? p.action : {};
        const command = Array.isArray(action.command) ? action.command.join(' ') : prettyArgs(action);
        pushBlock(blocks, 'tool_call', command, { timestamp: ts, label: 'local_shell', callId: str(p.call_id) });
        return;
      }
      case 'web_search_call': {
        const action = isObject(p.action) ? p.action : {};
        pushBlock(blocks, 'tool_call', str(action.query) ?? prettyArgs(action), { timestamp: ts, label: 'web_search', callId: str(p.call_id) ?? str(p.id) });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const out = toolOutput(p.output);
        pushBlock(blocks, 'tool_output', out.text, { timestamp: ts, callId: str(p.call_id), label: str(p.name), isError: out.isError, exitCode: out.exitCode });
        return;
      }
      default:
        return; // compaction, ghost_snapshot, image_generation_call, …
    }
  }

  event(p: Rec, ts: string | undefined): void {
    const blocks = this.fromEvents;
    switch (p.type) {
      case 'user_message': {
        const real = realUserText(str(p.message) ?? '');
        if (real === undefined || real.trim() === '') return;
        this.eventTurns.push(blocks.length);
        pushBlock(blocks, 'user', real, { timestamp: ts });
        this.openTurn = true;
        return;
      }
      case 'agent_message':
        pushBlock(blocks, 'assistant', stripCitation(str(p.message) ?? ''), { timestamp: ts, commentary: p.phase === 'commentary' ? true : undefined });
        return;
      case 'agent_reasoning':
        pushBlock(blocks, 'thinking', str(p.text), { timestamp: ts });
        return;
      case 'item_completed': {
        // Paginated mode: TurnItems instead of user_message/agent_message events.
        const item = isObject(p.item) ? p.item : {};
        const kind = str(item.type);
        const text = str(item.text) ?? str(item.message) ?? contentText(item.content);
        if (kind === 'UserMessage' || kind === 'user_message') {
          const real = realUserText(text);
          if (real === undefined || real.trim() === '') return;
          this.eventTurns.push(blocks.length);
          pushBlock(blocks, 'user', real, { timestamp: ts });
          this.openTurn = true;
        } else if (kind === 'AgentMessage' || kind === 'agent_message') {
          pushBlock(blocks, 'assistant', stripCitation(text), { timestamp: ts });
        } else if (kind === 'CommandExecution' && typeof item.id === 'string' && num(item.exit_code) !== undefined) {
          this.exitCodes.set(item.id, num(item.exit_code)!);
        } else if (kind === 'FileChange' && typeof item.id === 'string' && item.status === 'completed') {
          this.recordChange(item.id, 'FileChange', changedFiles(item.changes));
        }
        return;
      }
      case 'exec_command_end':
        if (typeof p.call_id === 'string' && num(p.exit_code) !== undefined) this.exitCodes.set(p.call_id, num(p.exit_code)!);
        return;
      case 'patch_apply_end':
        // a patch that did not apply changed nothing it can be trusted with
        if (typeof p.call_id === 'string' && p.success !== false) this.recordChange(p.call_id, 'patch_apply_end', changedFiles(p.changes));
        return;
      case 'token_count': {
        const info = isObject(p.info) ? p.info : undefined;
        const total = info ? JSON.stringify(info.total_token_usage) : undefined;
        if (!info || total === this.lastTotal) return;
        this.lastTotal = total;
        this.usage('count', codexUsage(info.last_token_usage));
        return;
      }
      case 'error':
        this.end({ state: 'error', evidence: `error: ${titleFrom(str(p.message), 120) ?? ''}`.trim(), at: ts });
        return;
      case 'task_started':
      case 'turn_started':
        this.sawTaskEvents = true;
        return;
      case 'task_complete':
      case 'turn_complete':
      case 'turn_aborted':
        this.sawTaskEvents = true;
        this.openTurn = false;
        if (p.type === 'turn_aborted') this.end({ state: 'aborted', evidence: `turn_aborted${str(p.reason) ? `: ${str(p.reason)}` : ''}`, at: ts });
        else this.end({ state: 'completed', evidence: String(p.type), at: ts });
        return;
      case 'thread_rolled_back': {
        const n = typeof p.num_turns === 'number' ? p.num_turns : 0;
        if (n > 0) {
          rollBack(this.fromItems, this.itemTurns, n);
          rollBack(this.fromEvents, this.eventTurns, n);
        }
        return;
      }
      default:
        return;
    }
  }

  /**
   * The id, cwd, start and title (the first real user message of the item stream, which then
   * wins) can no longer change: each is kept once set, and only a rollback removes a user turn.
   */
  summaryKnown(): boolean {
    return this.id !== undefined && this.cwd !== undefined && this.startedAt !== undefined && this.sawItemMessages && this.itemTurns.length > 0;
  }

  recordChange(callId: string, record: string, files: string[]): void {
    if (files.length === 0 || this.fileChanges.has(callId)) return;
    const change: RecordedChange = { record, files, scope: 'call' };
    if (this.at) change.raw = { file: this.at.file, lines: [this.at.line] } satisfies RawLocator;
    this.fileChanges.set(callId, change);
  }

  /** A response's usage, kept with the block it belongs to in each stream until the source is chosen. */
  usage(source: 'record' | 'count', usage: TokenUsage | undefined): void {
    if (!usage) return;
    this.usages.push({ source, usage, items: lastModelBlock(this.fromItems), events: lastModelBlock(this.fromEvents) });
  }

  /** The provider's record of how the turn ended goes on the newest block of both streams. */
  end(end: TurnEnd): void {
    if (this.at) end.raw = { file: this.at.file, lines: [this.at.line] };
    const items = this.fromItems.at(-1);
    const events = this.fromEvents.at(-1);
    if (items) items.ended = end;
    if (events) events.ended = end;
  }

  compacted(p: Rec): void {
    // 0.17x writes the compaction summary as an assistant item just before `compacted`, whose
    // message is a preamble plus that summary: the item is the compaction, not a reply.
    const message = str(p.message)?.trim();
    if (!message) return;
    const last = this.fromItems.at(-1);
    if (last?.kind === 'assistant' && message.endsWith(last.text)) {
      last.kind = 'compaction';
      delete last.commentary;
    } else pushBlock(this.fromItems, 'compaction', message, { timestamp: this.updatedAt });
  }

  session(fallbackId: string): Transcript {
    const fromItems = this.sawItemMessages || this.fromEvents.length === 0;
    const blocks = fromItems ? this.fromItems : this.fromEvents;
    labelToolOutputs(blocks);
    for (const b of blocks) {
      if (b.kind !== 'tool_output' || b.exitCode !== undefined || !b.callId) continue;
      const code = this.exitCodes.get(b.callId);
      if (code === undefined) continue;
      b.exitCode = code;
      if (code !== 0) b.isError = true;
    }
    // a recorded change goes on the call's output (the call's, when it has none)
    for (const [callId, change] of this.fileChanges) {
      const target = blocks.find((b) => b.kind === 'tool_output' && b.callId === callId) ?? blocks.find((b) => b.kind === 'tool_call' && b.callId === callId);
      if (target) (target.changes ??= []).push(change);
    }
    const source = this.usages.some((u) => u.source === 'record') ? 'record' : 'count';
    for (const u of this.usages) {
      const target = fromItems ? u.items : u.events;
      if (u.source === source && target) target.usage = sumUsage(target.usage, u.usage);
    }
    return {
      id: this.id ?? fallbackId,
      cwd: this.cwd,
      title: titleFrom(blocks.find((b) => b.kind === 'user')?.text),
      startedAt: this.startedAt,
      updatedAt: this.updatedAt,
      blocks,
      lastTurnOpen: this.sawTaskEvents && this.openTurn,
    };
  }
}

function rollBack(blocks: Block[], turnStarts: number[], n: number): void {
  const keep = Math.max(0, turnStarts.length - n);
  if (keep === turnStarts.length) return;
  blocks.length = turnStarts[keep]!;
  turnStarts.length = keep;
}

function idFromName(path: string): string {
  return ID_IN_NAME.exec(basename(path))?.[1] ?? basename(path).replace(/\.jsonl(\.zst)?$/, '');
}

/** Feeds a rollout to a reader, stopping at a fork's history base (byte offset or ordinal). */
async function readInto(reader: CodexReader, path: string, stats: JsonlStats, stop?: { endByte?: number; endOrdinal?: number }, shownPath = path): Promise<void> {
  // The ordinal is preferred: it survives a rewrite of the parent file (a byte offset does not).
  const byteLimit = stop?.endOrdinal === undefined ? stop?.endByte : undefined;
  let n = 0;
  // Read synchronously: a stream's reads wait on libuv's thread pool, shared by every thread of
  // the process, where the index compresses its chunks (an index build's helper thread read
  // Codex rollouts behind the main thread's compressing and sat idle).
  for (const { line, terminated, end } of jsonlLinesSync(path)) {
    n++;
    if (byteLimit !== undefined && end > byteLimit) break;
    const value = parseJsonlLine(line, stats, !terminated);
    if (!isObject(value)) continue;
    if (stop?.endOrdinal !== undefined && typeof value.ordinal === 'number' && value.ordinal >= stop.endOrdinal) break;
    reader.at = { file: shownPath, line: n };
    reader.line(value);
  }
  reader.at = undefined;
}

/** readInto for plain and zstd-compressed rollouts alike. */
function readRollout(reader: CodexReader, path: string, stats: JsonlStats, stop?: { endByte?: number; endOrdinal?: number }): Promise<void> {
  // Raw locators name the compressed file: that is where the records live.
  if (path.endsWith('.zst')) return withDecompressed(path, (plain) => readInto(reader, plain, stats, stop, path));
  return readInto(reader, path, stats, stop);
}

/** A rollout by thread id, found by file name in the rollout roots. */
function findRollout(env: NodeJS.ProcessEnv, threadId: string): string | undefined {
  for (const root of rolloutRoots(env)) for (const path of rolloutFiles(root, warn)) if (basename(path).includes(threadId)) return path;
  return undefined;
}

export async function parseCodexFile(
  path: string,
  titles?: Map<string, string>,
  warnFn: (m: string) => void = warn,
  env: NodeJS.ProcessEnv = process.env,
  depth = 0,
): Promise<Transcript> {
  const stats = newJsonlStats();
  const reader = new CodexReader();
  await readRollout(reader, path, stats);
  reportSkipped(path, stats, warnFn);
  const session = reader.session(idFromName(path));
  const base = reader.historyBase;
  if (base && depth < 4) {
    // The fork's history before its own first item is the parent's, up to the base.
    const parentPath = findRollout(env, base.threadId);
    if (parentPath) {
      const parent = new CodexReader();
      const parentStats = newJsonlStats();
      await readRollout(parent, parentPath, parentStats, base);
      const inherited = parent.session(base.threadId);
      // The title stays the fork's own first prompt, as listed, so the fork is told apart from its parent.
      session.blocks = [...inherited.blocks, ...session.blocks];
      labelToolOutputs(session.blocks);
      session.startedAt = inherited.startedAt ?? session.startedAt;
    } else warnFn(`the parent rollout ${base.threadId} of fork ${session.id} was not found — showing the fork's own turns only`);
  }
  const named = (titles ?? (await readTitles(env))).get(session.id);
  if (named) session.title = named;
  return session;
}

/**
 * Thread titles: the `threads` table of the newest `state_N.sqlite` (a name the user gave, else
 * the title Codex keeps), then `session_index.jsonl` (names set in older TUIs; newest line wins).
 */
async function readTitles(env: NodeJS.ProcessEnv): Promise<Map<string, string>> {
  const titles = await stateTitles(env);
  const path = join(codexHome(env), 'session_index.jsonl');
  const st = statOrUndefined(path);
  if (!st) return titles;
  try {
    for (const r of readJsonlSync(path)) {
      if (isObject(r) && typeof r.id === 'string' && typeof r.thread_name === 'string' && r.thread_name.trim()) titles.set(r.id, r.thread_name.trim());
    }
  } catch {
    // unreadable index: titles fall back to the first prompt
  }
  return titles;
}

/**
 * Where titles set in Codex come from (readTitles): its home (a state database or an index that
 * appears), the session index, and each state database with its write-ahead log.
 */
function titleSources(env: NodeJS.ProcessEnv): string[] {
  const home = codexHome(env);
  const paths = [home, join(home, 'session_index.jsonl')];
  for (const e of readDirQuiet(home, 'Codex state', () => {})) if (/^state_\d+\.sqlite$/.test(e.name)) paths.push(join(home, e.name), join(home, `${e.name}-wal`));
  return paths;
}

async function stateTitles(env: NodeJS.ProcessEnv): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  let newest: { n: number; path: string } | undefined;
  for (const e of readDirQuiet(codexHome(env), 'Codex state', () => {})) {
    const m = /^state_(\d+)\.sqlite$/.exec(e.name);
    if (m && e.isFile() && (!newest || Number(m[1]) > newest.n)) newest = { n: Number(m[1]), path: join(codexHome(env), e.name) };
  }
  if (!newest) return titles;
  try {
    const db = await openReadOnly(newest.path);
    try {
      const cols = columnsOf(db, 'threads');
      if (!cols.has('id')) return titles;
      const pick = (c: string): string => (cols.has(c) ? c : 'NULL');
      for (const r of db.prepare(`SELECT id, ${pick('name')} AS name, ${pick('title')} AS title FROM threads`).all() as Record<string, unknown>[]) {
        const title = titleFrom(str(r.name)?.trim() || str(r.title));
        if (typeof r.id === 'string' && title) titles.set(r.id, title);
      }
    } finally {
      db.close();
    }
  } catch {
    // locked, damaged or of another schema: titles come from the rollouts
  }
  return titles;
}

function isSubagentSource(source: unknown): boolean {
  return isObject(source) && ('subagent' in source || 'review' in source);
}

/** Bytes of a large rollout's head decoded first: its first lines nearly always tell its summary. */
const FIRST_BYTES = 64 * 1024;

/** headSummary's answer when asked `knownOnly` and the lines it was given did not tell everything. */
const NOT_KNOWN = Symbol('summary not known');

/**
 * A listing summary from the head of a rollout: `headText` is its first bytes (`whole` when that
 * is the entire file); `tailUpdatedAt` the last timestamp of a larger file, when known.
 */
function summarizeHead(path: string, headText: string, whole: boolean, mtimeMs: number, tailUpdatedAt?: string): TranscriptSummary | undefined {
  const summary = headSummary(path, headText, whole, mtimeMs, tailUpdatedAt, false);
  return summary === NOT_KNOWN ? undefined : summary;
}

/**
 * summarizeHead, or with `knownOnly` (the text is the start of a head that holds no rollback)
 * NOT_KNOWN unless the text's lines tell the whole summary.
 */
function headSummary(path: string, headText: string, whole: boolean, mtimeMs: number, tailUpdatedAt: string | undefined, knownOnly: boolean): TranscriptSummary | undefined | typeof NOT_KNOWN {
  const reader = new CodexReader();
  let source: unknown;
  let firstMeta = true;
  let parsed = 0;
  // Of a file larger than the head, the summary takes the last activity from its tail: once the
  // head's lines have given everything else, the rest of the head changes nothing, unless a
  // rollback in it undoes turns (then it is read to its end). A cold index build lists every
  // rollout before reading them, and parsing whole 256 KiB heads was most of that listing.
  const stopEarly = knownOnly || (!whole && !headText.includes('thread_rolled_back'));
  let known = false;
  for (const { line, terminated } of textLines(headText, { cutTail: !whole })) {
    const r = parseJsonlLine(line, newJsonlStats(), !terminated);
    if (!isObject(r)) continue;
    parsed++;
    if (firstMeta && (r.type === 'session_meta' || (r.type === undefined && typeof r.id === 'string'))) {
      firstMeta = false;
      const p = isObject(r.payload) ? r.payload : r;
      source = p.source;
    }
    reader.line(r);
    if (stopEarly && reader.summaryKnown()) {
      known = true;
      break;
    }
  }
  if (knownOnly && !known) return NOT_KNOWN;
  if (reader.id === undefined && parsed === 0) {
    // The first line alone exceeds the head (huge instructions): pick the fields by pattern.
    reader.id = /"id"\s*:\s*"([^"]+)"/.exec(headText)?.[1];
    reader.cwd = /"cwd"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(headText)?.[1];
    if (/"source"\s*:\s*\{\s*"(?:subagent|review)"/.test(headText)) source = { subagent: true };
  }
  if (isSubagentSource(source)) return undefined;
  const session = reader.session(idFromName(path));
  const updatedAt = whole ? session.updatedAt : tailUpdatedAt;
  return {
    provider: 'codex',
    id: session.id,
    location: path,
    cwd: session.cwd,
    cwds: session.cwd ? [session.cwd] : [],
    title: session.title,
    startedAt: session.startedAt,
    updatedAt: toIso(updatedAt) ?? new Date(mtimeMs).toISOString(),
  };
}

function summarize(path: string, size: number, mtimeMs: number): TranscriptSummary | undefined {
  const whole = size <= HEAD_BYTES;
  let tailUpdatedAt: string | undefined;
  if (!whole) for (const r of tailRecords(path, size, TAIL_BYTES)) if (isObject(r) && typeof r.timestamp === 'string') tailUpdatedAt = r.timestamp;
  const head = readBytes(path, 0, HEAD_BYTES);
  // Decoding the whole head as text was most of listing a large rollout (a cold index build lists
  // every one before reading them): the first bytes are decoded first, and the rest only when
  // their lines do not tell the summary. A rollback anywhere in the head means reading it all;
  // its name is ASCII, so it is looked for in the bytes.
  if (!whole && head.length > FIRST_BYTES && !head.includes('thread_rolled_back')) {
    const early = headSummary(path, head.toString('utf8', 0, FIRST_BYTES), false, mtimeMs, tailUpdatedAt, true);
    if (early !== NOT_KNOWN) return early;
  }
  return summarizeHead(path, head.toString('utf8'), whole, mtimeMs, tailUpdatedAt);
}

function* rolloutFiles(dir: string, say: (m: string) => void, depth = 0): Generator<string> {
  for (const entry of readDirQuiet(dir, 'Codex sessions', say)) {
    const path = childPath(dir, entry.name);
    if (entry.isDirectory()) {
      if (depth < 4) yield* rolloutFiles(path, say, depth + 1);
    } else if (entry.name.startsWith('rollout-') && (entry.name.endsWith('.jsonl') || entry.name.endsWith('.jsonl.zst'))) yield path;
  }
}

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const unreadable = new UnreadableFiles();
  let titles: Map<string, string> | undefined;
  for (const root of rolloutRoots(opts.env)) {
    for (const path of rolloutFiles(root, opts.warn ?? warn)) {
      const st = statOrUndefined(path);
      if (!st || !st.isFile()) continue;
      let summary: TranscriptSummary | undefined;
      try {
        let compute = (): TranscriptSummary | undefined => summarize(path, st.size, st.mtimeMs);
        if (path.endsWith('.zst') && !opts.memo?.has?.(path, st.mtimeMs, st.size)) {
          // Compressed: only a decompressed head is read; last activity is the file's mtime.
          const head = await zstdHead(path, HEAD_BYTES);
          compute = () => summarizeHead(path, head.text, head.complete, st.mtimeMs);
        }
        summary = opts.memo ? opts.memo.summary(path, st.mtimeMs, st.size, compute) : compute();
      } catch (error) {
        unreadable.add(path, error);
        continue;
      }
      if (!summary) continue;
      titles ??= await readTitles(opts.env);
      const named = titles.get(summary.id);
      yield named ? { ...summary, title: named } : summary;
    }
  }
  unreadable.report('Codex rollouts', opts.warn ?? warn);
}

export const codex: Provider = {
  name: 'codex',
  discover,
  dataLocation: (env) => join(codexHome(env), 'sessions'),
  listingInputs: (env) => ({ trees: rolloutRoots(env), paths: titleSources(env) }),
  async load(summary, opts) {
    return parseCodexFile(summary.location, await readTitles(opts.env), opts.warn, opts.env);
  },
  currentSessionHint: (env) => env.CODEX_THREAD_ID || undefined,
  detect(head, path) {
    // A compressed rollout: the zstd frame magic 28 B5 2F FD (read as text, it starts with "(").
    if (path.endsWith('.jsonl.zst') && head.startsWith('(')) return true;
    const first = firstLine(head);
    if (!first) return false;
    const r = first.value;
    // A first line too long for the head is cut: its opening still names the record.
    if (r === undefined) return /^\{"timestamp":"[^"]*","type":"session_meta"/.test(first.line);
    if (!isObject(r)) return false;
    if (r.type === 'session_meta' && isObject(r.payload)) return true;
    return r.type === undefined && typeof r.id === 'string' && 'instructions' in r;
  },
  loadFile: async (path, opts) => parseCodexFile(path, await readTitles(opts.env), opts.warn, opts.env),
};
