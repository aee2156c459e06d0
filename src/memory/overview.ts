// The facts of a session and of each of its turns, as overview, turns and export print them.
import { replyOf } from '../agents/turns.js';
import { formatRef, partsSpec } from './ref.js';
import { getSource } from './sources.js';
import { turnStatuses, type TurnStatus, type TurnStatusWord } from './turn-status.js';
import { addTokens, commandsOf, countKinds, failuresOf, filesOf, isTerminalRecord, spanOf, tokensOf, type Tokens } from './unit-facts.js';
import type { OpenedSession, PartKind, Unit } from './types.js';

export type TurnFacts = {
  index: number;
  ref: string;
  status: TurnStatus;
  start?: string;
  end?: string;
  durationMs?: number;
  /** `p1-9` (empty when the unit has no parts). */
  parts: string;
  partCount: number;
  /** Distinct files the turn wrote and its write actions (the file ledger's counts). */
  files: { files: number; writes: number };
  commands: number;
  failures: number;
  tokens?: Tokens;
  /** First line of the user's message (a terminal record: its command). */
  user: string;
  /** First line of the reply (a terminal record: of its output). */
  reply: string;
};

export type SessionFacts = {
  ref: string;
  source: string;
  id: string;
  title?: string;
  cwd?: string;
  unitKind: 'turn' | 'record';
  units: number;
  statuses: Partial<Record<TurnStatusWord, number>>;
  parts: Partial<Record<PartKind, number>>;
  /** Distinct files the session wrote and its write actions (the file ledger's counts, as `sivtr files` prints them). */
  files: { files: number; writes: number };
  commands: number;
  failures: number;
  tokens?: Tokens;
  /** `session`: the tokens are the agent's session total; it records none per turn. */
  tokensScope?: 'session';
  firstActivity?: string;
  lastActivity?: string;
};

const firstLine = (text: string | undefined): string => text?.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';

function userLine(unit: Unit): string {
  if (isTerminalRecord(unit)) return firstLine(unit.parts[1]?.text);
  return firstLine(unit.parts.find((p) => p.kind === 'user')?.text);
}

function replyLine(unit: Unit): string {
  if (isTerminalRecord(unit)) return firstLine(unit.parts[2]?.text);
  return firstLine(replyOf(unit.parts).map((p) => p.text).join('\n'));
}

export function turnFacts(session: OpenedSession, units: readonly Unit[] = session.units): TurnFacts[] {
  const statuses = turnStatuses(session.units);
  const statusOf = new Map(session.units.map((u, i) => [u, statuses[i]!]));
  return units.map((unit) => {
    const span = spanOf(unit);
    const n = unit.parts.map((p) => p.n);
    const facts: TurnFacts = {
      index: unit.index,
      ref: unit.ref,
      status: statusOf.get(unit) ?? { status: 'unknown', evidence: 'not part of the session listing' },
      parts: n.length === 0 ? '' : partsSpec(n),
      partCount: n.length,
      files: filesOf([unit]),
      commands: commandsOf(unit),
      failures: failuresOf(unit),
      user: userLine(unit),
      reply: replyLine(unit),
    };
    if (span.start !== undefined) facts.start = span.start;
    if (span.end !== undefined) facts.end = span.end;
    if (span.durationMs !== undefined) facts.durationMs = span.durationMs;
    const tokens = tokensOf(unit.parts);
    if (tokens) facts.tokens = tokens;
    return facts;
  });
}

export function sessionFacts(session: OpenedSession, turns: readonly TurnFacts[] = turnFacts(session)): SessionFacts {
  const { info, units } = session;
  const parts: Partial<Record<PartKind, number>> = {};
  for (const u of units) countKinds(u.parts, parts);
  const statuses: Partial<Record<TurnStatusWord, number>> = {};
  let tokens: Tokens | undefined;
  for (const t of turns) {
    statuses[t.status.status] = (statuses[t.status.status] ?? 0) + 1;
    tokens = addTokens(tokens, t.tokens);
  }
  const stamps = turns.flatMap((t) => [t.start, t.end]).filter((s): s is string => s !== undefined && !Number.isNaN(Date.parse(s)));
  stamps.sort((a, b) => Date.parse(a) - Date.parse(b));
  const facts: SessionFacts = {
    ref: formatRef(info.source, info.id),
    source: info.source,
    id: info.id,
    unitKind: getSource(info.source).unitKind,
    units: units.length,
    statuses,
    parts,
    files: filesOf(units),
    commands: turns.reduce((n, t) => n + t.commands, 0),
    failures: turns.reduce((n, t) => n + t.failures, 0),
  };
  if (info.title) facts.title = info.title;
  if (info.cwd) facts.cwd = info.cwd;
  if (tokens) facts.tokens = tokens;
  else if (session.usage) {
    const { input, output, cacheRead, cacheWrite } = session.usage;
    facts.tokens = Object.fromEntries(Object.entries({ input, output, cacheRead, cacheWrite }).filter(([, v]) => v !== undefined)) as Tokens;
    facts.tokensScope = 'session';
  }
  if (stamps.length > 0) {
    facts.firstActivity = stamps[0];
    facts.lastActivity = stamps.at(-1);
  }
  return facts;
}
