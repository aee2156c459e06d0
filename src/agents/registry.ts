// The only list of agent providers. The CLI, refs, `sessions` and search read it from here.
import { aider } from './aider.js';
import { auggie } from './auggie.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { continueCli } from './continue.js';
import { copilot } from './copilot.js';
import { crush } from './crush.js';
import { cursor } from './cursor.js';
import { droid } from './droid.js';
import { gemini } from './gemini.js';
import { goose } from './goose.js';
import { grok } from './grok.js';
import { hermes } from './hermes.js';
import { kilo } from './kilo.js';
import { kimi } from './kimi.js';
import { opencode } from './opencode.js';
import { openhands } from './openhands.js';
import { cline } from './cline.js';
import { roo } from './roo.js';
import { pi } from './pi.js';
import { qwen } from './qwen.js';
import { zed } from './zed.js';
import type { Provider } from './types.js';

// Keyed by name so the type of a provider's name comes from this table: a name that is not here
// does not compile where a `ProviderName` is asked for.
const byName = {
  claude, codex, pi, opencode, gemini, copilot, qwen, cline, roo, cursor, kilo, droid, continue: continueCli, auggie,
  openhands, zed, goose, hermes, crush, grok, aider, kimi,
} satisfies Record<string, Provider>;

export type ProviderName = keyof typeof byName;

const providers: readonly Provider[] = Object.values(byName);

export function allProviders(): readonly Provider[] {
  return providers;
}

export function isProviderName(name: string): name is ProviderName {
  return Object.hasOwn(byName, name);
}

export function findProvider(name: string): Provider | undefined {
  return isProviderName(name) ? byName[name] : undefined;
}

export function providerNames(): ProviderName[] {
  return Object.keys(byName) as ProviderName[];
}
