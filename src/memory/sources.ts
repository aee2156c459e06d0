// The source table, built here and nowhere else: the terminal logs, captured history, then one
// source per registered agent provider (agents/registry.ts). Refs, copy, show, diff, sessions,
// search and the index all find sources through it, so a new source is its own file plus one
// line here (a new agent: its provider file plus one line in the registry).
import { allProviders } from '../agents/registry.js';
import { SivtrError } from '../errors.js';
import { agentSource } from './agent-source.js';
import { historySource } from './history-source.js';
import { terminalSource } from './terminal-source.js';
import type { Source } from './types.js';

let table: readonly Source[] | undefined;

/** Every source, in the order listings and the index take them. */
export function allSources(): readonly Source[] {
  return (table ??= [terminalSource, historySource, ...allProviders().map(agentSource)]);
}

export function sourceNames(): string[] {
  return allSources().map((s) => s.name);
}

export function findSource(name: string): Source | undefined {
  return allSources().find((s) => s.name === name);
}

export function isSourceName(name: string): boolean {
  return findSource(name) !== undefined;
}

export function getSource(name: string): Source {
  const source = findSource(name);
  if (source) return source;
  throw new SivtrError(`unknown source "${name}"`, `use one of: ${sourceNames().join(', ')}`);
}

/** Sources of commands with their output (terminal, history), as opposed to agent turns. */
export function recordSourceNames(): string[] {
  return allSources().filter((s) => s.unitKind === 'record').map((s) => s.name);
}
