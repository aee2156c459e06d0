// OpenCode and its fork Kilo CLI (docs/formats.md): one SQLite database each,
// `$XDG_DATA_HOME/opencode/opencode.db` and `$XDG_DATA_HOME/kilo/kilo.db` (WAL). Sessions,
// messages and parts are rows whose `data` column is JSON. Read-only; columns are probed because
// the schema drifts. Sub-agent (child) and archived sessions are not listed. One reader serves
// both: `openCodeFamily` is parameterised by where the database lives and what it is called.
import type { Database } from 'better-sqlite3';
import { join } from 'node:path';
import { warn } from '../errors.js';
import { expandHome, homeOf, isObject, isoFromMs, labelToolOutputs, prettyArgs, pushBlock, statOrUndefined, str, titleFrom } from './common.js';
import { columnsOf, openReadOnly } from './sqlite.js';
import type { Transcript, Block, DiscoverOptions, Provider, RawLocator, TranscriptSummary, TokenUsage, TurnEnd } from './types.js';
import { tokenUsage } from './usage.js';

type Rec = Record<string, unknown>;
const dataHome = (env: NodeJS.ProcessEnv): string => (env.XDG_DATA_HOME ? expandHome(env.XDG_DATA_HOME, env) : join(homeOf(env), '.local', 'share'));

export function opencodeDb(env: NodeJS.ProcessEnv): string {
  if (env.OPENCODE_DB_PATH) return expandHome(env.OPENCODE_DB_PATH, env);
  return join(dataHome(env), 'opencode', 'opencode.db');
}

export function kiloDb(env: NodeJS.ProcessEnv): string {
  return join(dataHome(env), 'kilo', 'kilo.db');
}

/** What differs between members of the family. */
type Family = { name: 'opencode' | 'kilo'; label: string; dbPath: (env: NodeJS.ProcessEnv) => string };

async function withDb<T>(family: Family, env: NodeJS.ProcessEnv, use: (db: Database) => T): Promise<T | undefined> {
  const path = family.dbPath(env);
  if (!statOrUndefined(path)) return undefined;
  let db: Database;
  try {
    db = await openReadOnly(path);
  } catch (error) {
    warn(`cannot open the ${family.label} database ${path} (${(error as Error).message}) — check its permissions`);
    return undefined;
  }
  try {
    return use(db);
  } finally {
    db.close();
  }
}

const parseJson = (text: unknown): Rec => {
  if (typeof text !== 'string') return {};
  try {
    const v = JSON.parse(text) as unknown;
    return isObject(v) ? v : {};
  } catch {
    return {};
  }
};

/** Both write "New session - <ISO time>" until a title is generated (Kilo never does in `run`). */
const PLACEHOLDER_TITLE = /^New session - \d{4}-\d{2}-\d{2}T/;
const realTitle = (title: string | undefined): string | undefined => (title && !PLACEHOLDER_TITLE.test(title) ? title : undefined);

async function* discover(family: Family, opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const prefix = `${family.name}:`;
  const rows = await withDb(family, opts.env, (db) => {
    const cols = columnsOf(db, 'session');
    if (!cols.has('id')) return [];
    const pick = (c: string): string => (cols.has(c) ? c : 'NULL');
    const where = [cols.has('parent_id') ? 'parent_id IS NULL' : '1', cols.has('time_archived') ? 'time_archived IS NULL' : '1'].join(' AND ');
    try {
      const rows = db.prepare(`SELECT id, ${pick('directory')} AS directory, ${pick('title')} AS title, ${pick('time_created')} AS created, ${pick('time_updated')} AS updated FROM session WHERE ${where}`).all() as Rec[];
      // An untitled session is listed by its first prompt, read only when the memo lacks it.
      for (const r of rows) {
        const updated = typeof r.updated === 'number' ? r.updated : typeof r.created === 'number' ? r.created : 0;
        if (realTitle(str(r.title)) !== undefined || opts.memo?.has?.(prefix + String(r.id), updated, 0)) continue;
        r.first = titleFrom(openCodeBlocks(loadMessages(db, String(r.id), 8)).blocks.find((b) => b.kind === 'user')?.text);
      }
      return rows;
    } catch (error) {
      warn(`cannot read ${family.label} sessions (${(error as Error).message}) — the database schema may be newer than this sivtr`);
      return [];
    }
  });
  for (const r of rows ?? []) {
    const id = String(r.id);
    const untitled = realTitle(str(r.title)) === undefined;
    const cwd = str(r.directory);
    const updated = typeof r.updated === 'number' ? r.updated : typeof r.created === 'number' ? r.created : 0;
    const summary: TranscriptSummary = {
      provider: family.name,
      id,
      location: prefix + id,
      cwd,
      cwds: cwd ? [cwd] : [],
      title: realTitle(str(r.title)) ?? (untitled ? str(r.first) : undefined),
      startedAt: typeof r.created === 'number' ? isoFromMs(r.created) : undefined,
      updatedAt: isoFromMs(updated),
      version: isoFromMs(updated),
    };
    // Keyed by time_updated, which OpenCode bumps on every change: lets the turn count be cached.
    yield opts.memo?.summary(summary.location, updated, 0, () => summary) ?? summary;
  }
}

type Message = { id: string; at?: string; data: Rec; parts: Rec[]; partIds: string[] };

function loadMessages(db: Database, sessionId: string, limit?: number): Message[] {
  const mcols = columnsOf(db, 'message');
  const pcols = columnsOf(db, 'part');
  const order = mcols.has('time_created') ? 'time_created, id' : 'id';
  const messages = (db.prepare(`SELECT id, ${mcols.has('time_created') ? 'time_created' : 'NULL'} AS created, data FROM message WHERE session_id = ? ORDER BY ${order}${limit ? ` LIMIT ${limit}` : ''}`).all(sessionId) as Rec[]).map(
    (r): Message => ({ id: String(r.id), at: typeof r.created === 'number' ? isoFromMs(r.created) : undefined, data: parseJson(r.data), parts: [], partIds: [] }),
  );
  const byId = new Map(messages.map((m) => [m.id, m]));
  const partSql = pcols.has('session_id')
    ? `SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY ${pcols.has('time_created') ? 'time_created, id' : 'id'}`
    : `SELECT part.id AS id, part.message_id AS message_id, part.data AS data FROM part JOIN message ON message.id = part.message_id WHERE message.session_id = ? ORDER BY part.id`;
  for (const r of db.prepare(partSql).all(sessionId) as Rec[]) {
    const m = byId.get(String(r.message_id));
    if (!m) continue;
    m.parts.push(parseJson(r.data));
    m.partIds.push(String(r.id));
  }
  return messages;
}

function filePlaceholder(part: Rec): string {
  return `[file: ${str(part.mime) ?? 'unknown'}${part.filename ? `, ${String(part.filename)}` : ''}]`;
}

/** The read tool wraps a file as `<path>…</path><type>…</type><content>…</content>`: the content is the output. */
function unwrapRead(output: string): string {
  const m = /^\s*<path>[\s\S]*?<\/path>\s*<type>[^<]*<\/type>\s*<content>\n?([\s\S]*?)\n?<\/content>\s*$/.exec(output);
  if (!m) return output;
  return m[1]!.replace(/\n*\(End of file - total \d+ lines?\)\s*$/, '');
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** A message's `tokens` (the sum of its steps): fresh input, output, reasoning, cache read/write apart. */
function openCodeUsage(t: unknown): TokenUsage | undefined {
  if (!isObject(t)) return undefined;
  const cache = isObject(t.cache) ? t.cache : {};
  return tokenUsage({ input: t.input, output: t.output, cacheRead: cache.read, cacheWrite: cache.write, reasoning: t.reasoning });
}

/** How an assistant message ended: `finish` (stop, length) or its `error` (an abort is MessageAbortedError). */
function openCodeEnd(data: Rec): Omit<TurnEnd, 'raw'> | undefined {
  const time = isObject(data.time) ? data.time : {};
  const at = typeof time.completed === 'number' ? isoFromMs(time.completed) : undefined;
  if (isObject(data.error)) {
    const name = str(data.error.name) ?? 'error';
    const message = isObject(data.error.data) ? str(data.error.data.message) : undefined;
    return { state: name === 'MessageAbortedError' ? 'aborted' : 'error', evidence: `error: ${name}${message ? ` (${titleFrom(message, 120)})` : ''}`, at };
  }
  const finish = str(data.finish);
  if (finish === 'stop' || finish === 'length' || finish === 'end_turn') return { state: 'completed', evidence: `finish: ${finish}`, at };
  return undefined;
}

/** `db`: the database the messages came from, for raw locators (message and part rows by id). */
export function openCodeBlocks(messages: Message[], db?: string): { blocks: Block[]; open: boolean } {
  const blocks: Block[] = [];
  let open = false;
  // After an auto-compaction OpenCode sends its own "Continue if you have next steps…" message;
  // when the user's prompt was already answered, what the model says to it is not the reply.
  let answered = false;
  let afterContinue = false;
  const messageRow = (m: Message): RawLocator | undefined => (db ? { db, table: 'message', column: 'id', ids: [m.id] } : undefined);
  for (const m of messages) {
    const role = m.data.role;
    const timestamp = m.at;
    const from = blocks.length;
    // Each block names the part row(s) its text came from.
    const fromParts = (ids: string[]): void => {
      if (db && blocks.length > from) blocks.at(-1)!.raw = { db, table: 'part', column: 'id', ids };
    };
    if (role === 'user') {
      const texts: string[] = [];
      const used: string[] = [];
      for (const [k, p] of m.parts.entries()) {
        if (p.type === 'text' && p.synthetic !== true && p.ignored !== true) texts.push(str(p.text) ?? '');
        else if (p.type === 'file') texts.push(filePlaceholder(p));
        else continue;
        used.push(m.partIds[k]!);
      }
      // A user message holding only a compaction part or synthetic text is not a prompt.
      if (texts.some((t) => t.trim() !== '' && !t.startsWith('[file:'))) {
        pushBlock(blocks, 'user', texts.join('\n'), { timestamp });
        // the prompt's words are in its part rows; the message row holds only its metadata
        fromParts(used);
        open = true;
        answered = false;
        afterContinue = false;
      } else if (m.parts.some((p) => p.type === 'text' && p.synthetic === true)) afterContinue = answered;
      continue;
    }
    if (role !== 'assistant') continue;
    if (m.data.summary === true) {
      const summary = m.parts.filter((p) => p.type === 'text').map((p) => str(p.text) ?? '').join('\n');
      pushBlock(blocks, 'compaction', summary, { timestamp });
      fromParts(m.partIds.filter((_id, k) => m.parts[k]!.type === 'text'));
      continue;
    }
    let pending = false;
    for (const [k, p] of m.parts.entries()) {
      const partFrom = blocks.length;
      if (p.type === 'text' && p.synthetic !== true) pushBlock(blocks, 'assistant', str(p.text), { timestamp, commentary: afterContinue || undefined });
      else if (p.type === 'reasoning') pushBlock(blocks, 'thinking', str(p.text), { timestamp });
      else if (p.type === 'tool') {
        const state = isObject(p.state) ? p.state : {};
        const label = str(p.tool);
        const callId = str(p.callID);
        pushBlock(blocks, 'tool_call', prettyArgs(state.input) || '{}', { timestamp, label, callId });
        const meta = isObject(state.metadata) ? state.metadata : {};
        const exitCode = num(meta.exit) ?? num(meta.exitCode);
        if (state.status === 'completed') pushBlock(blocks, 'tool_output', typeof state.output === 'string' ? unwrapRead(state.output) : prettyArgs(state.output), { timestamp, label, callId, exitCode });
        else if (state.status === 'error') pushBlock(blocks, 'tool_output', str(state.error) ?? 'error', { timestamp, label, callId, isError: true });
        else pending = true;
      } else if (p.type === 'file') pushBlock(blocks, 'assistant', filePlaceholder(p), { timestamp });
      else if (p.type === 'patch') {
        // OpenCode's snapshot of what this step changed (any tool, the shell too): on the step's last block
        const files = Array.isArray(p.files) ? p.files.filter((f): f is string => typeof f === 'string' && f !== '') : [];
        const last = blocks.at(-1);
        if (files.length > 0 && last) (last.changes ??= []).push({ record: 'patch', files, scope: 'turn', ...(db ? { raw: { db, table: 'part', column: 'id', ids: [m.partIds[k]!] } } : {}) });
      }
      if (db) for (let i = partFrom; i < blocks.length; i++) blocks[i]!.raw = { db, table: 'part', column: 'id', ids: [m.partIds[k]!] };
    }
    const usage = openCodeUsage(m.data.tokens);
    if (usage && blocks.length > from) blocks[from]!.usage = usage;
    const end = openCodeEnd(m.data);
    if (end && blocks.length > 0) blocks.at(-1)!.ended = { ...end, ...(db ? { raw: messageRow(m) } : {}) };
    const time = isObject(m.data.time) ? m.data.time : {};
    const finish = str(m.data.finish);
    open = pending || time.completed === undefined || finish === 'tool-calls' || finish === 'tool_use';
    if (!open) answered = true;
  }
  labelToolOutputs(blocks);
  return { blocks, open };
}

async function load(family: Family, summary: TranscriptSummary, opts: DiscoverOptions): Promise<Transcript> {
  const prefix = `${family.name}:`;
  const id = summary.location.startsWith(prefix) ? summary.location.slice(prefix.length) : summary.id;
  const messages = await withDb(family, opts.env, (db) => loadMessages(db, id));
  const { blocks, open } = openCodeBlocks(messages ?? [], family.dbPath(opts.env));
  return {
    id,
    cwd: summary.cwd,
    title: summary.title || titleFrom(blocks.find((b) => b.kind === 'user')?.text),
    startedAt: summary.startedAt,
    updatedAt: summary.updatedAt,
    blocks,
    lastTurnOpen: open,
  };
}

function openCodeFamily(family: Family): Provider {
  return {
    name: family.name,
    discover: (opts) => discover(family, opts),
    load: (summary, opts) => load(family, summary, opts),
    dataLocation: family.dbPath,
    watchedPaths: (env) => [family.dbPath(env), `${family.dbPath(env)}-wal`],
  };
}

export const opencode = openCodeFamily({ name: 'opencode', label: 'OpenCode', dbPath: opencodeDb });
/** Kilo CLI's database; `kilo.ts` joins it with the legacy extension's task folders. */
export const kiloCli = openCodeFamily({ name: 'kilo', label: 'Kilo', dbPath: kiloDb });
