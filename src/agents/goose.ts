// Goose: one SQLite database, `<data>/goose/sessions/sessions.db` with `<data>` =
// `$GOOSE_PATH_ROOT/data` when set, else $XDG_DATA_HOME or ~/.local/share (also on macOS), else
// %APPDATA%\Block\goose\data on Windows (docs/formats.md). `messages.content_json` is an array of
// typed items (`text`, `thinking`, `toolRequest`, `toolResponse`, …); tool responses ride in user
// rows, so a user row holding only them is no prompt. Rows the user never saw
// (`metadata_json.userVisible: false`, compaction summaries) are left out; sub-agent and hidden
// sessions are not listed.
import type { Database } from 'better-sqlite3';
import { join } from 'node:path';
import {
  expandHome, homeOf, imagePlaceholder, isObject, labelToolOutputs, prettyArgs, pushBlock, str, titleFrom, toIso, sessionOfSummary,
} from './common.js';
import { columnsOf, withReadOnlyDb } from './sqlite.js';
import type { Transcript, Block, DiscoverOptions, Provider, TokenUsage, TranscriptSummary } from './types.js';
import { tokenUsage } from './usage.js';

type Rec = Record<string, unknown>;
const PREFIX = 'goose:';

export function gooseDb(env: NodeJS.ProcessEnv): string {
  if (env.GOOSE_PATH_ROOT) return join(expandHome(env.GOOSE_PATH_ROOT, env), 'data', 'sessions', 'sessions.db');
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homeOf(env), 'AppData', 'Roaming'), 'Block', 'goose', 'data', 'sessions', 'sessions.db');
  const data = env.XDG_DATA_HOME ? expandHome(env.XDG_DATA_HOME, env) : join(homeOf(env), '.local', 'share');
  return join(data, 'goose', 'sessions', 'sessions.db');
}

const json = (text: unknown): unknown => {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** Goose writes `updated_at` as UTC text without a zone (`2026-05-03 11:02:10`). */
function utc(value: unknown): string | undefined {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/.test(value)) return toIso(value.replace(' ', 'T') + (/[Z+-]\d*$/.test(value.slice(19)) ? '' : 'Z'));
  return toIso(value);
}

function resultText(result: Rec): { text: string; isError: boolean } {
  if (result.status === 'error') return { text: str(result.error) ?? prettyArgs(result.error), isError: true };
  const value = isObject(result.value) ? result.value : {};
  const content = Array.isArray(value.content) ? value.content : Array.isArray(result.value) ? (result.value as unknown[]) : [];
  const texts = content.filter(isObject).map((c) => (c.type === 'text' ? str(c.text) ?? '' : c.type === 'image' ? imagePlaceholder(str(c.mimeType), c.data) : ''));
  return { text: texts.join('\n'), isError: value.isError === true };
}

/** Goose writes seconds, some rows milliseconds. */
const seconds = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? (v > 10_000_000_000 ? v / 1000 : v) : undefined);

/** A request's tokens as the usage_ledger records them (schema 16+). */
export type LedgerRow = { at: number; usage: TokenUsage };

/** `input_tokens` counts the whole prompt (Goose adds the cache reads and writes in): fresh input is what remains. */
function ledgerUsage(r: Rec): TokenUsage | undefined {
  return tokenUsage({ input: r.input_tokens, output: r.output_tokens, cacheRead: r.cache_read_tokens, cacheWrite: r.cache_write_tokens }, { inputHolds: ['cacheRead', 'cacheWrite'] });
}

/**
 * Each request's usage goes to the response it produced: the newest assistant row written at or
 * before it that has none yet (a row written after its usage is not its response; one that
 * matches nothing is left out rather than guessed).
 */
function usageByRow(rows: Rec[], ledger: readonly LedgerRow[]): Map<number, TokenUsage> {
  const out = new Map<number, TokenUsage>();
  for (const { at, usage } of ledger) {
    for (let i = rows.length - 1; i >= 0; i--) {
      const row = rows[i]!;
      const t = seconds(row.created_timestamp);
      if (row.role !== 'assistant' || t === undefined || t > at) continue;
      if (!out.has(i)) out.set(i, usage);
      break;
    }
  }
  return out;
}

/** `db`: the database the rows came from, for raw locators (message rows by rowid). */
export function gooseBlocks(rows: Rec[], db?: string, ledger: readonly LedgerRow[] = []): Block[] {
  const blocks: Block[] = [];
  const usages = usageByRow(rows, ledger);
  for (const [i, row] of rows.entries()) {
    const from = blocks.length;
    gooseRow(row, blocks);
    const usage = usages.get(i);
    const first = blocks.slice(from).find((b) => b.kind === 'assistant' || b.kind === 'thinking' || b.kind === 'tool_call');
    if (usage && first) first.usage = usage;
    if (db && typeof row._rowid === 'number') for (let i = from; i < blocks.length; i++) blocks[i]!.raw = { db, table: 'messages', column: 'rowid', ids: [row._rowid] };
  }
  labelToolOutputs(blocks);
  return blocks;
}

function gooseRow(row: Rec, blocks: Block[]): void {
  {
    const meta = json(row.metadata_json);
    if (isObject(meta) && meta.userVisible === false) return;
    const items = json(row.content_json);
    if (!Array.isArray(items)) return;
    const timestamp = toIso(row.created_timestamp);
    const role = str(row.role);
    for (const item of items) {
      if (!isObject(item)) continue;
      switch (item.type) {
        case 'text':
          pushBlock(blocks, role === 'user' ? 'user' : 'assistant', str(item.text), { timestamp });
          break;
        case 'image':
          pushBlock(blocks, role === 'user' ? 'user' : 'assistant', imagePlaceholder(str(item.mimeType), item.data), { timestamp });
          break;
        case 'thinking':
          pushBlock(blocks, 'thinking', str(item.thinking), { timestamp });
          break;
        case 'toolRequest':
        case 'frontendToolRequest': {
          const call = isObject(item.toolCall) ? item.toolCall : {};
          const value = isObject(call.value) ? call.value : {};
          pushBlock(blocks, 'tool_call', prettyArgs(value.arguments) || '{}', { timestamp, label: str(value.name), callId: str(item.id) });
          break;
        }
        case 'toolResponse': {
          const { text, isError } = resultText(isObject(item.toolResult) ? item.toolResult : {});
          pushBlock(blocks, 'tool_output', text, { timestamp, callId: str(item.id), isError: isError ? true : undefined });
          break;
        }
        default:
          break; // redactedThinking, confirmations, notifications, legacy conversationCompacted
      }
    }
  }
}

function loadRows(db: Database, id: string): Rec[] {
  const cols = columnsOf(db, 'messages');
  if (!cols.has('content_json')) return [];
  const order = cols.has('created_timestamp') ? 'created_timestamp, id' : 'id';
  const meta = cols.has('metadata_json') ? 'metadata_json' : 'NULL AS metadata_json';
  return db.prepare(`SELECT rowid AS _rowid, role, content_json, ${cols.has('created_timestamp') ? 'created_timestamp' : 'NULL AS created_timestamp'}, ${meta} FROM messages WHERE session_id = ? ORDER BY ${order}`).all(id) as Rec[];
}

/** The session's requests in usage_ledger, compaction requests left out (their summary is no reply). */
function loadLedger(db: Database, id: string): LedgerRow[] {
  const cols = columnsOf(db, 'usage_ledger');
  if (!cols.has('session_id') || !cols.has('created_timestamp')) return [];
  const pick = (c: string): string => (cols.has(c) ? c : `NULL AS ${c}`);
  const rows = db
    .prepare(`SELECT created_timestamp, ${pick('input_tokens')}, ${pick('output_tokens')}, ${pick('cache_read_tokens')}, ${pick('cache_write_tokens')}, ${pick('is_compaction')} FROM usage_ledger WHERE session_id = ? ORDER BY created_timestamp, rowid`)
    .all(id) as Rec[];
  const out: LedgerRow[] = [];
  for (const r of rows) {
    const at = seconds(r.created_timestamp);
    const usage = r.is_compaction === 1 ? undefined : ledgerUsage(r);
    if (at !== undefined && usage) out.push({ at, usage });
  }
  return out;
}

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  const rows = await withReadOnlyDb(gooseDb(opts.env), 'the Goose database', (db) => {
    const cols = columnsOf(db, 'sessions');
    if (!cols.has('id')) return [];
    const pick = (c: string): string => (cols.has(c) ? c : `NULL AS ${c}`);
    const where = cols.has('session_type') ? "WHERE session_type IS NULL OR session_type NOT IN ('sub_agent', 'hidden')" : '';
    const list = db.prepare(`SELECT id, ${pick('name')}, ${pick('description')}, ${pick('working_dir')}, ${pick('created_at')}, ${pick('updated_at')} FROM sessions ${where}`).all() as Rec[];
    for (const r of list) {
      if (!str(r.name) && !str(r.description)) r.first = titleFrom(gooseBlocks(loadRows(db, String(r.id)).slice(0, 4)).find((b) => b.kind === 'user')?.text);
    }
    return list;
  });
  for (const r of rows ?? []) {
    const id = String(r.id);
    const cwd = str(r.working_dir);
    const updated = utc(r.updated_at) ?? utc(r.created_at) ?? new Date(0).toISOString();
    yield {
      provider: 'goose',
      id,
      location: PREFIX + id,
      cwd,
      cwds: cwd ? [cwd] : [],
      title: str(r.name) || str(r.description) || str(r.first),
      startedAt: utc(r.created_at),
      updatedAt: updated,
      version: updated,
    };
  }
}

async function load(summary: TranscriptSummary, opts: DiscoverOptions): Promise<Transcript> {
  const id = summary.location.startsWith(PREFIX) ? summary.location.slice(PREFIX.length) : summary.id;
  const read = await withReadOnlyDb(gooseDb(opts.env), 'the Goose database', (db) => ({ rows: loadRows(db, id), ledger: loadLedger(db, id) }));
  return sessionOfSummary(summary, gooseBlocks(read?.rows ?? [], gooseDb(opts.env), read?.ledger));
}

export const goose: Provider = {
  name: 'goose',
  discover,
  load,
  dataLocation: gooseDb,
  watchedPaths: (env) => [gooseDb(env), `${gooseDb(env)}-wal`],
};
