// Hermes Agent: one SQLite database, `<hermes>/state.db` with `<hermes>` = $HERMES_HOME, else
// ~/.hermes (%LOCALAPPDATA%\hermes on Windows), plus `<hermes>/profiles/<name>/state.db` for named
// profiles (docs/formats.md). Messages are OpenAI-chat rows (`role`, `content`, `tool_calls`,
// `tool_call_id`, `reasoning`). Compression ends a session (`end_reason = 'compression'`) and
// continues it in a child whose first message is the summary, so one conversation is a chain of
// sessions, listed once under the id of its first (later links answer to it too). Rewound rows (`active = 0`) and model-only
// scaffolding (`display_kind = 'hidden'`) are not shown; sub-agent sessions are not listed.
import type { Database } from 'better-sqlite3';
import { join } from 'node:path';
import {
  expandHome, homeOf, isObject, labelToolOutputs, prettyArgs, pushBlock, readDirQuiet, statOrUndefined, str, titleFrom, toIso, sessionOfSummary,
} from './common.js';
import { columnsOf, withReadOnlyDb } from './sqlite.js';
import type { Transcript, Block, DiscoverOptions, Provider, TokenUsage, TranscriptSummary } from './types.js';
import { runningTotal, sumUsage, tokenUsage } from './usage.js';

type Rec = Record<string, unknown>;
const PREFIX = 'hermes:';

export function hermesHome(env: NodeJS.ProcessEnv): string {
  if (env.HERMES_HOME) return expandHome(env.HERMES_HOME, env);
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'hermes');
  return join(homeOf(env), '.hermes');
}

/** The default database and each named profile's, as `[profile, path]`. */
function databases(env: NodeJS.ProcessEnv): [string, string][] {
  const home = hermesHome(env);
  const out: [string, string][] = [['', join(home, 'state.db')]];
  for (const p of readDirQuiet(join(home, 'profiles'), 'Hermes profiles', () => undefined)) if (p.isDirectory()) out.push([p.name, join(home, 'profiles', p.name, 'state.db')]);
  return out.filter(([, path]) => statOrUndefined(path) !== undefined);
}

/** "Review the conversation above…": a curator prompt older builds persisted, and its answer. */
const CURATOR = /^Review the conversation above\b/;

/** `db`: the database the rows came from, for raw locators (message rows by rowid). */
export function hermesBlocks(rows: Rec[], db?: string): Block[] {
  const blocks: Block[] = [];
  let skipReply = false;
  /** Where each row's blocks start: the rows are named once all are read. */
  const starts: { at: number; row: Rec }[] = [];
  for (const r of rows) {
    starts.push({ at: blocks.length, row: r });
    if (r.active === 0 || r.display_kind === 'hidden') continue;
    const timestamp = toIso(r.timestamp);
    const role = str(r.role);
    const content = str(r.content) ?? '';
    // A compression child opens with the summary of what came before: context, not a prompt.
    if (r.chain_start === 1 && r.chain_index !== 0 && (role === 'user' || role === 'system')) {
      pushBlock(blocks, 'compaction', content, { timestamp });
      continue;
    }
    if (role === 'user') {
      skipReply = CURATOR.test(content.trim());
      if (!skipReply) pushBlock(blocks, 'user', content, { timestamp });
    } else if (role === 'assistant') {
      if (skipReply) continue;
      pushBlock(blocks, 'thinking', str(r.reasoning) ?? str(r.reasoning_content), { timestamp });
      pushBlock(blocks, 'assistant', content, { timestamp });
      let calls: unknown = r.tool_calls;
      if (typeof calls === 'string') {
        try {
          calls = JSON.parse(calls) as unknown;
        } catch {
          calls = [];
        }
      }
      for (const c of Array.isArray(calls) ? calls.filter(isObject) : []) {
        const fn = isObject(c.function) ? c.function : {};
        pushBlock(blocks, 'tool_call', prettyArgs(fn.arguments) || '{}', { timestamp, label: str(fn.name), callId: str(c.id) });
      }
    } else if (role === 'tool') {
      if (skipReply) continue;
      let text = content;
      let isError = false;
      let exitCode: number | undefined;
      // Tool rows often hold JSON with the output and an exit code.
      if (text.trimStart().startsWith('{')) {
        try {
          const v = JSON.parse(text) as unknown;
          if (isObject(v) && (typeof v.output === 'string' || typeof v.error === 'string')) {
            text = [str(v.output), str(v.error)].filter(Boolean).join('\n');
            isError = (typeof v.exit_code === 'number' && v.exit_code !== 0) || typeof v.error === 'string';
            if (typeof v.exit_code === 'number') exitCode = v.exit_code;
          }
        } catch {
          // not JSON after all: the text as it is
        }
      }
      pushBlock(blocks, 'tool_output', text, { timestamp, callId: str(r.tool_call_id), label: str(r.tool_name), isError: isError ? true : undefined, exitCode });
    }
  }
  if (db) {
    starts.forEach(({ at, row }, k) => {
      const end = starts[k + 1]?.at ?? blocks.length;
      if (typeof row._rowid === 'number') for (let i = at; i < end; i++) blocks[i]!.raw = { db, table: 'messages', column: 'rowid', ids: [row._rowid] };
    });
  }
  labelToolOutputs(blocks);
  return blocks;
}

type SessionRow = { id: string; parent?: string; endReason?: string; source?: string; title?: string; cwd?: string; started?: number; last?: number; model?: string };

function sessionRows(db: Database): SessionRow[] {
  const cols = columnsOf(db, 'sessions');
  if (!cols.has('id')) return [];
  const pick = (c: string): string => (cols.has(c) ? c : `NULL AS ${c}`);
  const rows = db.prepare(`SELECT id, ${pick('parent_session_id')}, ${pick('end_reason')}, ${pick('source')}, ${pick('title')}, ${pick('cwd')}, ${pick('started_at')}, ${pick('ended_at')}, ${pick('last_activity_at')}, ${pick('model')}, ${pick('archived')} FROM sessions`).all() as Rec[];
  return rows
    .filter((r) => !r.archived)
    .map((r) => ({
      id: String(r.id),
      parent: str(r.parent_session_id) ?? undefined,
      endReason: str(r.end_reason),
      source: str(r.source),
      title: str(r.title)?.trim() || undefined,
      cwd: str(r.cwd),
      started: typeof r.started_at === 'number' ? r.started_at : undefined,
      last: typeof r.last_activity_at === 'number' ? r.last_activity_at : typeof r.ended_at === 'number' ? r.ended_at : typeof r.started_at === 'number' ? r.started_at : undefined,
      model: str(r.model),
    }));
}

/** Chains of compression, root first: one conversation each. */
function chains(rows: SessionRow[]): SessionRow[][] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const childOf = new Map<string, SessionRow>();
  // a sub-agent (source 'tool') started from a session is not its continuation
  for (const r of rows) if (r.parent && r.source !== 'tool' && byId.get(r.parent)?.endReason === 'compression') childOf.set(r.parent, r);
  const out: SessionRow[][] = [];
  for (const r of rows) {
    const parent = r.parent ? byId.get(r.parent) : undefined;
    if (parent && parent.endReason === 'compression' && r.source !== 'tool') continue; // a continuation, not a start
    if (r.source === 'tool') continue; // sub-agent sessions belong to their caller
    const chain = [r];
    for (let next = childOf.get(r.id); next && !chain.includes(next); next = childOf.get(next.id)) chain.push(next);
    out.push(chain);
  }
  return out;
}

function loadChainRows(db: Database, chain: string[]): Rec[] {
  const cols = columnsOf(db, 'messages');
  if (!cols.has('role')) return [];
  const pick = (c: string): string => (cols.has(c) ? c : `NULL AS ${c}`);
  const select = db.prepare(`SELECT rowid AS _rowid, role, ${pick('content')}, ${pick('tool_calls')}, ${pick('tool_call_id')}, ${pick('tool_name')}, ${pick('timestamp')}, ${pick('reasoning')}, ${pick('reasoning_content')}, ${pick('active')}, ${pick('display_kind')} FROM messages WHERE session_id = ? ORDER BY ${cols.has('timestamp') ? 'timestamp, id' : 'id'}`);
  const out: Rec[] = [];
  chain.forEach((id, i) => {
    const rows = select.all(id) as Rec[];
    rows.forEach((r, k) => out.push({ ...r, chain_index: i, chain_start: k === 0 ? 1 : 0 }));
  });
  return out;
}

const seconds = (s: number | undefined): string | undefined => (s === undefined ? undefined : new Date(s * 1000).toISOString());

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  for (const [profile, path] of databases(opts.env)) {
    const found = await withReadOnlyDb(path, 'the Hermes database', (db) =>
      chains(sessionRows(db)).map((chain) => {
        const head = chain[0]!;
        const tip = chain.at(-1)!;
        const title = chain.map((c) => c.title).find(Boolean) ?? titleFrom(hermesBlocks(loadChainRows(db, [head.id]).slice(0, 3)).find((b) => b.kind === 'user')?.text);
        return { chain, head, tip, title };
      }),
    );
    for (const { chain, head, tip, title } of found ?? []) {
      const updatedAt = seconds(tip.last) ?? new Date(0).toISOString();
      const cwd = chain.map((c) => c.cwd).find(Boolean);
      yield {
        provider: 'hermes',
        id: head.id,
        location: `${PREFIX}${profile}:${chain.map((c) => c.id).join(',')}`,
        cwd,
        cwds: [...new Set(chain.map((c) => c.cwd).filter((c): c is string => !!c))],
        title,
        startedAt: seconds(head.started),
        updatedAt,
        version: `${updatedAt}#${chain.length}`,
        aliases: chain.slice(1).map((c) => c.id),
      };
    }
  }
}

const TOKEN_COLUMNS = { input: 'input_tokens', output: 'output_tokens', cacheRead: 'cache_read_tokens', cacheWrite: 'cache_write_tokens', reasoning: 'reasoning_tokens' } as const;

/**
 * The chain's tokens: Hermes keeps only running totals per session row (`input_tokens` is the
 * fresh input, the cache reads and writes apart), summed over the rows a compression split. All
 * zero is a version that counted nothing, not a session that used nothing.
 */
function chainUsage(db: Database, chain: string[]): TokenUsage | undefined {
  const cols = columnsOf(db, 'sessions');
  const present = Object.entries(TOKEN_COLUMNS).filter(([, c]) => cols.has(c));
  if (present.length === 0) return undefined;
  const select = db.prepare(`SELECT ${present.map(([, c]) => c).join(', ')} FROM sessions WHERE id = ?`);
  const rows = chain.map((id) => {
    const row = select.get(id) as Rec | undefined;
    return row && tokenUsage(Object.fromEntries(present.map(([key, col]) => [key, row[col]])));
  });
  return runningTotal(sumUsage(...rows));
}

async function load(summary: TranscriptSummary, opts: DiscoverOptions): Promise<Transcript> {
  const [, profile = '', ids = summary.id] = /^hermes:([^:]*):(.*)$/.exec(summary.location) ?? [];
  const path = profile ? join(hermesHome(opts.env), 'profiles', profile, 'state.db') : join(hermesHome(opts.env), 'state.db');
  const chain = ids.split(',');
  const read = await withReadOnlyDb(path, 'the Hermes database', (db) => ({ rows: loadChainRows(db, chain), usage: chainUsage(db, chain) }));
  const transcript = sessionOfSummary(summary, hermesBlocks(read?.rows ?? [], path));
  if (read?.usage) transcript.usage = read.usage;
  return transcript;
}

export const hermes: Provider = {
  name: 'hermes',
  discover,
  load,
  dataLocation: (env) => join(hermesHome(env), 'state.db'),
  watchedPaths: (env) => {
    const home = hermesHome(env);
    return [join(home, 'state.db'), join(home, 'state.db-wal'), join(home, 'profiles'), ...databases(env).flatMap(([, p]) => [p, `${p}-wal`])];
  },
};
