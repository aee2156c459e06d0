// Keeping one capture of `sivtr run` or `sivtr pipe` (capture/run-command.ts) in history, with
// the configured retention; makeEntry renders the raw text with the one text model.
import { loadStoreConfig } from './config.js';
import { HistoryStore, type HistoryEntry, type NewHistoryEntry } from '../session/history-db.js';

/** Stores one capture, applying the configured retention. */
export async function storeCapture(fields: NewHistoryEntry, env: NodeJS.ProcessEnv = process.env): Promise<HistoryEntry> {
  const { maxEntries } = await loadStoreConfig(env);
  const store = HistoryStore.openForWrite(env);
  try {
    return store.add(fields, maxEntries);
  } finally {
    store.close();
  }
}
