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

const providers: Provider[] = [claude, codex, pi, opencode, gemini, copilot, qwen, cline, roo, cursor, kilo, droid, continueCli, auggie, openhands, zed, goose, hermes, crush, grok, aider, kimi];

export function allProviders(): readonly Provider[] {
  return providers;
}

export function findProvider(name: string): Provider | undefined {
  return providers.find((p) => p.name === name);
}

export function providerNames(): string[] {
  return providers.map((p) => p.name);
}
