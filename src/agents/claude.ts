// Claude Code transcripts (docs/formats.md): `<root>/projects/<slug>/<sessionId>.jsonl`, one
// line per content block, records chained by uuid/parentUuid. The live conversation is the chain
// from the newest dialogue record back to the root; abandoned branches and inline subagent
// (sidechain) traffic stay in the file but are not shown.
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { warn } from '../errors.js';
import { childPath } from '../files.js';
import { headRecords, newJsonlStats, readJsonlNumbered, tailRecords, textRecords } from '../session/jsonl.js';
import {
  expandHome, homeOf, imagePlaceholder, isInjectedText, isObject, labelToolOutputs, prettyArgs,
  pushBlock, readDirQuiet, reportSkipped, statOrUndefined, str, summariesInFolders, titleFrom, toIso,
  joinContent,
} from './common.js';
import type { Transcript, Block, DiscoverOptions, Provider, TranscriptSummary, TokenUsage, TurnEnd } from './types.js';
import { tokenUsage } from './usage.js';
import { UuidTree, type TreeNode } from './uuid-tree.js';

const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 64 * 1024;
const FINISHED_STOPS = new Set(['end_turn', 'stop_sequence', 'max_tokens']);

export function claudeRoot(env: NodeJS.ProcessEnv): string {
  const override = env.CLAUDE_CONFIG_DIR || env.CLAUDE_HOME;
  return override ? expandHome(override, env) : join(homeOf(env), '.claude');
}

type Rec = Record<string, unknown>;

const isDialogue = (r: Rec): boolean => (r.type === 'user' || r.type === 'assistant') && typeof r.uuid === 'string' && isObject(r.message);

/** What a user string means: a prompt, a slash command, the `!` shell mode, or harness noise. */
type UserText =
  | { kind: 'prompt'; text: string }
  | { kind: 'command'; text: string }
  | { kind: 'shell-input'; text: string }
  | { kind: 'shell-output'; text: string; isError: boolean }
  | { kind: 'local-stdout' }
  | { kind: 'task-result'; callId: string; text: string; isError: boolean }
  | { kind: 'noise' };

const tag = (text: string, name: string): string | undefined => {
  const m = new RegExp(`<${name}>([\\s\\S]*?)(?:</${name}>|$)`).exec(text);
  return m ? m[1] : undefined;
};

function classifyUserText(text: string): UserText {
  const t = text.trimStart();
  if (t.startsWith('<command-name>') || t.startsWith('<command-message>')) {
    const name = (tag(t, 'command-name') ?? '').trim();
    const args = (tag(t, 'command-args') ?? '').trim();
    if (name === '') return { kind: 'noise' };
    return { kind: 'command', text: (name.startsWith('/') ? name : `/${name}`) + (args ? ` ${args}` : '') };
  }
  if (t.startsWith('<local-command-stdout>') || t.startsWith('<local-command-stderr>')) return { kind: 'local-stdout' };
  if (t.startsWith('<task-notification>')) {
    // A background subagent finished: the harness delivers its result as a user message.
    const callId = tag(t, 'tool-use-id')?.trim();
    const result = (tag(t, 'result') ?? tag(t, 'summary') ?? '').trim();
    return callId ? { kind: 'task-result', callId, text: result, isError: (tag(t, 'status') ?? '').trim() === 'failed' } : { kind: 'noise' };
  }
  if (t.startsWith('<bash-input>')) return { kind: 'shell-input', text: tag(t, 'bash-input') ?? '' };
  if (t.startsWith('<bash-stdout>') || t.startsWith('<bash-stderr>')) {
    const out = tag(t, 'bash-stdout') ?? '';
    const err = tag(t, 'bash-stderr') ?? '';
    return { kind: 'shell-output', text: [out.trim(), err.trim()].filter(Boolean).join('\n'), isError: err.trim() !== '' };
  }
  if (isInjectedText(t)) return { kind: 'noise' };
  return { kind: 'prompt', text };
}

function toolResultText(content: unknown): string {
  return joinContent(content, (item) => {
    if (typeof item === 'string') return item;
    if (!isObject(item)) return undefined;
    if (item.type === 'text') return str(item.text) ?? '';
    const source = item.source as Rec | undefined;
    return item.type === 'image' ? imagePlaceholder(str(source?.media_type), source?.data) : undefined;
  });
}

/** Blocks of one user/assistant record, plus whether it is a slash command or its stdout. */
function recordBlocks(r: Rec): { blocks: Block[]; command?: boolean; localStdout?: boolean } {
  const message = r.message as Rec;
  const timestamp = str(r.timestamp);
  const blocks: Block[] = [];
  if (r.type === 'assistant') {
    const content = Array.isArray(message.content) ? message.content : [{ type: 'text', text: message.content }];
    for (const item of content) {
      if (!isObject(item)) continue;
      if (item.type === 'text') pushBlock(blocks, 'assistant', str(item.text), { timestamp, isError: r.isApiErrorMessage === true ? true : undefined });
      else if (item.type === 'thinking') pushBlock(blocks, 'thinking', str(item.thinking), { timestamp });
      else if (item.type === 'tool_use') pushBlock(blocks, 'tool_call', prettyArgs(item.input) || '{}', { timestamp, label: str(item.name), callId: str(item.id) });
    }
    return { blocks };
  }
  let command = false;
  let localStdout = false;
  const userParts: string[] = [];
  const onText = (text: string): void => {
    const c = classifyUserText(text);
    if (c.kind === 'prompt') userParts.push(c.text);
    else if (c.kind === 'command') {
      userParts.push(c.text);
      command = true;
    } else if (c.kind === 'shell-input') pushBlock(blocks, 'tool_call', c.text, { timestamp, label: 'bash' });
    else if (c.kind === 'shell-output') pushBlock(blocks, 'tool_output', c.text, { timestamp, label: 'bash', isError: c.isError || undefined });
    else if (c.kind === 'local-stdout') localStdout = true;
    else if (c.kind === 'task-result') pushBlock(blocks, 'tool_output', c.text, { timestamp, callId: c.callId, isError: c.isError || undefined });
  };
  const content = message.content;
  if (typeof content === 'string') onText(content);
  else if (Array.isArray(content)) {
    for (const item of content) {
      if (typeof item === 'string') onText(item);
      else if (!isObject(item)) continue;
      else if (item.type === 'text') onText(str(item.text) ?? '');
      else if (item.type === 'image' || item.type === 'document') {
        const source = isObject(item.source) ? item.source : {};
        userParts.push(imagePlaceholder(str(source.media_type), source.data, item.type));
      } else if (item.type === 'tool_result') {
        let text = toolResultText(item.content);
        if (text.trim() === '' && isObject(r.toolUseResult)) text = [str(r.toolUseResult.stdout), str(r.toolUseResult.stderr)].filter(Boolean).join('\n');
        pushBlock(blocks, 'tool_output', text, { timestamp, callId: str(item.tool_use_id), isError: item.is_error === true ? true : undefined });
      }
    }
  }
  if (userParts.length > 0) {
    const userBlocks: Block[] = [];
    pushBlock(userBlocks, 'user', userParts.join('\n'), { timestamp });
    blocks.unshift(...userBlocks);
  }
  return { blocks, command, localStdout };
}

type Node = TreeNode & {
  dialogue: boolean;
  sidechain: boolean;
  blocks: Block[];
  command?: boolean;
  localStdout?: boolean;
  stop?: unknown;
  type: string;
  /** The API message an assistant record belongs to (one record per content block shares it). */
  messageId?: string;
  usage?: TokenUsage;
  /** How the turn ended, when this record says so. */
  end?: TurnEnd;
};

/** Anthropic usage: input_tokens already excludes the cache reads and writes. */
export function anthropicUsage(u: unknown): TokenUsage | undefined {
  if (!isObject(u)) return undefined;
  return tokenUsage({ input: u.input_tokens, output: u.output_tokens, cacheRead: u.cache_read_input_tokens, cacheWrite: u.cache_creation_input_tokens });
}

/** What a dialogue record says about the end of its turn. */
function recordEnd(r: Rec, line: number, path: string): TurnEnd | undefined {
  const raw = { file: path, lines: [line] };
  const at = str(r.timestamp);
  const message = r.message as Rec;
  if (r.type === 'assistant') {
    if (r.isApiErrorMessage === true) return { state: 'error', evidence: `isApiErrorMessage: ${titleFrom(toolResultText(message.content) || str(message.content), 120) ?? 'API error'}`, raw, at };
    const stop = message.stop_reason;
    if (typeof stop === 'string' && FINISHED_STOPS.has(stop)) return { state: 'completed', evidence: `stop_reason: ${stop}`, raw, at };
    return undefined;
  }
  const content = message.content;
  const texts = typeof content === 'string' ? [content] : Array.isArray(content) ? content.map((c) => (isObject(c) && c.type === 'text' ? (str(c.text) ?? '') : '')) : [];
  const interrupted = texts.map((t) => t.trim()).find((t) => t.startsWith('[Request interrupted by user'));
  return interrupted ? { state: 'aborted', evidence: interrupted, raw, at } : undefined;
}

/** A failed Bash call's result begins with the code it exited with ("Exit code 2"); success records none. */
const BASH_EXIT = /^(?:Error: )?Exit code (-?\d+)\b/;

/** A subagent's own file (`<session>/subagents/agent-<id>.jsonl`): every record is a sidechain one. */
const isSubagentFile = (path: string): boolean => /[\\/]subagents[\\/]agent-[^\\/]+\.jsonl$/.test(path);

export async function parseClaudeFile(path: string, warnFn: (m: string) => void = warn): Promise<Transcript> {
  const ownSidechain = isSubagentFile(path);
  const stats = newJsonlStats();
  const nodes = new UuidTree<Node>();
  let seq = 0;
  let leaf: Node | undefined;
  let lastTurnDurationSeq = -1;
  let sawTurnDuration = false;
  let customTitle: string | undefined;
  let aiTitle: string | undefined;
  const summaries: { summary: string; leafUuid?: string }[] = [];
  let cwd: string | undefined;
  let startedAt: string | undefined;
  let updatedAt: string | undefined;

  const durations: { parent: string; end: TurnEnd }[] = [];

  for await (const { value, line } of readJsonlNumbered(path, stats)) {
    if (!isObject(value)) continue;
    const r = value;
    seq++;
    const ts = str(r.timestamp);
    if (r.type === 'custom-title' && str(r.customTitle)) customTitle = str(r.customTitle);
    else if (r.type === 'ai-title' && str(r.aiTitle)) aiTitle = str(r.aiTitle);
    else if (r.type === 'summary' && str(r.summary)) summaries.push({ summary: str(r.summary)!, leafUuid: str(r.leafUuid) });
    else if (r.type === 'system' && r.subtype === 'turn_duration') {
      lastTurnDurationSeq = seq;
      sawTurnDuration = true;
      const parent = str(r.parentUuid);
      if (parent) durations.push({ parent, end: { state: 'completed', evidence: 'turn_duration', raw: { file: path, lines: [line] }, at: ts } });
    }
    if (typeof r.uuid !== 'string') continue;
    const dialogue = isDialogue(r);
    const sidechain = r.isSidechain === true && !ownSidechain;
    const node: Node = {
      uuid: r.uuid,
      parent: str(r.parentUuid) ?? (r.type === 'system' ? str(r.logicalParentUuid) : undefined),
      seq,
      dialogue,
      sidechain,
      blocks: [],
      type: String(r.type),
    };
    if (dialogue && !sidechain) {
      cwd ??= str(r.cwd);
      if (ts) {
        startedAt ??= ts;
        updatedAt = ts;
      }
      // isMeta: slash-command expansions and caveats, in the chain but showing nothing;
      // isCompactSummary: the "continued from a previous conversation" summary, a compaction.
      // The CLI invents "<synthetic>" assistant records (e.g. "No response requested." after
      // /compact): not model replies, except API errors, which stay visible but flagged.
      const invented = r.type === 'assistant' && (r.message as Rec).model === '<synthetic>' && r.isApiErrorMessage !== true;
      if (r.isCompactSummary === true) pushBlock(node.blocks, 'compaction', joinContent((r.message as Rec).content, (p) => (isObject(p) && p.type === 'text' ? str(p.text) : undefined)), { timestamp: ts });
      else if (r.isMeta !== true && !invented) Object.assign(node, recordBlocks(r));
      const raw = { file: path, lines: [line] };
      for (const b of node.blocks) b.raw = raw;
      if (r.type === 'assistant') {
        node.stop = (r.message as Rec).stop_reason;
        node.messageId = str((r.message as Rec).id);
        if (!invented) node.usage = anthropicUsage((r.message as Rec).usage);
      }
      if (!invented || r.isApiErrorMessage === true) node.end = recordEnd(r, line, path);
      leaf = node;
    }
    nodes.add(node);
  }
  reportSkipped(path, stats, warnFn);

  const chain = nodes.chain(leaf, (n) => n.dialogue && !n.sidechain);
  const blocks: Block[] = [];
  let lastAssistant: Node | undefined;
  let commandBlock: Block | undefined;
  const lastBlockOf = new Map<string, number>();
  // Every record of one API message repeats its usage (the last is the most complete): it goes
  // once, on the message's first block.
  const usageOf = new Map<string, TokenUsage>();
  for (const node of chain) if (node.messageId && node.usage) usageOf.set(node.messageId, node.usage);
  for (const node of chain) {
    // A built-in command (/model, /clear …) answers with local stdout and no model work: no turn.
    if (node.localStdout && commandBlock !== undefined && blocks.at(-1) === commandBlock) blocks.pop();
    const first = node.blocks[0];
    if (first && node.messageId && usageOf.has(node.messageId)) {
      first.usage = usageOf.get(node.messageId);
      usageOf.delete(node.messageId);
    } else if (first && !node.messageId && node.usage) first.usage = node.usage;
    for (const b of node.blocks) blocks.push(b);
    if (node.end && blocks.length > 0) blocks.at(-1)!.ended = node.end;
    lastBlockOf.set(node.uuid, blocks.length - 1);
    if (node.command) commandBlock = node.blocks.find((b) => b.kind === 'user');
    if (node.type === 'assistant' && node.blocks.length > 0) lastAssistant = node;
  }
  labelToolOutputs(blocks);
  for (const d of durations) {
    const at = lastBlockOf.get(d.parent);
    if (at !== undefined && at >= 0) blocks[at]!.ended ??= d.end;
  }
  for (const b of blocks) {
    if (b.kind !== 'tool_output' || b.label !== 'Bash' || !b.isError) continue;
    const code = BASH_EXIT.exec(b.text);
    if (code) b.exitCode = Number(code[1]);
  }

  const last = blocks.at(-1);
  let lastTurnOpen = false;
  // A turn that ended in an API error has no successful reply: it is not "completed".
  if (last && (last.kind !== 'assistant' || last.isError)) lastTurnOpen = true;
  else if (last && lastAssistant) {
    const finished = lastTurnDurationSeq > lastAssistant.seq || (typeof lastAssistant.stop === 'string' && FINISHED_STOPS.has(lastAssistant.stop));
    // Older versions persisted stop_reason null and no turn_duration: final text means done.
    lastTurnOpen = !finished && sawTurnDuration;
  }

  const stem = basename(path).replace(/\.jsonl$/, '');
  const summary = summaries.filter((s) => s.leafUuid === undefined || nodes.has(s.leafUuid)).at(-1)?.summary;
  return {
    id: stem,
    cwd,
    title: customTitle ?? aiTitle ?? summary ?? titleFrom(blocks.find((b) => b.kind === 'user')?.text),
    startedAt,
    updatedAt,
    blocks,
    lastTurnOpen,
  };
}

function summarize(path: string, size: number, mtimeMs: number): TranscriptSummary | undefined {
  const subagent = isSubagentFile(path);
  const head = headRecords(path, HEAD_BYTES, size) as Rec[];
  const tail = size > HEAD_BYTES ? (tailRecords(path, size, TAIL_BYTES) as Rec[]) : head;
  let cwd: string | undefined;
  const cwds = new Set<string>();
  let startedAt: string | undefined;
  let updatedAt: string | undefined;
  let firstPrompt: string | undefined;
  let customTitle: string | undefined;
  let aiTitle: string | undefined;
  let innerId: string | undefined;
  let dialogue = 0;
  const uuids = new Set<string>();
  const summaries: { summary: string; leafUuid?: string }[] = [];
  for (const records of [head, tail]) {
    for (const r of records) {
      if (!isObject(r)) continue;
      if (typeof r.uuid === 'string') uuids.add(r.uuid);
      if (r.type === 'custom-title' && str(r.customTitle)) customTitle = str(r.customTitle);
      else if (r.type === 'ai-title' && str(r.aiTitle)) aiTitle = str(r.aiTitle);
      else if (records === head && r.type === 'summary' && str(r.summary)) summaries.push({ summary: str(r.summary)!, leafUuid: str(r.leafUuid) });
      if (!isDialogue(r) || (r.isSidechain === true && !subagent)) continue;
      dialogue++;
      innerId ??= str(r.sessionId);
      const c = str(r.cwd);
      if (c) {
        cwd ??= c;
        cwds.add(c);
      }
      const ts = toIso(r.timestamp);
      if (ts) {
        startedAt ??= ts;
        if (records === tail || tail === head) updatedAt = ts;
      }
      if (records === head && firstPrompt === undefined && r.type === 'user' && r.isMeta !== true && r.isCompactSummary !== true) {
        const user = recordBlocks(r).blocks.find((b) => b.kind === 'user');
        if (user) firstPrompt = user.text;
      }
    }
  }
  if (dialogue === 0) return undefined; // snapshots only, or an empty file: nothing to show
  const id = basename(path).replace(/\.jsonl$/, '');
  if (subagent) {
    // Listed under the session that launched it, titled by the task it was given (.meta.json).
    const parent = basename(dirname(dirname(path)));
    return {
      provider: 'claude',
      id,
      location: path,
      cwd,
      cwds: [...cwds],
      title: subagentDescription(path) ?? titleFrom(firstPrompt),
      startedAt,
      updatedAt: updatedAt ?? new Date(mtimeMs).toISOString(),
      parent,
    };
  }
  const summary = summaries.filter((s) => s.leafUuid === undefined || uuids.has(s.leafUuid)).at(-1)?.summary;
  return {
    provider: 'claude',
    id,
    location: path,
    cwd,
    cwds: [...cwds],
    title: customTitle ?? aiTitle ?? summary ?? titleFrom(firstPrompt),
    startedAt,
    updatedAt: updatedAt ?? new Date(mtimeMs).toISOString(),
    ...(innerId && innerId !== id ? { aliases: [innerId] } : {}),
  };
}

function subagentDescription(path: string): string | undefined {
  try {
    const meta = JSON.parse(readFileSync(path.replace(/\.jsonl$/, '.meta.json'), 'utf8')) as unknown;
    return isObject(meta) ? titleFrom(str(meta.description)) : undefined;
  } catch {
    return undefined; // no .meta.json (older layouts): the first prompt names it
  }
}

/** `<project>/<session>/subagents/agent-<id>.jsonl`: what each session's subagents wrote (2.1.2+). */
function* subagentSummaries(projects: string, opts: DiscoverOptions): Generator<TranscriptSummary> {
  // the session listing already reported folders it could not read
  const quiet = (): void => {};
  for (const project of readDirQuiet(projects, 'Claude Code sessions', quiet)) {
    if (!project.isDirectory()) continue;
    for (const session of readDirQuiet(childPath(projects, project.name), 'Claude Code sessions', quiet)) {
      if (!session.isDirectory()) continue;
      const dir = childPath(projects, project.name, session.name, 'subagents');
      for (const file of readDirQuiet(dir, 'Claude Code subagents', opts.warn ?? warn)) {
        if (!file.isFile() || !file.name.startsWith('agent-') || !file.name.endsWith('.jsonl')) continue;
        const path = childPath(dir, file.name);
        const st = statOrUndefined(path);
        if (!st) continue;
        try {
          const compute = (): TranscriptSummary | undefined => summarize(path, st.size, st.mtimeMs);
          const summary = opts.memo ? opts.memo.summary(path, st.mtimeMs, st.size, compute) : compute();
          if (summary) yield summary;
        } catch {
          // unreadable subagent file: its parent session still lists
        }
      }
    }
  }
}

function* discover(opts: DiscoverOptions): Generator<TranscriptSummary> {
  const projects = join(claudeRoot(opts.env), 'projects');
  // Flat agent-*.jsonl beside the sessions (2.0.28–2.1.1) carry no link to their session.
  const accept = (name: string): boolean => name.endsWith('.jsonl') && !name.startsWith('agent-');
  yield* summariesInFolders(projects, 'Claude Code sessions', accept, summarize, opts, opts.warn ?? warn);
  yield* subagentSummaries(projects, opts);
}

export const claude: Provider = {
  name: 'claude',
  discover,
  dataLocation: (env) => join(claudeRoot(env), 'projects'),
  // Projects, sessions and their subagents all lie below projects/ (a subagent's .meta.json is read with its file's summary).
  listingInputs: (env) => ({ trees: [join(claudeRoot(env), 'projects')], paths: [] }),
  load: (summary, opts) => parseClaudeFile(summary.location, opts.warn),
  currentSessionHint(env) {
    if (env.CLAUDE_TRANSCRIPT_PATH) return basename(env.CLAUDE_TRANSCRIPT_PATH).replace(/\.jsonl$/, '');
    return env.CLAUDE_CODE_SESSION_ID || env.CLAUDE_SESSION_ID || undefined;
  },
  detect(head) {
    return textRecords(head).some((r) => {
      if (!isObject(r)) return false;
      // Dialogue records carry parentUuid; a file may open with snapshots or summaries instead.
      // Qwen Code writes the same tree with Gemini-style `parts`: not a Claude transcript.
      if ((r.type === 'user' || r.type === 'assistant') && 'parentUuid' in r && typeof r.uuid === 'string') return !(isObject(r.message) && Array.isArray((r.message as Rec).parts));
      return (r.type === 'file-history-snapshot' && 'messageId' in r) || (r.type === 'summary' && 'leafUuid' in r);
    });
  },
  loadFile: (path, opts) => parseClaudeFile(path, opts.warn),
};
