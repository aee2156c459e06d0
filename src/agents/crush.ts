// Crush: one SQLite database per project, `<project>/.crush/crush.db` (the `data_directory`
// option moves it), found through the global `projects.json` index at $CRUSH_GLOBAL_DATA, else
// $XDG_DATA_HOME/crush, else ~/.local/share/crush (%LOCALAPPDATA%\crush on Windows), and by
// walking up from the current directory (docs/formats.md). Messages carry `parts` as a JSON array
// of `{type, data}`: text, reasoning, tool_call, tool_result, finish, and shell_command (the
// user's own `!cmd`, with its output and exit code). Timestamps are seconds in some versions and
// milliseconds in others, so they are read by magnitude. Child (sub-agent) sessions are not
// listed; a summary message is the compaction.
import type { Database } from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  expandHome, homeOf, isObject, labelToolOutputs, prettyArgs, pushBlock, str, titleFrom, toIso, sessionOfSummary,
} from './common.js';
import { columnsOf, withReadOnlyDb } from './sqlite.js';
import type { Transcript, Block, DiscoverOptions, Provider, RawLocator, TranscriptSummary, TurnEnd } from './types.js';

type Rec = Record<string, unknown>;

export function crushGlobalDir(env: NodeJS.ProcessEnv): string {
  if (env.CRUSH_GLOBAL_DATA) return expandHome(env.CRUSH_GLOBAL_DATA, env);
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'crush');
  return join(env.XDG_DATA_HOME ? expandHome(env.XDG_DATA_HOME, env) : join(homeOf(env), '.local', 'share'), 'crush');
}

/** Every project database Crush knows of, plus the one above the current directory. */
function databases(env: NodeJS.ProcessEnv, cwd: string): { db: string; project: string }[] {
  const out = new Map<string, string>();
  try {
    const index = JSON.parse(readFileSync(join(crushGlobalDir(env), 'projects.json'), 'utf8')) as unknown;
    const projects = isObject(index) && Array.isArray(index.projects) ? index.projects.filter(isObject) : [];
    for (const p of projects) {
      const path = str(p.path);
      if (!path) continue;
      const dataDir = str(p.data_dir) ?? '.crush';
      out.set(join(isAbsolute(dataDir) ? dataDir : join(path, dataDir), 'crush.db'), path);
    }
  } catch {
    // no index (Crush before 0.25) or one being rewritten: the walk below still finds this project
  }
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const db = join(dir, '.crush', 'crush.db');
    if (existsSync(db) && !out.has(db)) out.set(db, dir);
    if (dirname(dir) === dir) break;
  }
  return [...out].filter(([db]) => existsSync(db)).map(([db, project]) => ({ db, project }));
}

const parse = (text: unknown): unknown => {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** `finish.reason` of an assistant message: end_turn ends the turn, canceled aborts it, error fails it. */
function finishEnd(reason: string | undefined): TurnEnd['state'] | undefined {
  if (reason === 'end_turn' || reason === 'stop') return 'completed';
  if (reason === 'canceled' || reason === 'cancelled') return 'aborted';
  if (reason === 'error' || reason === 'permission_denied') return 'error';
  return undefined; // tool_use: the turn goes on
}

/** `db`: the database the rows came from, for raw locators (message rows by rowid). */
export function crushBlocks(rows: Rec[], db?: string): { blocks: Block[]; open: boolean } {
  const blocks: Block[] = [];
  let open = false;
  for (const r of rows) {
    const parts = parse(r.parts);
    if (!Array.isArray(parts)) continue;
    const from = blocks.length;
    const raw: RawLocator | undefined = db && typeof r._rowid === 'number' ? { db, table: 'messages', column: 'rowid', ids: [r._rowid] } : undefined;
    const located = (): void => {
      if (raw) for (let i = from; i < blocks.length; i++) blocks[i]!.raw = raw;
    };
    const timestamp = toIso(r.created_at);
    const role = str(r.role);
    if (r.is_summary_message === 1 || r.is_summary_message === true) {
      const text = parts.filter(isObject).map((p) => (p.type === 'text' && isObject(p.data) ? str(p.data.text) ?? '' : '')).join('\n');
      pushBlock(blocks, 'compaction', text || 'conversation summarized', { timestamp });
      located();
      continue;
    }
    for (const part of parts) {
      if (!isObject(part)) continue;
      const d = isObject(part.data) ? part.data : {};
      switch (part.type) {
        case 'text':
          if (role === 'user') pushBlock(blocks, 'user', str(d.text), { timestamp });
          else if (role === 'assistant') pushBlock(blocks, 'assistant', str(d.text), { timestamp });
          break;
        case 'reasoning':
          pushBlock(blocks, 'thinking', str(d.thinking), { timestamp });
          break;
        case 'tool_call':
          pushBlock(blocks, 'tool_call', prettyArgs(d.input) || '{}', { timestamp, label: str(d.name), callId: str(d.id) });
          break;
        case 'tool_result':
          pushBlock(blocks, 'tool_output', str(d.content) ?? prettyArgs(d.content), { timestamp, label: str(d.name), callId: str(d.tool_call_id), isError: d.is_error === true ? true : undefined });
          break;
        case 'shell_command': {
          // `!cmd` typed by the user: a command and its output, recorded like a tool call
          const exit = typeof d.exit_code === 'number' ? d.exit_code : undefined;
          pushBlock(blocks, 'tool_call', str(d.command), { timestamp, label: 'shell_command' });
          pushBlock(blocks, 'tool_output', str(d.output) || (exit !== undefined ? '(no output)' : ''), { timestamp, label: 'shell_command', isError: exit !== undefined && exit !== 0 ? true : undefined, exitCode: exit });
          break;
        }
        case 'finish': {
          if (role === 'assistant') open = str(d.reason) === 'tool_use';
          const state = role === 'assistant' ? finishEnd(str(d.reason)) : undefined;
          const last = blocks.at(-1);
          if (state && last) last.ended = { state, evidence: `finish: ${str(d.reason)}`, at: toIso(d.time) ?? timestamp, ...(raw ? { raw } : {}) };
          break;
        }
        default:
          break; // image_url, binary: attachments
      }
    }
    located();
    if (role === 'user') open = true;
    else if (role === 'assistant' && !parts.some((p) => isObject(p) && p.type === 'finish')) open = r.finished_at == null;
  }
  labelToolOutputs(blocks);
  return { blocks, open };
}

function messageRows(db: Database, id: string, limit?: number): Rec[] {
  const cols = columnsOf(db, 'messages');
  if (!cols.has('parts')) return [];
  const pick = (c: string): string => (cols.has(c) ? c : `NULL AS ${c}`);
  return db.prepare(`SELECT rowid AS _rowid, role, parts, ${pick('created_at')}, ${pick('finished_at')}, ${pick('is_summary_message')} FROM messages WHERE session_id = ? ORDER BY ${cols.has('created_at') ? 'created_at, rowid' : 'rowid'}${limit ? ` LIMIT ${limit}` : ''}`).all(id) as Rec[];
}

const SEP = '::';

async function* discover(opts: DiscoverOptions & { cwd?: string }): AsyncIterable<TranscriptSummary> {
  for (const { db, project } of databases(opts.env, opts.cwd ?? process.cwd())) {
    const rows = await withReadOnlyDb(db, 'the Crush database', (conn) => {
      const cols = columnsOf(conn, 'sessions');
      if (!cols.has('id')) return [];
      const pick = (c: string): string => (cols.has(c) ? c : `NULL AS ${c}`);
      const where = cols.has('parent_session_id') ? "WHERE parent_session_id IS NULL OR parent_session_id = ''" : '';
      const list = conn.prepare(`SELECT id, ${pick('title')}, ${pick('created_at')}, ${pick('updated_at')} FROM sessions ${where}`).all() as Rec[];
      for (const r of list) if (!str(r.title)) r.first = titleFrom(crushBlocks(messageRows(conn, String(r.id), 4)).blocks.find((b) => b.kind === 'user')?.text);
      return list;
    });
    for (const r of rows ?? []) {
      const id = String(r.id);
      const updatedAt = toIso(r.updated_at) ?? toIso(r.created_at) ?? new Date(0).toISOString();
      yield {
        provider: 'crush',
        id,
        location: `crush:${db}${SEP}${id}`,
        cwd: project,
        cwds: [project],
        title: str(r.title) || str(r.first),
        startedAt: toIso(r.created_at),
        updatedAt,
        version: updatedAt,
      };
    }
  }
}

async function load(summary: TranscriptSummary): Promise<Transcript> {
  const at = summary.location.lastIndexOf(SEP);
  const db = summary.location.slice('crush:'.length, at);
  const rows = (await withReadOnlyDb(db, 'the Crush database', (conn) => messageRows(conn, summary.id))) ?? [];
  const { blocks, open } = crushBlocks(rows, db);
  return sessionOfSummary(summary, blocks, blocks.length > 0 && open);
}

export const crush: Provider = {
  name: 'crush',
  discover,
  load,
  dataLocation: (env) => join(crushGlobalDir(env), 'projects.json'),
  watchedPaths: (env) => [join(crushGlobalDir(env), 'projects.json'), ...databases(env, process.cwd()).flatMap(({ db }) => [db, `${db}-wal`])],
};
