// The settings this layer reads from config.toml (`[history] max_entries`). smol-toml is loaded
// only when a config file exists, so commands without one pay nothing for it.
import { existsSync, readFileSync } from 'node:fs';
import { warn } from '../errors.js';
import { configFile, type Env } from '../session/paths.js';

export type StoreConfig = {
  /** History entries kept; 0 = unlimited. */
  maxEntries: number;
};

export const DEFAULT_MAX_ENTRIES = 10_000;

export async function loadStoreConfig(env: Env = process.env): Promise<StoreConfig> {
  const config: StoreConfig = { maxEntries: DEFAULT_MAX_ENTRIES };
  const path = configFile(env);
  if (!existsSync(path)) return config;
  let parsed: Record<string, unknown>;
  try {
    const { parse } = await import('smol-toml');
    parsed = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    warn(`ignoring ${path}: ${(error as Error).message.split('\n')[0]} — fix the TOML syntax`);
    return config;
  }
  const history = parsed.history;
  // `[history] max_entries` is the documented place; a top-level key is accepted too.
  const raw = (typeof history === 'object' && history !== null ? (history as Record<string, unknown>).max_entries : undefined) ?? parsed.max_entries;
  if (raw !== undefined) {
    const n = typeof raw === 'bigint' ? Number(raw) : raw;
    if (typeof n === 'number' && Number.isInteger(n) && n >= 0) config.maxEntries = n;
    else warn(`ignoring max_entries = ${String(raw)} in ${path} — use a whole number ≥ 0 (0 = unlimited)`);
  }
  return config;
}
