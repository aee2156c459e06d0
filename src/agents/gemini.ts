// Gemini CLI chats (docs/formats.md): `<home>/.gemini/tmp/<projectId>/chats/session-*.jsonl`
// where `<home>` is $GEMINI_CLI_HOME or the OS home. A chat file mixes metadata headers, message
// records that are upserted by id, `$set` patches (a `messages` array replaces the history) and
// `$rewindTo` markers. One session may span several files (resumes write new ones), and legacy
// sessions are single JSON objects (`session-*.json`), superseded by a `.jsonl` sibling.
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { warn } from '../errors.js';
import { firstLine, headRecords, newJsonlStats, readJsonlNumbered, readRange, tailRecords } from '../session/jsonl.js';
import {
  expandHome, homeOf, imagePlaceholder, isObject, labelToolOutputs, prettyArgs, pushBlock, readDirQuiet,
  reportSkipped, statOrUndefined, str, titleFrom, toIso,
} from './common.js';
import type { Transcript, Block, DiscoverOptions, Provider, RawLocator, TranscriptSummary, TokenUsage } from './types.js';
import { tokenUsage } from './usage.js';

type Rec = Record<string, unknown>;
const HEAD_BYTES = 64 * 1024;
const TERMINAL_STATUS = new Set(['success', 'error', 'cancelled']);

export function geminiDir(env: NodeJS.ProcessEnv): string {
  const home = env.GEMINI_CLI_HOME ? expandHome(env.GEMINI_CLI_HOME, env) : homeOf(env);
  return join(home, '.gemini');
}

/** The project directory of each `tmp/<projectId>`: `.project_root` files and `projects.json`. */
function projectRoots(gemini: string): Map<string, string> {
  const roots = new Map<string, string>();
  try {
    const parsed = JSON.parse(readFileSync(join(gemini, 'projects.json'), 'utf8')) as unknown;
    const table = isObject(parsed) && isObject(parsed.projects) ? parsed.projects : parsed;
    if (isObject(table)) {
      for (const [k, v] of Object.entries(table)) {
        if (typeof v !== 'string') continue;
        if (k.startsWith('/') || /^[A-Za-z]:[\\/]/.test(k)) roots.set(v, k);
        else if (v.startsWith('/') || /^[A-Za-z]:[\\/]/.test(v)) roots.set(k, v);
      }
    }
  } catch {
    // no registry (older builds): sessions stay unbound unless a .project_root says more
  }
  return roots;
}

function projectRootOf(projectDir: string, registry: Map<string, string>): string | undefined {
  try {
    const root = readFileSync(join(projectDir, '.project_root'), 'utf8').trim();
    if (root) return root;
  } catch {
    // not written by this version
  }
  return registry.get(basename(projectDir));
}

function partsText(content: unknown, wantThoughts: boolean): string {
  if (typeof content === 'string') return wantThoughts ? '' : content;
  if (!Array.isArray(content)) return '';
  const out: string[] = [];
  for (const p of content) {
    if (typeof p === 'string') {
      if (!wantThoughts) out.push(p);
    } else if (isObject(p)) {
      if (typeof p.text === 'string' && (p.thought === true) === wantThoughts) out.push(p.text);
      else if (!wantThoughts && isObject(p.inlineData)) out.push(imagePlaceholder(str(p.inlineData.mimeType), p.inlineData.data));
    }
  }
  return out.join('\n');
}

/**
 * Gemini's `tokens`: `input` (the prompt) includes the `cached` part and leaves out `tool`
 * (tool-use prompt tokens); `output` leaves out `thoughts`. Reported as fresh input, output
 * with thoughts, and the cache read apart.
 */
function geminiUsage(t: unknown): TokenUsage | undefined {
  if (!isObject(t)) return undefined;
  return tokenUsage({ input: t.input, output: t.output, cacheRead: t.cached, reasoning: t.thoughts }, { inputHolds: ['cacheRead'], promptApart: t.tool, outputLacksReasoning: true });
}

/** run_shell_command's output lists `Exit Code: N` when the command did not exit 0 (older builds: always). */
const SHELL_EXIT = /^Exit Code: (-?\d+)\s*$/m;

function toolResult(call: Rec): { text: string; isError?: boolean } | undefined {
  const texts: string[] = [];
  let isError = call.status === 'error';
  if (Array.isArray(call.result)) {
    for (const part of call.result) {
      if (!isObject(part)) continue;
      const fr = isObject(part.functionResponse) ? part.functionResponse : undefined;
      if (fr) {
        const response = isObject(fr.response) ? fr.response : {};
        if (typeof response.output === 'string') texts.push(response.output);
        else if (response.error !== undefined) {
          texts.push(typeof response.error === 'string' ? response.error : prettyArgs(response.error));
          isError = true;
        } else texts.push(prettyArgs(response));
      } else if (typeof part.text === 'string') texts.push(part.text);
    }
  }
  if (texts.length === 0 && typeof call.resultDisplay === 'string') texts.push(call.resultDisplay);
  if (texts.length === 0) return undefined;
  return { text: texts.join('\n'), isError: isError || undefined };
}

/** User texts the CLI injects: the session context it starts with, the compression summary. */
function injected(text: string): 'context' | 'snapshot' | undefined {
  const t = text.trimStart();
  if (t.startsWith('<session_context>')) return 'context';
  if (t.startsWith('<state_snapshot>')) return 'snapshot';
  return undefined;
}

/** What a rewritten message says, whatever its id: role plus its text. */
function contentKey(m: unknown): string {
  if (!isObject(m)) return '';
  const text = partsText(m.content, false).trim();
  // tool responses carry no text: only their id can match them
  return text === '' ? `id:${String(m.id)}` : `${String(m.type)}\0${text}`;
}

/** Replays what Gemini does on load: upserts by id, `$set`, `$rewindTo`, headers merged. */
class ChatState {
  meta: Rec = {};
  messages = new Map<string, Rec>();
  firstHeader?: Rec;
  /** The record each message was read from (a message line, a `$set` line, a legacy document). */
  readonly where = new WeakMap<Rec, RawLocator>();
  /** The file and line being applied. */
  at?: { file: string; line?: number };

  private locate(m: Rec, pointer?: string): void {
    if (!this.at) return;
    if (this.at.line !== undefined) this.where.set(m, { file: this.at.file, lines: [this.at.line] });
    else if (pointer !== undefined) this.where.set(m, { file: this.at.file, pointers: [pointer] });
  }

  apply(r: Rec): void {
    if (typeof r.$rewindTo === 'string') {
      if (!this.messages.has(r.$rewindTo)) this.messages.clear();
      else {
        let cut = false;
        for (const key of [...this.messages.keys()]) {
          if (key === r.$rewindTo) cut = true;
          if (cut) this.messages.delete(key);
        }
      }
      return;
    }
    if (isObject(r.$set)) {
      Object.assign(this.meta, r.$set);
      if (Array.isArray(r.$set.messages)) {
        for (const m of r.$set.messages) if (isObject(m)) this.locate(m);
        this.merge(r.$set.messages);
      }
      return;
    }
    if (typeof r.id === 'string' && typeof r.type === 'string') {
      this.locate(r);
      this.messages.set(r.id, r);
      return;
    }
    if (typeof r.sessionId === 'string') {
      this.firstHeader ??= r;
      const { messages, ...rest } = r;
      Object.assign(this.meta, rest);
      if (Array.isArray(messages) && messages.length > 0) this.replace(messages); // legacy JSON
    }
  }

  private replace(messages: unknown[]): void {
    this.messages = new Map();
    messages.forEach((m, i) => {
      if (!isObject(m) || typeof m.id !== 'string') return;
      this.locate(m, `/messages/${i}`);
      this.messages.set(m.id, m);
    });
  }

  /**
   * `$set.messages` rewrites the history: on every resume (first with only the injected context,
   * then the whole history again, new ids for tool responses), and on compression (context, a
   * `<state_snapshot>` summary, the model's acknowledgement, the kept last exchange under new
   * ids). None of that is new dialogue, so nothing is dropped or repeated: known ids and known
   * texts stay where they were, a snapshot becomes a compaction at the point it was made.
   */
  private merge(messages: unknown[]): void {
    const known = new Set<string>();
    for (const m of this.messages.values()) known.add(contentKey(m));
    let afterSnapshot = false;
    for (const m of messages) {
      if (!isObject(m) || typeof m.id !== 'string') continue;
      const snapshot = m.type === 'user' && injected(partsText(m.content, false)) === 'snapshot';
      if (snapshot) {
        if (!this.messages.has(m.id)) {
          const compaction = { ...m, type: 'compaction' };
          const where = this.where.get(m);
          if (where) this.where.set(compaction, where);
          this.messages.set(m.id, compaction);
        }
        afterSnapshot = true;
        continue;
      }
      const ack = afterSnapshot && m.type === 'gemini';
      afterSnapshot = false;
      if (ack || this.messages.has(m.id)) continue;
      const key = contentKey(m);
      if (known.has(key)) continue;
      known.add(key);
      this.messages.set(m.id, m);
    }
  }

  blocks(): { blocks: Block[]; open: boolean } {
    const blocks: Block[] = [];
    let open = false;
    for (const m of this.messages.values()) {
      const timestamp = toIso(m.timestamp);
      const from = blocks.length;
      this.message(m, timestamp, blocks, (o) => (open = o));
      const raw = this.where.get(m);
      if (raw) for (let i = from; i < blocks.length; i++) blocks[i]!.raw = raw;
      if (m.type === 'gemini' && blocks.length > from) {
        const usage = geminiUsage(m.tokens);
        if (usage) blocks[from]!.usage = usage;
      }
    }
    labelToolOutputs(blocks);
    return { blocks, open };
  }

  private message(m: Rec, timestamp: string | undefined, blocks: Block[], setOpen: (open: boolean) => void): void {
    {
      if (m.type === 'compaction') {
        pushBlock(blocks, 'compaction', partsText(m.content, false), { timestamp });
      } else if (m.type === 'user') {
        const shown = m.displayContent !== undefined ? partsText(m.displayContent, false) : '';
        const text = shown.trim() ? shown : partsText(m.content, false);
        if (text.trim() === '') return; // tool responses riding in user records
        const context = injected(text);
        if (context === 'snapshot') pushBlock(blocks, 'compaction', text, { timestamp });
        if (context !== undefined) return;
        pushBlock(blocks, 'user', text, { timestamp });
        setOpen(true);
      } else if (m.type === 'gemini') {
        if (Array.isArray(m.thoughts)) {
          for (const t of m.thoughts) {
            if (!isObject(t)) continue;
            const subject = str(t.subject)?.trim();
            const description = str(t.description)?.trim();
            pushBlock(blocks, 'thinking', [subject, description].filter(Boolean).join('\n'), { timestamp: toIso(t.timestamp) ?? timestamp });
          }
        }
        pushBlock(blocks, 'thinking', partsText(m.content, true), { timestamp });
        const text = partsText(m.content, false);
        pushBlock(blocks, 'assistant', text, { timestamp });
        let pending = false;
        if (Array.isArray(m.toolCalls)) {
          for (const call of m.toolCalls) {
            if (!isObject(call)) continue;
            const label = str(call.name);
            const callId = str(call.id);
            pushBlock(blocks, 'tool_call', prettyArgs(call.args) || '{}', { timestamp: toIso(call.timestamp) ?? timestamp, label, callId });
            const result = toolResult(call);
            const exit = label === 'run_shell_command' && result ? SHELL_EXIT.exec(result.text) : null;
            if (result) pushBlock(blocks, 'tool_output', result.text, { timestamp: toIso(call.timestamp) ?? timestamp, label, callId, isError: result.isError, exitCode: exit ? Number(exit[1]) : undefined });
            if (!TERMINAL_STATUS.has(String(call.status))) pending = true;
          }
        }
        setOpen(pending || text.trim() === '');
      }
      // info / error / warning: UI notices, not dialogue
    }
  }
}

type ChatFile = { path: string; sessionId: string; legacy: boolean };

function headerOf(path: string, size: number): Rec | undefined {
  if (path.endsWith('.json')) {
    if (size <= 4 * 1024 * 1024) {
      try {
        const v = JSON.parse(readRange(path, 0, size)) as unknown;
        return isObject(v) ? v : undefined;
      } catch {
        return undefined;
      }
    }
    const head = readRange(path, 0, HEAD_BYTES);
    const id = /"sessionId"\s*:\s*"([^"]+)"/.exec(head)?.[1];
    return id ? { sessionId: id } : undefined;
  }
  const first = headRecords(path, HEAD_BYTES, size).find(isObject);
  return first && typeof first.sessionId === 'string' ? first : undefined;
}

/** Chat files of one project's `chats/` directory, with the session each belongs to. */
function chatFiles(chatsDir: string, say: (m: string) => void = warn): ChatFile[] {
  const files: ChatFile[] = [];
  for (const entry of readDirQuiet(chatsDir, 'Gemini CLI chats', say)) {
    if (!entry.isFile() || !entry.name.startsWith('session-')) continue;
    const legacy = entry.name.endsWith('.json');
    if (!legacy && !entry.name.endsWith('.jsonl')) continue;
    const path = join(chatsDir, entry.name);
    const st = statOrUndefined(path);
    if (!st) continue;
    try {
      const header = headerOf(path, st.size);
      if (header && typeof header.sessionId === 'string' && header.kind !== 'subagent') files.push({ path, sessionId: header.sessionId, legacy });
    } catch {
      warn(`cannot read ${path} — check its permissions`);
    }
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** The files holding one session, in write order: JSONL files when any exist, else the legacy JSON. */
function sessionFiles(files: ChatFile[], sessionId: string): string[] {
  const own = files.filter((f) => f.sessionId === sessionId);
  const jsonl = own.filter((f) => !f.legacy);
  return (jsonl.length > 0 ? jsonl : own).map((f) => f.path);
}

async function replay(paths: string[], warnFn: (m: string) => void): Promise<ChatState> {
  const state = new ChatState();
  for (const path of paths) {
    if (path.endsWith('.json')) {
      try {
        const v = JSON.parse(readFileSync(path, 'utf8')) as unknown;
        state.at = { file: path };
        if (isObject(v)) state.apply(v);
      } catch {
        warnFn(`cannot parse ${path} — skipped`);
      }
      continue;
    }
    const stats = newJsonlStats();
    for await (const { value, line } of readJsonlNumbered(path, stats)) {
      state.at = { file: path, line };
      if (isObject(value)) state.apply(value);
    }
    state.at = undefined;
    reportSkipped(path, stats, warnFn);
  }
  return state;
}

function sessionFrom(state: ChatState, fallbackId: string, cwd: string | undefined): Transcript {
  const { blocks, open } = state.blocks();
  const dirs = Array.isArray(state.meta.directories) ? state.meta.directories.filter((d): d is string => typeof d === 'string') : [];
  return {
    id: str(state.meta.sessionId) ?? fallbackId,
    cwd: cwd ?? dirs[0],
    title: str(state.meta.summary)?.trim() || titleFrom(blocks.find((b) => b.kind === 'user')?.text),
    startedAt: toIso(state.firstHeader?.startTime ?? state.meta.startTime),
    updatedAt: toIso(state.meta.lastUpdated) ?? blocks.at(-1)?.timestamp,
    blocks,
    lastTurnOpen: open,
  };
}

/** A user record's text when it is the user's own prompt (not a tool response or injected context). */
function promptOf(m: Rec): string | undefined {
  const text = partsText(m.content, false);
  return text.trim() === '' || injected(text) !== undefined ? undefined : text;
}

function summarizeFiles(paths: string[], sessionId: string, cwd: string | undefined): TranscriptSummary {
  let title: string | undefined;
  let firstPrompt: string | undefined;
  let startedAt: string | undefined;
  let updatedAt: string | undefined;
  let latestMtime = 0;
  for (const path of paths) {
    const st = statOrUndefined(path);
    if (!st) continue;
    latestMtime = Math.max(latestMtime, st.mtimeMs);
    const records = path.endsWith('.json') ? [headerOf(path, st.size) ?? {}] : [...headRecords(path, HEAD_BYTES, st.size), ...(st.size > HEAD_BYTES ? tailRecords(path, st.size, HEAD_BYTES) : [])];
    for (const r of records) {
      if (!isObject(r)) continue;
      const meta = isObject(r.$set) ? r.$set : typeof r.sessionId === 'string' ? r : undefined;
      if (meta) {
        if (str(meta.summary)?.trim()) title = str(meta.summary)!.trim();
        startedAt ??= toIso(meta.startTime);
        const last = toIso(meta.lastUpdated);
        if (last && (!updatedAt || last > updatedAt)) updatedAt = last;
        const messages = Array.isArray(meta.messages) ? meta.messages : [];
        for (const m of messages) if (firstPrompt === undefined && isObject(m) && m.type === 'user') firstPrompt = promptOf(m);
      } else if (firstPrompt === undefined && r.type === 'user') firstPrompt = promptOf(r);
      const ts = toIso(r.timestamp);
      if (ts && (!updatedAt || ts > updatedAt)) updatedAt = ts;
    }
  }
  return {
    provider: 'gemini',
    id: sessionId,
    location: paths[0]!,
    cwd,
    cwds: cwd ? [cwd] : [],
    title: title ?? titleFrom(firstPrompt),
    startedAt,
    updatedAt: updatedAt ?? new Date(latestMtime).toISOString(),
  };
}

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const gemini = geminiDir(opts.env);
  const tmp = join(gemini, 'tmp');
  const projects = readDirQuiet(tmp, 'Gemini CLI chats', opts.warn ?? warn).filter((d) => d.isDirectory());
  if (projects.length === 0) return;
  const registry = projectRoots(gemini);
  for (const project of projects) {
    const projectDir = join(tmp, project.name);
    const files = chatFiles(join(projectDir, 'chats'), opts.warn ?? warn);
    const cwd = projectRootOf(projectDir, registry);
    for (const sessionId of new Set(files.map((f) => f.sessionId))) {
      const paths = sessionFiles(files, sessionId);
      // One version for the whole set of files: newest mtime and total size.
      let m = 0;
      let size = 0;
      for (const p of paths) {
        const st = statOrUndefined(p);
        if (st) {
          m = Math.max(m, st.mtimeMs);
          size += st.size;
        }
      }
      const compute = () => summarizeFiles(paths, sessionId, cwd);
      const summary = opts.memo ? opts.memo.summary(paths[0]!, m, size, compute) : compute();
      if (summary) yield summary.cwd === cwd ? summary : { ...summary, cwd, cwds: cwd ? [cwd] : [] };
    }
  }
}

async function load(summary: TranscriptSummary, opts: DiscoverOptions): Promise<Transcript> {
  const paths = sessionFiles(chatFiles(dirname(summary.location)), summary.id);
  const state = await replay(paths.length > 0 ? paths : [summary.location], opts.warn ?? warn);
  return sessionFrom(state, summary.id, summary.cwd);
}

export const gemini: Provider = {
  name: 'gemini',
  discover,
  load,
  dataLocation: (env) => join(geminiDir(env), 'tmp'),
  detect(head) {
    const r = firstLine(head)?.value;
    if (isObject(r) && typeof r.sessionId === 'string' && ('projectHash' in r || 'startTime' in r)) return true;
    // Not a JSONL record: a legacy JSON object spans lines.
    return /^\s*\{/.test(head) && /"sessionId"\s*:/.test(head) && /"projectHash"\s*:/.test(head) && /"messages"\s*:/.test(head);
  },
  async loadFile(path, opts) {
    const state = await replay([path], opts.warn ?? warn);
    return sessionFrom(state, basename(path).replace(/\.jsonl?$/, ''), undefined);
  },
};
