// What `sivtr history` prints: lists, search hits and single captures, as text or JSON.
import { SivtrError } from '../errors.js';
import { renderBlock, renderInput } from '../session/entry.js';
import { HistoryStore, type HistoryEntry } from './history.js';
import { findHistoryEntry, historyRef, historyTitle } from './history-source.js';
import { hasTerms, queryTerms, snippet } from './query.js';

function openStore(): HistoryStore | undefined {
  return HistoryStore.openForRead(process.env);
}

function entryJson(entry: HistoryEntry) {
  const json: Record<string, unknown> = {
    ref: historyRef(entry.id),
    source: 'history',
    session: String(entry.id),
    index: 1,
    kind: entry.kind,
    prompt: '',
    command: entry.command,
    output: entry.output,
  };
  if (entry.cwd) json.cwd = entry.cwd;
  if (entry.exit_code !== undefined) json.exit_code = entry.exit_code;
  if (entry.duration_ms !== undefined) json.duration_ms = entry.duration_ms;
  if (entry.ended_at) json.ended_at = entry.ended_at;
  return json;
}

function localTime(iso: string | undefined): string {
  if (!iso) return '                ';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso.slice(0, 16);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

function duration(ms: number | undefined): string {
  if (ms === undefined) return '';
  return ms < 1000 ? `${ms}ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}

function line(entry: HistoryEntry, detail?: string): string {
  const exit = entry.exit_code === undefined ? '   ' : String(entry.exit_code).padStart(3);
  const head = `${historyRef(entry.id).padEnd(12)} ${localTime(entry.ended_at)}  ${exit} ${duration(entry.duration_ms).padStart(7)}  ${historyTitle(entry)}`;
  return detail ? `${head}\n    ${detail}\n` : `${head}\n`;
}

export function listHistory(opts: { limit: number; json: boolean }): string {
  const store = openStore();
  const entries = store ? store.list(opts.limit) : [];
  store?.close();
  if (opts.json) return JSON.stringify(entries.map(entryJson)) + '\n';
  if (entries.length === 0) return '';
  return entries.map((e) => line(e)).join('');
}

export function searchHistory(query: string, opts: { limit: number; json: boolean }): string {
  const terms = queryTerms(query);
  if (!hasTerms(terms)) throw new SivtrError('no query given', 'usage: sivtr history search QUERY');
  const store = openStore();
  const { entries, total } = store ? store.search(terms, opts.limit) : { entries: [], total: 0 };
  store?.close();
  if (opts.json) {
    const hits = entries.map((e) => ({ ...entryJson(e), title: historyTitle(e), snippet: snippet(`${e.command}\n${e.output}`, terms), at: e.ended_at }));
    return JSON.stringify({ hits, total }) + '\n';
  }
  if (entries.length === 0) {
    process.stderr.write(`sivtr: no history entry matches ${JSON.stringify(query)}\n`);
    return '';
  }
  if (total > entries.length) process.stderr.write(`sivtr: showing ${entries.length} of ${total} — use --limit N for more\n`);
  return entries.map((e) => line(e, snippet(e.output || e.command, terms))).join('');
}

export function showHistory(key: string | undefined, opts: { json: boolean; ansi: boolean }): string {
  const store = openStore();
  if (!store) throw new SivtrError('nothing kept in history yet', 'capture an output with `sivtr run CMD` or `CMD | sivtr pipe`');
  try {
    const entry = findHistoryEntry(store, (key ?? 'current').replace(/^history\//, ''));
    if (opts.json) return JSON.stringify(entryJson(entry)) + '\n';
    const output = opts.ansi && entry.output_ansi !== undefined ? entry.output_ansi : entry.output;
    const text = entry.command === '' ? output : renderBlock(renderInput('', entry.command), output);
    return text === '' ? '' : text + '\n';
  } finally {
    store.close();
  }
}
