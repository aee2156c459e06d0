// Cursor's agent CLI: `<cursor>/projects/<slug>/agent-transcripts/**/<id>.jsonl` (one
// Anthropic-style message per line, user text in `<user_query>`), `.txt` in older builds
// (`user:`/`assistant:` sections with `[Thinking]`, `[Tool call] Name`, `[Tool result] Name`
// markers). `<cursor>` is $CURSOR_CONFIG_DIR, else $CURSOR_HOME, else ~/.cursor
// (docs/formats.md). Lines carry no ids, times or cwd: the id is the file stem, the time its
// mtime, the directory is read back from the slug (the path with separators as `-`) by checking
// which reading exists, and the title comes from the agent's `chats/<md5(cwd)>/<id>/store.db`
// (a `meta` row holding hex-encoded JSON), which is opened read-only and used for nothing else.
import { nodeCrypto } from '../session/lazy-crypto.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { warn } from '../errors.js';
import { newJsonlStats, readJsonlNumbered, textRecords } from '../session/jsonl.js';
import {
  expandHome, homeOf, imagePlaceholder, isInjectedText, isObject, joinContent, labelToolOutputs, prettyArgs, pushBlock, readDirQuiet, reportSkipped, statOrUndefined, str, titleFrom, toIso, UnreadableFiles, endsUnanswered,
} from './common.js';
import { columnsOf, openReadOnly } from './sqlite.js';
import type { Transcript, Block, DiscoverOptions, Provider, RawLocator, TranscriptSummary } from './types.js';

type Rec = Record<string, unknown>;

export function cursorHome(env: NodeJS.ProcessEnv): string {
  const override = env.CURSOR_CONFIG_DIR || env.CURSOR_HOME;
  return override ? expandHome(override, env) : join(homeOf(env), '.cursor');
}

const USER_ROLES = new Set(['user', 'human']);
const ASSISTANT_ROLES = new Set(['assistant', 'ai', 'model']);

function unwrapQuery(text: string): string | undefined {
  const t = text.trim();
  if (t.startsWith('<user_info>') || isInjectedText(t)) return undefined;
  const m = /<user_query>\n?([\s\S]*?)\n?<\/user_query>/.exec(t);
  return m ? m[1] : t;
}

function contentOf(r: Rec): unknown[] {
  const message = isObject(r.message) ? r.message : r;
  const content = message.content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

function resultText(content: unknown): string {
  return joinContent(content, (p) => (typeof p === 'string' ? p : isObject(p) && p.type === 'text' ? str(p.text) : undefined));
}

/** `file`: the transcript the records came from, for raw locators (one JSONL line per record). */
function jsonlBlocks(records: Iterable<{ value: unknown; line: number }>, file?: string): Block[] {
  const blocks: Block[] = [];
  for (const { value: r, line } of records) {
    if (!isObject(r)) continue;
    const from = blocks.length;
    const role = str(r.role) ?? str(r.type) ?? (isObject(r.message) ? str(r.message.role) : undefined) ?? '';
    for (const part of contentOf(r)) {
      if (!isObject(part)) continue;
      if (part.type === 'text') {
        const text = str(part.text) ?? '';
        if (USER_ROLES.has(role)) pushBlock(blocks, 'user', unwrapQuery(text));
        else if (ASSISTANT_ROLES.has(role)) pushBlock(blocks, 'assistant', text);
      } else if (part.type === 'thinking' || part.type === 'reasoning') pushBlock(blocks, 'thinking', str(part.thinking) ?? str(part.text));
      else if (part.type === 'tool_use' || part.type === 'tool-call' || part.type === 'toolCall') {
        pushBlock(blocks, 'tool_call', prettyArgs(part.input ?? part.args ?? part.arguments) || '{}', { label: str(part.name) ?? str(part.toolName), callId: str(part.id) ?? str(part.toolCallId) });
      } else if (part.type === 'tool_result' || part.type === 'tool-result') {
        pushBlock(blocks, 'tool_output', resultText(part.content ?? part.output ?? part.result), { callId: str(part.tool_use_id) ?? str(part.toolCallId), isError: part.is_error === true ? true : undefined });
      } else if (part.type === 'image') pushBlock(blocks, USER_ROLES.has(role) ? 'user' : 'assistant', imagePlaceholder(undefined, undefined));
    }
    if (file) for (let i = from; i < blocks.length; i++) blocks[i]!.raw = { file, lines: [line] };
  }
  labelToolOutputs(blocks);
  return blocks;
}

/** The plain-text transcripts of older builds; `file` for raw locators (a section's lines). */
export function textTranscriptBlocks(text: string, file?: string): Block[] {
  const blocks: Block[] = [];
  let role: 'user' | 'assistant' | undefined;
  let kind: 'user' | 'assistant' | 'thinking' | 'tool_call' | 'tool_output' | undefined;
  let label: string | undefined;
  let lines: string[] = [];
  // 1-based: the section's marker line, and the last line that is not blank.
  let first = 0;
  let last = 0;
  const flush = (): void => {
    if (kind) {
      const body = lines.join('\n');
      const raw: RawLocator | undefined = file && last >= first ? { file, lines: Array.from({ length: last - first + 1 }, (_, i) => first + i) } : undefined;
      pushBlock(blocks, kind, kind === 'user' ? unwrapQuery(body) : body, { label, raw });
    }
    lines = [];
    label = undefined;
  };
  for (const [i, line] of text.split('\n').entries()) {
    const section = /^(user|assistant):\s*$/.exec(line);
    const marker = /^\[(Thinking|Tool call|Tool result)\]\s*(.*)$/.exec(line);
    if (section) {
      flush();
      role = section[1] as 'user' | 'assistant';
      kind = role;
      first = last = i + 1;
    } else if (marker && role === 'assistant') {
      flush();
      kind = marker[1] === 'Thinking' ? 'thinking' : marker[1] === 'Tool call' ? 'tool_call' : 'tool_output';
      first = last = i + 1;
      if (kind === 'thinking') lines.push(marker[2]!);
      else label = marker[2]!.trim() || undefined;
    } else {
      lines.push(line);
      if (line.trim() !== '') last = i + 1;
    }
  }
  flush();
  labelToolOutputs(blocks);
  return blocks;
}

/** The directory a project slug stands for, when exactly one reading of it exists here. */
export function cwdFromSlug(slug: string): string | undefined {
  const parts = slug.replace(/^-+/, '').split('-').filter((p) => p !== '');
  if (parts.length === 0) return undefined;
  const root = sep === '/' ? '/' : '';
  // Depth-first: a dash is either a separator or part of a name; keep readings that exist.
  const walk = (dir: string, i: number): string | undefined => {
    if (i === parts.length) return dir;
    for (let j = parts.length; j > i; j--) {
      const next = join(dir, parts.slice(i, j).join('-'));
      let isDir = false;
      try {
        isDir = statSync(next).isDirectory();
      } catch {
        continue;
      }
      if (isDir) {
        const found = walk(next, j);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(root, 0);
}

/** The name Cursor shows for an agent chat, from its store.db; undefined when anything is off. */
async function storeTitle(home: string, cwd: string | undefined, id: string): Promise<string | undefined> {
  if (!cwd) return undefined;
  const db = join(home, 'chats', nodeCrypto().createHash('md5').update(cwd).digest('hex'), id, 'store.db');
  if (!existsSync(db)) return undefined;
  try {
    const conn = await openReadOnly(db);
    try {
      if (!columnsOf(conn, 'meta').has('value')) return undefined;
      const row = conn.prepare(`SELECT value FROM meta WHERE key = '0'`).get() as { value?: unknown } | undefined;
      const raw = typeof row?.value === 'string' ? row.value : Buffer.isBuffer(row?.value) ? row.value.toString('utf8') : undefined;
      if (!raw) return undefined;
      const json = /^[0-9a-f]+$/i.test(raw) ? Buffer.from(raw, 'hex').toString('utf8') : raw;
      const meta = JSON.parse(json) as unknown;
      return isObject(meta) ? str(meta.name)?.trim() || undefined : undefined;
    } finally {
      conn.close();
    }
  } catch {
    return undefined;
  }
}

type Found = { path: string; slug: string; id: string };

function slugOf(path: string, projects: string): string {
  return path.slice(projects.length + 1).split(/[\\/]/)[0]!;
}

const stemOf = (path: string): string => basename(path).replace(/\.(jsonl|txt)$/, '');

async function parse(path: string, warnFn: (m: string) => void): Promise<Block[]> {
  if (path.endsWith('.txt')) return textTranscriptBlocks(readFileSync(path, 'utf8'), path);
  const stats = newJsonlStats();
  const records: { value: unknown; line: number }[] = [];
  for await (const r of readJsonlNumbered(path, stats)) records.push(r);
  reportSkipped(path, stats, warnFn);
  return jsonlBlocks(records, path);
}

async function loadCursor(path: string, env: NodeJS.ProcessEnv, warnFn: (m: string) => void): Promise<Transcript> {
  const home = cursorHome(env);
  const projects = join(home, 'projects');
  const blocks = await parse(path, warnFn);
  const cwd = path.startsWith(projects + sep) ? cwdFromSlug(slugOf(path, projects)) : undefined;
  const id = stemOf(path);
  const mtime = toIso(statOrUndefined(path)?.mtimeMs);
  return {
    id,
    cwd,
    title: (await storeTitle(home, cwd, id)) ?? titleFrom(blocks.find((b) => b.kind === 'user')?.text),
    updatedAt: mtime,
    blocks,
    // no completion records: a transcript ending in the assistant's text is taken as answered
    lastTurnOpen: endsUnanswered(blocks),
  };
}

function* transcripts(dir: string, slug: string, say: (m: string) => void): Generator<Found> {
  for (const e of readDirQuiet(dir, 'Cursor transcripts', say)) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'subagents') yield* transcripts(path, slug, say); // subagents belong to their parent
    } else if (e.name.endsWith('.jsonl') || e.name.endsWith('.txt')) yield { path, slug, id: stemOf(path) };
  }
}

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const say = opts.warn ?? warn;
  const home = cursorHome(opts.env);
  const projects = join(home, 'projects');
  const unreadable = new UnreadableFiles();
  for (const project of readDirQuiet(projects, 'Cursor projects', say)) {
    if (!project.isDirectory()) continue;
    for (const found of transcripts(join(projects, project.name, 'agent-transcripts'), project.name, say)) {
      const st = statOrUndefined(found.path);
      if (!st) continue;
      try {
        let summary: TranscriptSummary | undefined;
        if (opts.memo?.has?.(found.path, st.mtimeMs, st.size)) summary = opts.memo.summary(found.path, st.mtimeMs, st.size, () => undefined);
        else {
          const session = await loadCursor(found.path, opts.env, () => undefined);
          const computed: TranscriptSummary | undefined = session.blocks.some((b) => b.kind === 'user')
            ? { provider: 'cursor', id: session.id, location: found.path, cwd: session.cwd, cwds: session.cwd ? [session.cwd] : [], title: session.title, updatedAt: session.updatedAt ?? new Date(st.mtimeMs).toISOString() }
            : undefined;
          summary = opts.memo ? opts.memo.summary(found.path, st.mtimeMs, st.size, () => computed) : computed;
        }
        if (summary) yield summary;
      } catch (error) {
        unreadable.add(found.path, error);
      }
    }
  }
  unreadable.report('Cursor transcripts', say);
}

export const cursor: Provider = {
  name: 'cursor',
  discover,
  dataLocation: (env) => join(cursorHome(env), 'projects'),
  load: (summary, opts) => loadCursor(summary.location, opts.env, opts.warn ?? warn),
  detect(head, path) {
    if (!path.includes('agent-transcripts')) return false;
    return textRecords(head, newJsonlStats(), { cutTail: true }).some((r) => isObject(r) && typeof r.role === 'string' && isObject(r.message) && !('uuid' in r));
  },
  loadFile: (path, opts) => loadCursor(path, opts.env, opts.warn ?? warn),
};
