// What `sivtr history` lists, as text or JSON (search and show are `search history` and
// `show history/N`).
import { HistoryStore, type HistoryEntry } from '../session/history-db.js';
import { historyRef, historyTitle } from '../memory/history-source.js';
import { duration, localTime } from './output.js';

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

function line(entry: HistoryEntry): string {
  const exit = entry.exit_code === undefined ? '   ' : String(entry.exit_code).padStart(3);
  const head = `${historyRef(entry.id).padEnd(12)} ${localTime(entry.ended_at, ' '.repeat(16))}  ${exit} ${duration(entry.duration_ms).padStart(7)}  ${historyTitle(entry)}`;
  return `${head}\n`;
}

export function listHistory(opts: { limit: number; json: boolean }): string {
  const store = openStore();
  const entries = store ? store.list(opts.limit) : [];
  store?.close();
  if (opts.json) return JSON.stringify(entries.map(entryJson)) + '\n';
  if (entries.length === 0) return '';
  return entries.map((e) => line(e)).join('');
}
