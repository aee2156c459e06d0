// The source table: `terminal` plus one source per registered agent provider. Refs, copy,
// show, diff and sessions look sources up here and nowhere else.
import { allProviders, findProvider } from '../agents/registry.js';
import { SivtrError } from '../errors.js';
import { agentSource } from './agent-source.js';
import { terminalSource } from './terminal-source.js';
import type { Source } from './types.js';

/** Sources that are not agent providers: terminal logs, plus any registered from above (history). */
const builtIn: Source[] = [terminalSource];

export function registerSource(source: Source): void {
  if (!builtIn.some((s) => s.name === source.name)) builtIn.push(source);
}

export function sourceNames(): string[] {
  return [...builtIn.map((s) => s.name), ...allProviders().map((p) => p.name)];
}

export function isSourceName(name: string): boolean {
  return builtIn.some((s) => s.name === name) || findProvider(name) !== undefined;
}

export function getSource(name: string): Source {
  const own = builtIn.find((s) => s.name === name);
  if (own) return own;
  const provider = findProvider(name);
  if (provider) return agentSource(provider);
  throw new SivtrError(`unknown source "${name}"`, `use one of: ${sourceNames().join(', ')}`);
}
