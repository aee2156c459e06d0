// kimi-cli (MoonshotAI's Python agent) sessions, from its source (src/kimi_cli/wire/{file,types}.py);
// no genuine session here (kimi-cli is a Python program): fixture-only. Sessions live in
// `${KIMI_SHARE_DIR:-~/.kimi}/sessions/<md5 of the work dir>/<session id>/wire.jsonl` (with
// `state.json`, whose `title` is used when present). `kimi.json` in the share folder lists the
// work dirs (`work_dirs: [{path}]`), which is how a folder's md5 name is turned back into a cwd.
// wire.jsonl: line 1 `{type: metadata, protocol_version}`, then `{timestamp: seconds, message:
// {type, payload}}` written as the agent streams, unmerged:
// - TurnBegin / SteerInput {user_input: string | parts}: the user's prompt
// - ContentPart {type: text, text} | {type: think, think}: deltas, joined while consecutive
// - ToolCall {id, function {name, arguments}} then ToolCallPart {arguments_part}: argument deltas
// - ToolResult {tool_call_id, return_value {is_error, output, message}}
// - CompactionBegin / CompactionEnd: history compacted (no summary on the wire)
// - TurnEnd closes a turn; StatusUpdate, StepBegin, approvals, SubagentEvent (a sub-agent's own
//   stream, not this conversation) and unknown types are skipped.
// Assumed, not checked in the source: state.json's `title` and kimi.json's `work_dirs[].path`.
// Older layouts (`<md5>/<id>.jsonl`, `<id>/context.jsonl` only, before wire.jsonl existed) hold
// model-facing context, not the wire, and are not read.
// Kimi Code (the newer TypeScript agent, `~/.kimi-code`) writes a different wire (context.* and
// loop-event records, snapshots) that could not be established from its source here, so it is
// not read: that also keeps the chats it imports from kimi-cli under new ids from being listed twice.
import { nodeCrypto } from '../session/lazy-crypto.js';
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { warn } from '../errors.js';
import { firstRecord, headRecords, newJsonlStats, readJsonlNumbered, tailRecords } from '../session/jsonl.js';
import { expandHome, homeOf, imagePlaceholder, isObject, joinContent, labelToolOutputs, prettyArgs, pushBlock, readDirQuiet, reportSkipped, statOrUndefined, str, titleFrom, toIso, UnreadableFiles } from './common.js';
import type { Transcript, Block, DiscoverOptions, Provider, TokenUsage, TranscriptSummary } from './types.js';
import { sumUsage, tokenUsage } from './usage.js';

type Rec = Record<string, unknown>;
const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 16 * 1024;

export function kimiShareDir(env: NodeJS.ProcessEnv): string {
  const share = env.KIMI_SHARE_DIR?.trim();
  return share ? expandHome(share, env) : join(homeOf(env), '.kimi');
}

/** md5(work dir) → work dir, from kimi.json's list. */
function workDirs(share: string): Map<string, string> {
  const map = new Map<string, string>();
  try {
    const meta: unknown = JSON.parse(readFileSync(join(share, 'kimi.json'), 'utf8'));
    const dirs = isObject(meta) && Array.isArray(meta.work_dirs) ? meta.work_dirs : [];
    for (const d of dirs) {
      const path = isObject(d) ? str(d.path) : undefined;
      if (path) map.set(nodeCrypto().createHash('md5').update(path).digest('hex'), path);
    }
  } catch {
    // no kimi.json: sessions are still listed, without a cwd
  }
  return map;
}

function stateTitle(sessionDir: string): string | undefined {
  try {
    const state: unknown = JSON.parse(readFileSync(join(sessionDir, 'state.json'), 'utf8'));
    return isObject(state) ? str(state.title)?.trim() || undefined : undefined;
  } catch {
    return undefined;
  }
}

function userText(input: unknown): string {
  return joinContent(input, (p) => {
    if (typeof p === 'string') return p;
    if (!isObject(p)) return undefined;
    if (p.type === 'text') return str(p.text) ?? '';
    if (p.type === 'image_url') return imagePlaceholder(undefined);
    return undefined;
  });
}

function outputText(output: unknown): string {
  return joinContent(output, (p) => (typeof p === 'string' ? p : isObject(p) && p.type === 'text' ? str(p.text) ?? '' : undefined));
}

/** StatusUpdate's `token_usage`: `input_other` is the fresh input, the cache reads and writes are apart. */
function kimiUsage(u: unknown): TokenUsage | undefined {
  if (!isObject(u)) return undefined;
  return tokenUsage({ input: u.input_other, output: u.output, cacheRead: u.input_cache_read, cacheWrite: u.input_cache_creation });
}

const MODEL_KINDS = new Set(['assistant', 'thinking', 'tool_call']);

type Pending = ({ kind: 'assistant' | 'thinking'; text: string; timestamp?: string } | { kind: 'call'; id?: string; name?: string; args: string; timestamp?: string }) & { lines: number[] };

/** Streams the wire into blocks: deltas of one kind are joined until something else arrives. */
class WireReader {
  readonly blocks: Block[] = [];
  turnOpen = false;
  sawTurn = false;
  private pending?: Pending;
  /** Where the current step's blocks start: its StatusUpdate's usage goes on the first the model wrote. */
  private stepStart = 0;
  /** One usage per model response (by message_id: a step may repeat its StatusUpdate). */
  private readonly usages = new Map<string, { from: number; usage: TokenUsage }>();
  /** The wire file and the line being read: blocks name the lines their deltas came on. */
  file?: string;
  line = 0;

  private located(from: number, lines: number[]): void {
    if (!this.file) return;
    for (let i = from; i < this.blocks.length; i++) this.blocks[i]!.raw = { file: this.file, lines };
  }

  private flush(): void {
    const p = this.pending;
    this.pending = undefined;
    if (!p) return;
    const from = this.blocks.length;
    this.flushInto(p);
    this.located(from, p.lines);
  }

  private flushInto(p: Pending): void {
    if (p.kind === 'call') {
      let input: unknown = p.args;
      try {
        input = p.args ? JSON.parse(p.args) : {};
      } catch {
        // arguments still streaming or not JSON: shown as written
      }
      pushBlock(this.blocks, 'tool_call', prettyArgs(input) || '{}', { timestamp: p.timestamp, label: p.name, callId: p.id });
    } else pushBlock(this.blocks, p.kind, p.text, { timestamp: p.timestamp });
  }

  private delta(kind: 'assistant' | 'thinking', text: string | undefined, timestamp?: string): void {
    if (!text) return;
    if (this.pending?.kind === kind) {
      this.pending.text += text;
      this.pending.lines.push(this.line);
    } else {
      this.flush();
      this.pending = { kind, text, timestamp, lines: [this.line] };
    }
  }

  add(r: Rec): void {
    const message = isObject(r.message) ? r.message : undefined;
    if (!message) return;
    const p = isObject(message.payload) ? message.payload : {};
    const timestamp = toIso(r.timestamp);
    const from = this.blocks.length;
    this.read(message.type, p, timestamp);
    // blocks this record pushed itself (prompt, tool result, compaction) come from its line;
    // a streamed block it flushed already names the lines of its deltas
    if (this.file) for (let i = from; i < this.blocks.length; i++) this.blocks[i]!.raw ??= { file: this.file, lines: [this.line] };
    if (message.type === 'TurnEnd' && this.blocks.length > 0 && this.file) this.blocks.at(-1)!.ended = { state: 'completed', evidence: 'TurnEnd', raw: { file: this.file, lines: [this.line] }, at: timestamp };
  }

  private read(type: unknown, p: Rec, timestamp: string | undefined): void {
    switch (type) {
      case 'TurnBegin':
      case 'SteerInput':
        this.flush();
        pushBlock(this.blocks, 'user', userText(p.user_input), { timestamp });
        this.turnOpen = true;
        this.sawTurn = true;
        this.stepStart = this.blocks.length;
        break;
      case 'StepBegin':
        this.flush();
        this.stepStart = this.blocks.length;
        break;
      case 'StatusUpdate': {
        const usage = kimiUsage(p.token_usage);
        if (usage) this.usages.set(str(p.message_id) ?? `line ${this.line}`, { from: this.stepStart, usage });
        break;
      }
      case 'ContentPart':
        if (p.type === 'text') this.delta('assistant', str(p.text), timestamp);
        else if (p.type === 'think') this.delta('thinking', str(p.think), timestamp);
        else if (p.type === 'function') this.call(p, timestamp);
        break;
      case 'ToolCall':
        this.call(p, timestamp);
        break;
      case 'ToolCallPart':
        if (this.pending?.kind === 'call') {
          this.pending.args += str(p.arguments_part) ?? '';
          this.pending.lines.push(this.line);
        }
        break;
      case 'ToolResult': {
        this.flush();
        const rv = isObject(p.return_value) ? p.return_value : {};
        const failed = rv.is_error === true;
        const text = outputText(rv.output) || str(rv.message) || '';
        pushBlock(this.blocks, 'tool_output', text || (failed ? 'error' : ''), { timestamp, callId: str(p.tool_call_id), isError: failed ? true : undefined });
        break;
      }
      case 'CompactionBegin':
        this.flush();
        pushBlock(this.blocks, 'compaction', 'history compacted', { timestamp });
        break;
      case 'TurnEnd':
        this.flush();
        this.turnOpen = false;
        break;
    }
  }

  private call(p: Rec, timestamp?: string): void {
    this.flush();
    const fn = isObject(p.function) ? p.function : {};
    this.pending = { kind: 'call', id: str(p.id), name: str(fn.name), args: str(fn.arguments) ?? '', timestamp, lines: [this.line] };
  }

  finish(): Block[] {
    this.flush();
    for (const { from, usage } of this.usages.values()) {
      const target = this.blocks.slice(from).find((b) => MODEL_KINDS.has(b.kind));
      if (!target) continue;
      target.usage = sumUsage(target.usage, usage);
    }
    labelToolOutputs(this.blocks);
    return this.blocks;
  }
}

export async function parseKimiWire(path: string, warnFn: (m: string) => void = warn, cwd?: string): Promise<Transcript> {
  const stats = newJsonlStats();
  const reader = new WireReader();
  reader.file = path;
  for await (const { value, line } of readJsonlNumbered(path, stats)) {
    reader.line = line;
    if (isObject(value)) reader.add(value);
  }
  reportSkipped(path, stats, warnFn);
  const blocks = reader.finish();
  const times = blocks.map((b) => b.timestamp).filter((t): t is string => t !== undefined);
  const sessionDir = dirname(path);
  return {
    id: basename(sessionDir),
    cwd: cwd ?? workDirs(dirname(dirname(dirname(sessionDir)))).get(basename(dirname(sessionDir))),
    title: stateTitle(sessionDir) ?? titleFrom(blocks.find((b) => b.kind === 'user')?.text),
    startedAt: times[0],
    updatedAt: times.at(-1),
    blocks,
    lastTurnOpen: reader.turnOpen,
  };
}

function summarize(path: string, size: number, mtimeMs: number, cwd: string | undefined): TranscriptSummary | undefined {
  const head = headRecords(path, HEAD_BYTES, size).filter(isObject);
  if (head.length === 0 || (head[0]!.type !== 'metadata' && !isObject(head[0]!.message))) return undefined;
  let startedAt: string | undefined;
  let firstPrompt: string | undefined;
  for (const r of head) {
    const m = isObject(r.message) ? r.message : undefined;
    if (!m) continue;
    startedAt ??= toIso(r.timestamp);
    if (m.type === 'TurnBegin' && isObject(m.payload)) {
      firstPrompt = userText(m.payload.user_input);
      break;
    }
  }
  const tail = size > HEAD_BYTES ? tailRecords(path, size, TAIL_BYTES).filter(isObject) : head;
  const updatedAt = tail.map((r) => toIso(r.timestamp)).filter(Boolean).at(-1);
  const sessionDir = dirname(path);
  return {
    provider: 'kimi',
    id: basename(sessionDir),
    location: path,
    cwd,
    cwds: cwd ? [cwd] : [],
    title: stateTitle(sessionDir) ?? titleFrom(firstPrompt),
    startedAt,
    updatedAt: updatedAt ?? new Date(mtimeMs).toISOString(),
  };
}

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const share = kimiShareDir(opts.env);
  const root = join(share, 'sessions');
  const warnFn = opts.warn ?? warn;
  const dirs = workDirs(share);
  const unreadable = new UnreadableFiles();
  for (const wd of readDirQuiet(root, 'kimi-cli sessions', warnFn)) {
    if (!wd.isDirectory()) continue;
    const cwd = dirs.get(wd.name);
    for (const s of readDirQuiet(join(root, wd.name), 'kimi-cli sessions', warnFn)) {
      if (!s.isDirectory()) continue;
      const path = join(root, wd.name, s.name, 'wire.jsonl');
      const st = statOrUndefined(path);
      if (!st?.isFile()) continue;
      try {
        const compute = (): TranscriptSummary | undefined => summarize(path, st.size, st.mtimeMs, cwd);
        const summary = opts.memo ? opts.memo.summary(path, st.mtimeMs, st.size, compute) : compute();
        if (summary) yield summary;
      } catch (error) {
        unreadable.add(path, error);
      }
    }
  }
  unreadable.report('kimi-cli sessions', warnFn);
}

export const kimi: Provider = {
  name: 'kimi',
  discover,
  load: (summary, opts) => parseKimiWire(summary.location, opts.warn, summary.cwd),
  dataLocation: (env) => join(kimiShareDir(env), 'sessions'),
  detect(head, path) {
    const r = firstRecord(head);
    return basename(path) === 'wire.jsonl' && isObject(r) && (r.type === 'metadata' || isObject(r.message));
  },
  loadFile: (path, opts) => parseKimiWire(path, opts.warn),
};
