// Where sivtr keeps its data and config, per platform, with the env overrides of docs/cli.md
// and the read-only fallback to files left by the tool's former name, `sift`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { home } from '../files.js';

export type Env = NodeJS.ProcessEnv;


function platformDataRoot(env: Env, platform: NodeJS.Platform, name: string): string {
  if (platform === 'darwin') return join(home(env), 'Library', 'Application Support', name);
  if (platform === 'win32') return join(env.APPDATA || join(home(env), 'AppData', 'Roaming'), name);
  return join(env.XDG_STATE_HOME || join(home(env), '.local', 'state'), name);
}

function platformConfigRoot(env: Env, platform: NodeJS.Platform, name: string): string {
  if (platform === 'darwin' || platform === 'win32') return platformDataRoot(env, platform, name);
  return join(env.XDG_CONFIG_HOME || join(home(env), '.config'), name);
}

export function dataDir(env: Env = process.env, platform = process.platform): string {
  return env.SIVTR_DATA_DIR || platformDataRoot(env, platform, 'sivtr');
}

export function configDir(env: Env = process.env, platform = process.platform): string {
  return env.SIVTR_CONFIG_DIR || platformConfigRoot(env, platform, 'sivtr');
}

/** The current path unless only the legacy `sift` file exists; new writes always go to `current`. */
function withLegacy(current: string, legacy: string | undefined): string {
  if (legacy === undefined || existsSync(current) || !existsSync(legacy)) return current;
  return legacy;
}

export function configFile(env: Env = process.env, platform = process.platform): string {
  const legacy = env.SIVTR_CONFIG_DIR ? undefined : join(platformConfigRoot(env, platform, 'sift'), 'config.toml');
  return withLegacy(join(configDir(env, platform), 'config.toml'), legacy);
}

/** The history database to read: current, else a legacy `sift` one. */
export function historyDbForRead(env: Env = process.env, platform = process.platform): string {
  const legacy = env.SIVTR_DATA_DIR ? undefined : join(platformDataRoot(env, platform, 'sift'), 'history.db');
  return withLegacy(historyDbPath(env, platform), legacy);
}

export function historyDbPath(env: Env = process.env, platform = process.platform): string {
  return join(dataDir(env, platform), 'history.db');
}

export function indexDbPath(env: Env = process.env, platform = process.platform): string {
  return join(dataDir(env, platform), 'index.db');
}

export function terminalsDir(env: Env = process.env, platform = process.platform): string {
  return join(dataDir(env, platform), 'terminals');
}

export function terminalLogPath(terminalId: string, env: Env = process.env): string {
  return join(terminalsDir(env), `${terminalId}.jsonl`);
}
