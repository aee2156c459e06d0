// Grok Build (xAI's CLI): `<grok>/sessions/<url-encoded cwd>/<sessionId>/updates.jsonl`, where
// `<grok>` is $GROK_HOME or ~/.grok (docs/formats.md). Each line wraps one Agent Client Protocol
// `session/update` with a Unix-seconds timestamp; message text arrives in chunks
// (`user_message_chunk`, `agent_message_chunk`, `agent_thought_chunk`) that are joined until the
// kind changes, tool calls are `tool_call` then `tool_call_update`s by `toolCallId`, and
// `turn_completed` closes a turn. `summary.json` beside it holds the id, cwd, title and, for
// sub-agents, `session_kind`; sub-agent sessions are not listed. A rewind truncates the file and
// grows it again, which the index sees as a rewrite. (The community grok-cli keeps no sessions.)
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { warn } from '../errors.js';
import { newJsonlStats, readJsonlNumbered } from '../session/jsonl.js';
import { expandHome, homeOf, isObject, labelToolOutputs, prettyArgs, readDirQuiet, reportSkipped, statOrUndefined, str, titleFrom, toIso, UnreadableFiles } from './common.js';
import type { Transcript, Block, BlockKind, DiscoverOptions, Provider, TokenUsage, TranscriptSummary } from './types.js';
import { sumUsage, tokenUsage } from './usage.js';

type Rec = Record<string, unknown>;

export const grokHome = (env: NodeJS.ProcessEnv): string => (env.GROK_HOME ? expandHome(env.GROK_HOME, env) : join(homeOf(env), '.grok'));

const CHUNKS: Record<string, BlockKind> = { user_message_chunk: 'user', agent_message_chunk: 'assistant', agent_thought_chunk: 'thinking' };

/** ACP content: a block `{type: 'text', text}`, or a list of `{type: 'content', content}` wrappers. */
function contentText(content: unknown): string {
  if (Array.isArray(content)) return content.map(contentText).filter((t) => t !== '').join('\n');
  if (!isObject(content)) return typeof content === 'string' ? content : '';
  if (content.type === 'text') return str(content.text) ?? '';
  if (content.type === 'content') return contentText(content.content);
  if (content.type === 'diff') return `[diff: ${str(content.path) ?? 'file'}]`;
  if (content.type === 'terminal') return `[terminal ${str(content.terminalId) ?? ''}]`.trim();
  return '';
}

function updateOf(line: Rec): Rec | undefined {
  // `{timestamp, update}`, `{timestamp, params: {update}}` or the update itself
  const params = isObject(line.params) ? line.params : line;
  const update = isObject(params.update) ? params.update : isObject(line.update) ? line.update : params;
  return typeof update.sessionUpdate === 'string' || typeof update.type === 'string' ? update : undefined;
}

/** One `usage` payload (or one model's entry of `modelUsage`): `inputTokens` counts the cached reads too. */
function grokUsageOf(u: Rec): TokenUsage | undefined {
  return tokenUsage({ input: u.inputTokens, output: u.outputTokens, cacheRead: u.cachedReadTokens, reasoning: u.reasoningTokens }, { inputHolds: ['cacheRead'] });
}

/** A turn's usage: per model in `modelUsage` when it is there (summed), else the payload's own counts. */
function turnUsage(u: unknown): TokenUsage | undefined {
  if (!isObject(u)) return undefined;
  const models = isObject(u.modelUsage) ? Object.values(u.modelUsage).filter(isObject) : [];
  return sumUsage(...(models.length > 0 ? models : [u]).map(grokUsageOf));
}

const MODEL_KINDS = new Set<BlockKind>(['assistant', 'thinking', 'tool_call']);

/** `where`: the file and each record's line number, so blocks name the lines they were built from. */
export function acpBlocks(lines: Rec[], where?: { file: string; lines: number[] }): { blocks: Block[]; open: boolean } {
  const blocks: Block[] = [];
  const calls = new Map<string, { call: Block; output?: Block }>();
  const from = new Map<Block, number[]>();
  const seen = (b: Block | undefined, i: number): void => {
    if (!b || !where) return;
    const at = from.get(b);
    if (at) {
      if (at.at(-1) !== where.lines[i]) at.push(where.lines[i]!);
    } else from.set(b, [where.lines[i]!]);
  };
  let current: Block | undefined;
  let open = false;
  /** Where the current turn's blocks start; Grok Build measures usage per turn (turn_completed). */
  let turnStart = 0;
  /** By prompt_id: a turn's usage written again (a retry, a replay) replaces the first. */
  const usages = new Map<string, { from: number; usage: TokenUsage }>();
  for (const [i, line] of lines.entries()) {
    const u = updateOf(line);
    if (!u) continue;
    const kind = str(u.sessionUpdate) ?? str(u.type) ?? '';
    const timestamp = toIso(line.timestamp);
    const chunk = CHUNKS[kind];
    if (chunk) {
      const text = contentText(u.content);
      if (current && current.kind === chunk) current.text += text;
      else {
        current = { kind: chunk, text, ...(timestamp ? { timestamp } : {}) };
        if (chunk === 'user') turnStart = blocks.length;
        blocks.push(current);
      }
      seen(current, i);
      if (chunk === 'user') open = true;
      continue;
    }
    current = undefined;
    if (kind === 'tool_call' || kind === 'tool_call_update') {
      const id = str(u.toolCallId) ?? '';
      let entry = calls.get(id);
      if (!entry) {
        const call: Block = { kind: 'tool_call', text: prettyArgs(u.rawInput) || str(u.title) || '{}', label: str(u.title) ?? str(u.kind), callId: id || undefined, ...(timestamp ? { timestamp } : {}) };
        blocks.push(call);
        entry = { call };
        calls.set(id, entry);
      } else if (u.rawInput !== undefined) entry.call.text = prettyArgs(u.rawInput);
      if (kind === 'tool_call' || u.rawInput !== undefined) seen(entry.call, i);
      const status = str(u.status);
      const text = contentText(u.content) || (u.rawOutput !== undefined ? (typeof u.rawOutput === 'string' ? u.rawOutput : prettyArgs(u.rawOutput)) : '');
      if (text !== '' || status === 'completed' || status === 'failed') {
        if (!entry.output) {
          entry.output = { kind: 'tool_output', text: '', label: entry.call.label, callId: entry.call.callId, ...(timestamp ? { timestamp } : {}) };
          blocks.push(entry.output);
        }
        if (text !== '') entry.output.text = text;
        if (status === 'failed') entry.output.isError = true;
        seen(entry.output, i);
      }
    } else if (kind === 'turn_completed' || kind === 'turn_end') {
      open = false;
      const usage = turnUsage(u.usage);
      if (usage) usages.set(str(u.prompt_id) ?? str(u.promptId) ?? `line ${i}`, { from: turnStart, usage });
      const last = blocks.at(-1);
      if (last) last.ended = { state: 'completed', evidence: kind, at: timestamp, ...(where ? { raw: { file: where.file, lines: [where.lines[i]!] } } : {}) };
    }
  }
  if (where) for (const [b, at] of from) b.raw = { file: where.file, lines: at };
  for (const { from: start, usage } of usages.values()) {
    const target = blocks.slice(start).find((b) => MODEL_KINDS.has(b.kind) && b.text.trim() !== '');
    if (target) target.usage = usage;
  }
  const kept = blocks.filter((b) => b.text.trim() !== '').map((b) => ({ ...b, text: b.text.trim() }));
  labelToolOutputs(kept);
  return { blocks: kept, open };
}

type Summary = { id?: string; cwd?: string; title?: string; kind?: string; created?: string; updated?: string };

function readSummary(dir: string): Summary {
  try {
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as unknown;
    if (!isObject(s)) return {};
    const info = isObject(s.info) ? s.info : s;
    return {
      id: str(info.id) ?? str(s.id),
      cwd: str(s.cwd) ?? str(info.cwd),
      title: str(s.generated_title) ?? str(s.title) ?? str(info.title),
      kind: str(s.session_kind) ?? str(info.session_kind),
      created: toIso(s.created_at ?? info.created_at),
      updated: toIso(s.updated_at ?? info.updated_at),
    };
  } catch {
    return {};
  }
}

const cwdFromFolder = (dir: string): string | undefined => {
  try {
    return decodeURIComponent(basename(dirname(dir)));
  } catch {
    return undefined;
  }
};

async function loadGrok(path: string, warnFn: (m: string) => void): Promise<Transcript> {
  const stats = newJsonlStats();
  const lines: Rec[] = [];
  const numbers: number[] = [];
  for await (const { value, line } of readJsonlNumbered(path, stats)) {
    if (!isObject(value)) continue;
    lines.push(value);
    numbers.push(line);
  }
  reportSkipped(path, stats, warnFn);
  const dir = dirname(path);
  const meta = readSummary(dir);
  const { blocks, open } = acpBlocks(lines, { file: path, lines: numbers });
  const times = lines.map((l) => toIso(l.timestamp)).filter((t): t is string => t !== undefined);
  return {
    id: meta.id ?? basename(dir),
    cwd: meta.cwd ?? cwdFromFolder(dir),
    title: meta.title ?? titleFrom(blocks.find((b) => b.kind === 'user')?.text),
    startedAt: meta.created ?? times[0],
    updatedAt: times.at(-1) ?? meta.updated,
    blocks,
    lastTurnOpen: open,
  };
}

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const say = opts.warn ?? warn;
  const root = join(grokHome(opts.env), 'sessions');
  const unreadable = new UnreadableFiles();
  for (const folder of readDirQuiet(root, 'Grok sessions', say)) {
    if (!folder.isDirectory()) continue;
    for (const session of readDirQuiet(join(root, folder.name), 'Grok sessions', say)) {
      if (!session.isDirectory()) continue;
      const dir = join(root, folder.name, session.name);
      const path = join(dir, 'updates.jsonl');
      const st = statOrUndefined(path);
      if (!st) continue;
      const meta = readSummary(dir);
      if (meta.kind === 'subagent' || meta.kind === 'subagent_fork') continue;
      try {
        let summary: TranscriptSummary | undefined;
        if (opts.memo?.has?.(path, st.mtimeMs, st.size)) summary = opts.memo.summary(path, st.mtimeMs, st.size, () => undefined);
        else {
          const s = await loadGrok(path, () => undefined);
          const computed = s.blocks.some((b) => b.kind === 'user')
            ? { provider: 'grok', id: s.id, location: path, cwd: s.cwd, cwds: s.cwd ? [s.cwd] : [], title: s.title, startedAt: s.startedAt, updatedAt: s.updatedAt ?? new Date(st.mtimeMs).toISOString() }
            : undefined;
          summary = opts.memo ? opts.memo.summary(path, st.mtimeMs, st.size, () => computed) : computed;
        }
        if (summary) yield summary;
      } catch (error) {
        unreadable.add(path, error);
      }
    }
  }
  unreadable.report('Grok sessions', say);
}

export const grok: Provider = {
  name: 'grok',
  discover,
  dataLocation: (env) => join(grokHome(env), 'sessions'),
  load: (summary, opts) => loadGrok(summary.location, opts.warn ?? warn),
  loadFile: (path, opts) => loadGrok(path, opts.warn ?? warn),
};
