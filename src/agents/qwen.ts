// Qwen Code chats: `<runtime>/projects/<sanitised cwd>/chats/<sessionId>.jsonl`, where `<runtime>`
// is $QWEN_RUNTIME_DIR, else $QWEN_HOME, else ~/.qwen (docs/formats.md). Each line is a record
// of a uuid/parentUuid tree like Claude Code's, but messages use Gemini-style `parts`
// (text, `thought` text, functionCall, functionResponse). Tool results are records of their own
// with the shell's clean output in `toolCallResult.resultDisplay`. A fork copies the parent's
// records (each marked `forkedFrom`) into a file of its own id.
import { basename, join } from 'node:path';
import { warn } from '../errors.js';
import { headRecords, newJsonlStats, readJsonlNumbered, tailRecords, textRecords } from '../session/jsonl.js';
import { expandHome, homeOf, isInjectedText, isObject, labelToolOutputs, prettyArgs, pushBlock, readDirQuiet, reportSkipped, str, titleFrom, toIso, summariesOfFiles } from './common.js';
import type { Transcript, Block, TokenUsage, DiscoverOptions, Provider, TranscriptSummary } from './types.js';
import { tokenUsage } from './usage.js';
import { UuidTree, type TreeNode } from './uuid-tree.js';

type Rec = Record<string, unknown>;

const HEAD_BYTES = 64 * 1024;
// Qwen re-appends its metadata (title) every 32 KB, so 64 KB from the end always holds it.
const TAIL_BYTES = 64 * 1024;

export function qwenRuntimeDir(env: NodeJS.ProcessEnv): string {
  const override = env.QWEN_RUNTIME_DIR?.trim() || env.QWEN_HOME?.trim();
  return override ? expandHome(override, env) : join(homeOf(env), '.qwen');
}

const isDialogue = (r: Rec): boolean => (r.type === 'user' || r.type === 'assistant' || r.type === 'tool_result') && typeof r.uuid === 'string';
const isCompression = (r: Rec): boolean => r.type === 'system' && r.subtype === 'chat_compression';

/** A user record the human typed (not a harness-injected one). */
function isRealUser(r: Rec): boolean {
  if (r.type !== 'user') return false;
  const provenance = str(r.provenance);
  return provenance === undefined || provenance === 'real_user';
}

function partsOf(r: Rec): Rec[] {
  const message = r.message;
  if (!isObject(message) || !Array.isArray(message.parts)) return [];
  return message.parts.filter(isObject);
}

function userText(r: Rec): string {
  return partsOf(r)
    .map((p) => (typeof p.text === 'string' && p.thought !== true ? p.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

/** The tool output a person wants: the shell's own output when Qwen kept it apart. */
function toolOutputText(part: Rec, result: Rec | undefined): string {
  const display = result && isObject(result.resultDisplay) ? result.resultDisplay : undefined;
  if (display && display.type === 'shell_result') {
    const out = str(display.output) ?? str(display.text);
    const err = str(display.error);
    if (out !== undefined || err) return [out ?? '', err ?? ''].filter((t) => t !== '').join('\n');
  }
  const response = isObject(part.functionResponse) ? part.functionResponse.response : undefined;
  if (isObject(response)) {
    if (typeof response.output === 'string') return response.output;
    if (typeof response.error === 'string') return response.error;
  }
  return prettyArgs(response);
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * `usageMetadata` as the Gemini API gives it: the prompt count includes the cached part and
 * leaves out the tool-use prompt, the candidates leave out the thoughts; reported as fresh input
 * (the tool-use prompt with it, as Gemini CLI's `tokens.tool` is), output with thoughts, cache apart.
 */
function qwenUsage(u: unknown): TokenUsage | undefined {
  if (!isObject(u)) return undefined;
  return tokenUsage(
    { input: u.promptTokenCount, output: u.candidatesTokenCount, cacheRead: u.cachedContentTokenCount, reasoning: u.thoughtsTokenCount },
    { inputHolds: ['cacheRead'], promptApart: u.toolUsePromptTokenCount, outputLacksReasoning: true },
  );
}

function recordBlocks(r: Rec): Block[] {
  const blocks: Block[] = [];
  const timestamp = toIso(r.timestamp);
  if (r.type === 'user') {
    if (!isRealUser(r)) return blocks;
    const text = userText(r);
    if (!isInjectedText(text)) pushBlock(blocks, 'user', text, { timestamp });
    return blocks;
  }
  if (r.type === 'assistant') {
    for (const p of partsOf(r)) {
      if (typeof p.text === 'string') pushBlock(blocks, p.thought === true ? 'thinking' : 'assistant', p.text, { timestamp });
      else if (isObject(p.functionCall)) {
        const call = p.functionCall;
        pushBlock(blocks, 'tool_call', prettyArgs(call.args) || '{}', { timestamp, label: str(call.name), callId: str(call.id) });
      }
    }
    return blocks;
  }
  if (r.type === 'system' && r.subtype === 'chat_compression') {
    // The summary the model wrote replaces the history before it: shown as the compaction.
    const payload = isObject(r.systemPayload) ? r.systemPayload : undefined;
    const history = Array.isArray(payload?.compressedHistory) ? payload.compressedHistory.filter(isObject) : [];
    const summary = history.find((m) => m.role === 'user');
    const text = summary ? userText({ message: summary }) : '';
    pushBlock(blocks, 'compaction', text.replace(/\n\nResume the prior task[\s\S]*$/, '') || 'history compressed', { timestamp });
    return blocks;
  }
  if (r.type === 'tool_result') {
    const result = isObject(r.toolCallResult) ? r.toolCallResult : undefined;
    for (const p of partsOf(r)) {
      if (!isObject(p.functionResponse)) continue;
      const response = p.functionResponse;
      const failed = result?.status === 'error' || (isObject(response.response) && typeof response.response.error === 'string');
      const display = result && isObject(result.resultDisplay) ? result.resultDisplay : undefined;
      pushBlock(blocks, 'tool_output', toolOutputText(p, result), {
        timestamp,
        label: str(response.name),
        callId: str(response.id) ?? str(result?.callId),
        isError: failed ? true : undefined,
        exitCode: display?.type === 'shell_result' ? num(display.exitCode) : undefined,
      });
    }
  }
  return blocks;
}

type Node = TreeNode & { rec: Rec; dialogue: boolean; line: number };

function titleOf(r: Rec): string | undefined {
  if (r.type !== 'system' || r.subtype !== 'custom_title') return undefined;
  const payload = isObject(r.systemPayload) ? r.systemPayload : undefined;
  return (str(payload?.customTitle) ?? str(payload?.title) ?? str(r.customTitle))?.trim() || undefined;
}

export async function parseQwenFile(path: string, warnFn: (m: string) => void = warn): Promise<Transcript> {
  const stats = newJsonlStats();
  const tree = new UuidTree<Node>();
  let leaf: Node | undefined;
  let seq = 0;
  let title: string | undefined;
  let sessionId: string | undefined;
  for await (const { value, line } of readJsonlNumbered(path, stats)) {
    if (!isObject(value)) continue;
    title = titleOf(value) ?? title;
    if (typeof value.uuid !== 'string') continue;
    sessionId ??= str(value.sessionId);
    const node: Node = { uuid: value.uuid, parent: str(value.parentUuid), seq: seq++, rec: value, dialogue: isDialogue(value) && value.isSidechain !== true, line };
    tree.add(node);
    if (node.dialogue) leaf = node;
    else if (isCompression(value)) node.dialogue = true; // on the chain, shown, but never a leaf
  }
  reportSkipped(path, stats, warnFn);

  const chain = tree.chain(leaf, (n) => n.dialogue);
  const blocks: Block[] = [];
  let cwd: string | undefined;
  let startedAt: string | undefined;
  let updatedAt: string | undefined;
  for (const node of chain) {
    const own = recordBlocks(node.rec);
    const raw = { file: path, lines: [node.line] };
    for (const b of own) b.raw = raw;
    const usage = node.rec.type === 'assistant' ? qwenUsage(node.rec.usageMetadata) : undefined;
    if (usage && own[0]) own[0].usage = usage;
    blocks.push(...own);
    cwd ??= str(node.rec.cwd);
    const ts = toIso(node.rec.timestamp);
    if (ts) {
      startedAt ??= ts;
      updatedAt = ts;
    }
  }
  labelToolOutputs(blocks);
  // The turn is over when the newest record is the model's text answer with no tool call pending.
  const lastRec = chain.at(-1)?.rec;
  const lastOpen = !lastRec || lastRec.type !== 'assistant' || partsOf(lastRec).some((p) => isObject(p.functionCall));
  return {
    id: sessionId ?? basename(path).replace(/\.jsonl$/, ''),
    cwd,
    title: title ?? titleFrom(blocks.find((b) => b.kind === 'user')?.text),
    startedAt,
    updatedAt,
    blocks,
    lastTurnOpen: blocks.length > 0 && lastOpen,
  };
}

function summarize(path: string, size: number, mtimeMs: number): TranscriptSummary | undefined {
  const head = headRecords(path, HEAD_BYTES, size).filter(isObject);
  const tail = size > HEAD_BYTES ? tailRecords(path, size, TAIL_BYTES).filter(isObject) : head;
  let id: string | undefined;
  let cwd: string | undefined;
  const cwds = new Set<string>();
  let startedAt: string | undefined;
  let updatedAt: string | undefined;
  let firstPrompt: string | undefined;
  let title: string | undefined;
  let dialogue = 0;
  for (const records of [head, tail]) {
    for (const r of records) {
      title = titleOf(r) ?? title;
      if (!isDialogue(r)) continue;
      dialogue++;
      id ??= str(r.sessionId);
      const c = str(r.cwd);
      if (c) {
        cwd ??= c;
        cwds.add(c);
      }
      const ts = toIso(r.timestamp);
      if (ts) {
        startedAt ??= ts;
        updatedAt = ts;
      }
      if (firstPrompt === undefined && isRealUser(r)) {
        const text = userText(r);
        if (text.trim() !== '' && !isInjectedText(text)) firstPrompt = text;
      }
    }
    if (tail === head) break;
  }
  if (dialogue === 0) return undefined;
  return {
    provider: 'qwen',
    id: id ?? basename(path).replace(/\.jsonl$/, ''),
    location: path,
    cwd,
    cwds: [...cwds],
    title: title ?? titleFrom(firstPrompt),
    startedAt,
    updatedAt: updatedAt ?? new Date(mtimeMs).toISOString(),
  };
}

/** `<projects>/<sanitised cwd>/chats/<id>.jsonl` (the `archive/` beside them is left alone). */
function* chatFiles(projects: string, say: (m: string) => void): Generator<string> {
  for (const project of readDirQuiet(projects, 'Qwen Code sessions', say)) {
    if (!project.isDirectory()) continue;
    const chats = join(projects, project.name, 'chats');
    for (const file of readDirQuiet(chats, 'Qwen Code sessions', say)) if (file.isFile() && file.name.endsWith('.jsonl')) yield join(chats, file.name);
  }
}

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const say = opts.warn ?? warn;
  yield* summariesOfFiles(chatFiles(join(qwenRuntimeDir(opts.env), 'projects'), say), 'Qwen Code sessions', summarize, opts, say);
}

export const qwen: Provider = {
  name: 'qwen',
  discover,
  dataLocation: (env) => join(qwenRuntimeDir(env), 'projects'),
  load: (summary, opts) => parseQwenFile(summary.location, opts.warn),
  detect(head) {
    return textRecords(head).some((r) => isObject(r) && typeof r.uuid === 'string' && 'parentUuid' in r && isObject(r.message) && Array.isArray((r.message as Rec).parts));
  },
  loadFile: (path, opts) => parseQwenFile(path, opts.warn),
};
