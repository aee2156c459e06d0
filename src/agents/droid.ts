// Factory Droid sessions: `<factory>/sessions/<cwd with / as ->/<sessionId>.jsonl`, where
// `<factory>` is `$FACTORY_HOME_OVERRIDE/.factory` (the override replaces the home) or
// `~/.factory` (docs/formats.md). The first line, `session_start`, carries id, title and cwd, and
// is rewritten when the session is renamed. Messages are `{type: message, id, parentId, message:
// {role, content}}` with Anthropic-style blocks; `context-<id>` user messages are injected system
// reminders; `agent_turn_outcome` closes a turn; `compaction_state` holds a summary but sits off
// the parent chain, so it is placed where the file put it.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { warn } from '../errors.js';
import { firstRecord, headRecords, newJsonlStats, readJsonlNumbered, tailRecords } from '../session/jsonl.js';
import {
  expandHome, homeOf, imagePlaceholder, isInjectedText, isObject, joinContent, labelToolOutputs, prettyArgs,
  pushBlock, reportSkipped, str, summariesInFolders, titleFrom, toIso,
} from './common.js';
import type { Transcript, Block, RawLocator, TurnEnd, DiscoverOptions, Provider, TokenUsage, TranscriptSummary } from './types.js';
import { runningTotal, tokenUsage } from './usage.js';
import { UuidTree, type TreeNode } from './uuid-tree.js';

type Rec = Record<string, unknown>;

const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 64 * 1024;

export function droidSessionsDir(env: NodeJS.ProcessEnv): string {
  const override = env.FACTORY_HOME_OVERRIDE?.trim();
  if (!override) return join(homeOf(env), '.factory', 'sessions');
  const home = expandHome(override, env);
  // The override names the home `.factory` lives in; a few tools pass the `.factory` folder itself.
  const nested = join(home, '.factory', 'sessions');
  return existsSync(nested) || !existsSync(join(home, 'sessions')) ? nested : join(home, 'sessions');
}

/** Droid appends the exit status to a shell tool's output: keep the output, read the status. */
const EXIT_NOTE = /\s*\[Process exited with code (-?\d+)\]\s*$/;

function toolResultText(content: unknown): string {
  return joinContent(content, (item) => {
    if (typeof item === 'string') return item;
    if (!isObject(item)) return undefined;
    if (item.type === 'text') return str(item.text) ?? '';
    const source = isObject(item.source) ? item.source : undefined;
    return item.type === 'image' ? imagePlaceholder(str(source?.media_type), source?.data) : undefined;
  });
}

const isInjected = (r: Rec): boolean => typeof r.id === 'string' && r.id.startsWith('context-');

function messageBlocks(r: Rec): Block[] {
  const blocks: Block[] = [];
  const message = isObject(r.message) ? r.message : undefined;
  if (!message) return blocks;
  const timestamp = toIso(r.timestamp);
  const content = Array.isArray(message.content) ? message.content : [{ type: 'text', text: message.content }];
  if (message.role === 'user') {
    if (isInjected(r)) return blocks;
    for (const item of content) {
      if (!isObject(item)) continue;
      if (item.type === 'text') {
        const text = str(item.text) ?? '';
        if (!isInjectedText(text)) pushBlock(blocks, 'user', text, { timestamp });
      } else if (item.type === 'image') {
        const source = isObject(item.source) ? item.source : undefined;
        pushBlock(blocks, 'user', imagePlaceholder(str(source?.media_type), source?.data), { timestamp });
      } else if (item.type === 'tool_result') {
        let text = toolResultText(item.content);
        const exit = EXIT_NOTE.exec(text);
        if (exit) text = text.slice(0, exit.index);
        const failed = item.is_error === true || (exit !== null && exit[1] !== '0');
        pushBlock(blocks, 'tool_output', text || (exit ? '(no output)' : ''), { timestamp, callId: str(item.tool_use_id), isError: failed ? true : undefined, exitCode: exit ? Number(exit[1]) : undefined });
      }
    }
    // Several text parts of one prompt are one user message.
    const users = blocks.filter((b) => b.kind === 'user');
    if (users.length > 1) {
      const merged: Block = { ...users[0]!, text: users.map((b) => b.text).join('\n') };
      return [merged, ...blocks.filter((b) => b.kind !== 'user')];
    }
    return blocks;
  }
  if (message.role === 'assistant') {
    for (const item of content) {
      if (!isObject(item)) continue;
      if (item.type === 'text') pushBlock(blocks, 'assistant', str(item.text), { timestamp });
      else if (item.type === 'thinking') pushBlock(blocks, 'thinking', str(item.thinking), { timestamp });
      else if (item.type === 'tool_use') pushBlock(blocks, 'tool_call', prettyArgs(item.input) || '{}', { timestamp, label: str(item.name), callId: str(item.id) });
    }
  }
  return blocks;
}

type Node = TreeNode & { rec: Rec; line: number };

/** `agent_turn_outcome.reason`: how Droid says the turn ended. */
function outcomeEnd(r: Rec, raw: RawLocator): TurnEnd {
  const reason = str(r.reason) ?? 'unknown';
  const state: TurnEnd['state'] = reason === 'completed' ? 'completed' : /cancel|abort|interrupt/i.test(reason) ? 'aborted' : 'error';
  return { state, evidence: `agent_turn_outcome: ${reason}`, raw, at: toIso(r.timestamp) };
}

/**
 * `<id>.settings.json` beside the transcript keeps the session's running `tokenUsage` (its own;
 * `inclusiveTokenUsage` adds its sub-agents'): the only token record Droid writes, so it is a
 * session total. The cache reads and creations are counted apart from `inputTokens`.
 */
function settingsUsage(path: string): TokenUsage | undefined {
  let settings: unknown;
  try {
    settings = JSON.parse(readFileSync(path.replace(/\.jsonl$/, '.settings.json'), 'utf8')) as unknown;
  } catch {
    return undefined; // older versions, or a session copied without its settings
  }
  const u = isObject(settings) && isObject(settings.tokenUsage) ? settings.tokenUsage : undefined;
  if (!u) return undefined;
  return runningTotal(tokenUsage({ input: u.inputTokens, output: u.outputTokens, cacheRead: u.cacheReadTokens, cacheWrite: u.cacheCreationTokens, reasoning: u.thinkingTokens }));
}

export async function parseDroidFile(path: string, warnFn: (m: string) => void = warn): Promise<Transcript> {
  const stats = newJsonlStats();
  const tree = new UuidTree<Node>();
  let header: Rec | undefined;
  let leaf: Node | undefined;
  let seq = 0;
  const compactions: { seq: number; block: Block }[] = [];
  let lastUserSeq = -1;
  let lastOutcomeSeq = -1;
  const outcomes: { seq: number; end: TurnEnd }[] = [];
  for await (const { value, line } of readJsonlNumbered(path, stats)) {
    if (!isObject(value)) continue;
    const s = seq++;
    if (value.type === 'session_start') header ??= value;
    else if (value.type === 'message' && typeof value.id === 'string') {
      const node: Node = { uuid: value.id, parent: str(value.parentId), seq: s, rec: value, line };
      tree.add(node);
      leaf = node;
      if (isObject(value.message) && value.message.role === 'user' && !isInjected(value) && messageBlocks(value).some((b) => b.kind === 'user')) lastUserSeq = s;
    } else if (value.type === 'compaction_state') {
      const blocks: Block[] = [];
      pushBlock(blocks, 'compaction', str(value.summaryText) || 'history compacted', { timestamp: toIso(value.timestamp), raw: { file: path, lines: [line] } });
      if (blocks[0]) compactions.push({ seq: s, block: blocks[0] });
    } else if (value.type === 'agent_turn_outcome') {
      lastOutcomeSeq = s;
      outcomes.push({ seq: s, end: outcomeEnd(value, { file: path, lines: [line] }) });
    }
  }
  reportSkipped(path, stats, warnFn);

  const blocks: Block[] = [];
  let next = 0;
  let outcome = 0;
  // An outcome ends the turn of the newest block written before it.
  const endBefore = (seq: number): void => {
    while (outcome < outcomes.length && outcomes[outcome]!.seq < seq) {
      const last = blocks.at(-1);
      if (last) last.ended = outcomes[outcome]!.end;
      outcome++;
    }
  };
  for (const node of tree.chain(leaf, () => true)) {
    while (next < compactions.length && compactions[next]!.seq < node.seq) blocks.push(compactions[next++]!.block);
    endBefore(node.seq);
    const own = messageBlocks(node.rec);
    const raw = { file: path, lines: [node.line] };
    for (const b of own) b.raw = raw;
    blocks.push(...own);
  }
  while (next < compactions.length) blocks.push(compactions[next++]!.block);
  endBefore(Infinity);
  labelToolOutputs(blocks);

  const times = blocks.map((b) => b.timestamp).filter((t): t is string => t !== undefined);
  const usage = settingsUsage(path);
  return {
    ...(usage ? { usage } : {}),
    id: str(header?.id) ?? basename(path).replace(/\.jsonl$/, ''),
    cwd: str(header?.cwd),
    title: str(header?.title)?.trim() || titleFrom(blocks.find((b) => b.kind === 'user')?.text),
    startedAt: times[0],
    updatedAt: times.at(-1),
    blocks,
    // A turn is over when Droid wrote its outcome after the newest prompt.
    lastTurnOpen: lastUserSeq >= 0 && lastOutcomeSeq < lastUserSeq,
  };
}

function summarize(path: string, size: number, mtimeMs: number): TranscriptSummary | undefined {
  const head = headRecords(path, HEAD_BYTES, size).filter(isObject);
  const header = head[0];
  if (!header || header.type !== 'session_start' || typeof header.id !== 'string') return undefined;
  const tail = size > HEAD_BYTES ? tailRecords(path, size, TAIL_BYTES).filter(isObject) : head;
  let updatedAt: string | undefined;
  let startedAt: string | undefined;
  let firstPrompt: string | undefined;
  for (const r of head) {
    if (r.type !== 'message') continue;
    startedAt ??= toIso(r.timestamp);
    firstPrompt ??= messageBlocks(r).find((b) => b.kind === 'user')?.text;
  }
  for (const r of tail) if (r.type === 'message') updatedAt = toIso(r.timestamp) ?? updatedAt;
  const cwd = str(header.cwd);
  return {
    provider: 'droid',
    id: header.id,
    location: path,
    cwd,
    cwds: cwd ? [cwd] : [],
    title: str(header.title)?.trim() || titleFrom(firstPrompt),
    startedAt,
    updatedAt: updatedAt ?? new Date(mtimeMs).toISOString(),
  };
}

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  yield* summariesInFolders(droidSessionsDir(opts.env), 'Factory Droid sessions', (name) => name.endsWith('.jsonl'), summarize, opts, opts.warn ?? warn);
}

export const droid: Provider = {
  name: 'droid',
  discover,
  dataLocation: droidSessionsDir,
  load: (summary, opts) => parseDroidFile(summary.location, opts.warn),
  detect(head) {
    const r = firstRecord(head);
    return isObject(r) && r.type === 'session_start' && typeof r.id === 'string' && 'cwd' in r;
  },
  loadFile: (path, opts) => parseDroidFile(path, opts.warn),
};
