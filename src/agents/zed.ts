// Zed's agent threads, from the schema in Zed's own source (crates/agent/src/db.rs and thread.rs);
// no genuine database here (Zed is an editor we cannot run): fixture-only. One SQLite file,
// `<data>/threads/threads.db`, where `<data>` is `~/Library/Application Support/Zed` on macOS,
// `%LOCALAPPDATA%\Zed` on Windows, and `$FLATPAK_XDG_DATA_HOME/zed`, else
// `${XDG_DATA_HOME:-~/.local/share}/zed` elsewhere (Zed has no variable of its own for it).
// Table `threads(id, summary, updated_at, data_type 'zstd'|'json', data)`, later also
// `parent_id` (a sub-agent's parent thread), `folder_paths` (newline-separated workspace
// folders) and `created_at`. The body is JSON, zstd-compressed in every row Zed writes today:
// - version 0.3.0: `messages: [{"User": {content: [{"Text": s} | {"Mention": {uri, content}} |
//   {"Image": …}]}} | {"Agent": {content: [{"Text": s} | {"Thinking": {text}} |
//   {"RedactedThinking": s} | {"ToolUse": {id, name, input}}], tool_results: {<id>: {tool_use_id,
//   tool_name, is_error, content}}}} | "Resume"]`
// - older bodies: `messages: [{role, segments: [{type: text|thinking, text}], tool_uses: [{id,
//   name, input}], tool_results: [{tool_use_id, is_error, content}]}]`, read the same way.
// A mention's content is the file Zed attached for the model, not the user's words: it is left
// out. Messages carry no timestamps; the row's times are the session's.
import { join } from 'node:path';
import { warn } from '../errors.js';
import { homeOf, imagePlaceholder, isObject, labelToolOutputs, prettyArgs, pushBlock, str, titleFrom, toIso } from './common.js';
import { columnsOf, withReadOnlyDb } from './sqlite.js';
import { jsonPointer } from './raw.js';
import type { Transcript, Block, DiscoverOptions, Provider, RawLocator, TranscriptSummary } from './types.js';
import { zstdDecompress } from './zstd.js';

type Rec = Record<string, unknown>;
const PREFIX = 'zed:';

export function zedDataDir(env: NodeJS.ProcessEnv): string {
  const home = homeOf(env);
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'Zed');
  if (process.platform === 'win32') return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'Zed');
  const flatpak = env.FLATPAK_XDG_DATA_HOME?.trim();
  if (flatpak) return join(flatpak, 'zed');
  return join(env.XDG_DATA_HOME?.trim() || join(home, '.local', 'share'), 'zed');
}

const dbPath = (env: NodeJS.ProcessEnv): string => join(zedDataDir(env), 'threads', 'threads.db');

/** Serde's externally tagged enum: `{"Text": "…"}` → ['Text', '…']; a bare string is a unit variant. */
function variant(v: unknown): [string, unknown] | undefined {
  if (typeof v === 'string') return [v, undefined];
  if (!isObject(v)) return undefined;
  const keys = Object.keys(v);
  return keys.length === 1 ? [keys[0]!, v[keys[0]!]] : undefined;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(resultText).filter(Boolean).join('\n');
  if (!isObject(content)) return '';
  if (typeof content.Text === 'string') return content.Text;
  if (typeof content.text === 'string') return content.text;
  if ('Image' in content) return imagePlaceholder(undefined);
  return '';
}

/** Where in the thread's document a value sits (a JSON pointer), as a raw locator; undefined when unlocated. */
type Locate = (pointer: string) => RawLocator | undefined;

function pushResult(blocks: Block[], r: unknown, raw: RawLocator | undefined): void {
  if (!isObject(r)) return;
  const failed = r.is_error === true;
  pushBlock(blocks, 'tool_output', resultText(r.content) || (failed ? 'error' : ''), { label: str(r.tool_name), callId: str(r.tool_use_id), isError: failed ? true : undefined, raw });
}

/** `at`: the message's pointer (`/messages/<i>`). */
function currentMessageBlocks(kind: string, body: unknown, blocks: Block[], at: string, locate: Locate): void {
  if (!isObject(body)) return;
  const content = Array.isArray(body.content) ? body.content : [];
  if (kind === 'User') {
    const texts: string[] = [];
    for (const part of content) {
      const [tag, value] = variant(part) ?? [];
      if (tag === 'Text' && typeof value === 'string') texts.push(value);
      else if (tag === 'Image') texts.push(imagePlaceholder(undefined));
    }
    pushBlock(blocks, 'user', texts.join('\n'), { raw: locate(at) });
    return;
  }
  const inner = `${at}/${kind}`;
  for (const [j, part] of content.entries()) {
    const [tag, value] = variant(part) ?? [];
    const raw = locate(`${inner}/content/${j}`);
    if (tag === 'Text') pushBlock(blocks, 'assistant', str(value), { raw });
    else if (tag === 'Thinking' && isObject(value)) pushBlock(blocks, 'thinking', str(value.text), { raw });
    else if (tag === 'ToolUse' && isObject(value)) pushBlock(blocks, 'tool_call', prettyArgs(value.input ?? value.raw_input) || '{}', { label: str(value.name), callId: str(value.id), raw });
  }
  const results = isObject(body.tool_results) ? Object.entries(body.tool_results) : [];
  for (const [key, r] of results) pushResult(blocks, r, locate(`${inner}/tool_results${jsonPointer(key)}`));
}

function legacyMessageBlocks(m: Rec, blocks: Block[], at: string, locate: Locate): void {
  const segments = Array.isArray(m.segments) ? m.segments : [];
  if (m.role === 'user') {
    pushBlock(blocks, 'user', segments.filter(isObject).filter((s) => s.type === 'text').map((s) => str(s.text) ?? '').join('\n'), { raw: locate(at) });
    return;
  }
  if (m.role !== 'assistant') return;
  for (const [j, s] of segments.entries()) {
    if (isObject(s)) pushBlock(blocks, s.type === 'thinking' ? 'thinking' : 'assistant', s.type === 'text' || s.type === 'thinking' ? str(s.text) : undefined, { raw: locate(`${at}/segments/${j}`) });
  }
  for (const [j, u] of (Array.isArray(m.tool_uses) ? m.tool_uses : []).entries()) {
    if (isObject(u)) pushBlock(blocks, 'tool_call', prettyArgs(u.input) || '{}', { label: str(u.name), callId: str(u.id), raw: locate(`${at}/tool_uses/${j}`) });
  }
  for (const [j, r] of (Array.isArray(m.tool_results) ? m.tool_results : []).entries()) pushResult(blocks, r, locate(`${at}/tool_results/${j}`));
}

/** `locate`: turns a JSON pointer into the thread's body into a raw locator (a block without one has none). */
export function zedThreadBlocks(thread: unknown, locate: Locate = () => undefined): { blocks: Block[]; lastIsUser: boolean } {
  const blocks: Block[] = [];
  let lastIsUser = false;
  const messages = isObject(thread) && Array.isArray(thread.messages) ? thread.messages : [];
  for (const [i, m] of messages.entries()) {
    if (isObject(m) && typeof m.role === 'string') {
      legacyMessageBlocks(m, blocks, `/messages/${i}`, locate);
      lastIsUser = m.role === 'user';
      continue;
    }
    const [kind, body] = variant(m) ?? [];
    if (kind === 'User' || kind === 'Agent') {
      currentMessageBlocks(kind, body, blocks, `/messages/${i}`, locate);
      lastIsUser = kind === 'User';
    }
    // "Resume" (the user asked to continue) and unknown variants carry no content.
  }
  labelToolOutputs(blocks);
  return { blocks, lastIsUser };
}

async function decodeBody(dataType: unknown, data: unknown): Promise<unknown> {
  const bytes = data instanceof Uint8Array ? data : typeof data === 'string' ? Buffer.from(data) : undefined;
  if (!bytes) return undefined;
  const plain = dataType === 'zstd' ? await zstdDecompress(bytes) : bytes;
  return JSON.parse(Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength).toString('utf8'));
}

type Row = { id: string; summary: string | null; updated_at: string | null; created_at?: string | null; folder_paths?: string | null; parent_id?: string | null };

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const rows = await withReadOnlyDb(dbPath(opts.env), 'the Zed threads database', (db) => {
    const cols = columnsOf(db, 'threads');
    if (!cols.has('id')) return [];
    const optional = ['created_at', 'folder_paths', 'parent_id'].filter((c) => cols.has(c));
    return db.prepare(`SELECT id, summary, updated_at${optional.map((c) => `, ${c}`).join('')} FROM threads`).all() as Row[];
  });
  for (const r of rows ?? []) {
    const cwds = (r.folder_paths ?? '').split('\n').filter(Boolean);
    const updatedAt = toIso(r.updated_at) ?? new Date(0).toISOString();
    yield {
      provider: 'zed',
      id: r.id,
      location: PREFIX + r.id,
      cwd: cwds[0],
      cwds,
      title: r.summary?.trim() || undefined,
      startedAt: toIso(r.created_at ?? undefined),
      updatedAt,
      // Zed rewrites the whole row on every save and stamps updated_at each time.
      version: r.updated_at ?? updatedAt,
      parent: r.parent_id ?? undefined,
    };
  }
}

async function load(summary: TranscriptSummary, opts: DiscoverOptions): Promise<Transcript> {
  const id = summary.location.startsWith(PREFIX) ? summary.location.slice(PREFIX.length) : summary.id;
  const warnFn = opts.warn ?? warn;
  const row = await withReadOnlyDb(dbPath(opts.env), 'the Zed threads database', (db) => db.prepare('SELECT data_type, data FROM threads WHERE id = ?').get(id) as { data_type: unknown; data: unknown } | undefined);
  let thread: unknown;
  if (row) {
    try {
      thread = await decodeBody(row.data_type, row.data);
    } catch (error) {
      warnFn(`cannot read Zed thread ${id} (${(error as Error).message}): its body is damaged`);
    }
  }
  const db = dbPath(opts.env);
  const compression = row?.data_type === 'zstd' ? { compression: 'zstd' as const } : {};
  const locate: Locate = (pointer) => ({ db, table: 'threads', column: 'id', ids: [id], document: { column: 'data', pointers: [pointer], ...compression } });
  const { blocks, lastIsUser } = zedThreadBlocks(thread, locate);
  const title = isObject(thread) ? str(thread.title) : undefined;
  return {
    id: summary.id,
    cwd: summary.cwd,
    title: summary.title ?? (title?.trim() || titleFrom(blocks.find((b) => b.kind === 'user')?.text)),
    startedAt: summary.startedAt,
    updatedAt: summary.updatedAt,
    blocks,
    lastTurnOpen: lastIsUser,
  };
}

export const zed: Provider = {
  name: 'zed',
  discover,
  load,
  dataLocation: dbPath,
  watchedPaths: (env) => [dbPath(env), `${dbPath(env)}-wal`],
};
