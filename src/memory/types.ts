// What copy / show / diff / search see, whatever the source (architecture.md).
import type { BlockKind } from '../agents/types.js';

export type PartKind = BlockKind | 'prompt' | 'command' | 'output';

export type Part = {
  n: number;
  kind: PartKind;
  text: string;
  ansi?: string;
  label?: string;
  callId?: string;
  timestamp?: string;
  isError?: boolean;
  /** Agent progress notes (Codex `phase: commentary`): assistant text that is not the final reply. */
  commentary?: boolean;
};

/** A terminal record or an agent turn. */
export type Unit = {
  ref: string;
  source: string;
  session: string;
  index: number;
  parts: Part[];
  at?: string;
  cwd?: string;
  exitCode?: number;
  durationMs?: number;
  title: string;
  /** Agent turns: false while the turn is still running. */
  complete?: boolean;
};

/** One session of a source, as listed by `sessions` and resolved by refs. */
export type SessionInfo = {
  source: string;
  id: string;
  displayId: string;
  cwd?: string;
  cwds?: string[];
  title?: string;
  updatedAt?: string;
  /** Records (terminal) or turns (agents), when known without a full parse. */
  units?: number;
  location: string;
  /** The session this one ran inside (a subagent's parent). */
  parent?: string;
};

export type OpenedSession = { info: SessionInfo; units: Unit[] };

export type ListOptions = { env: NodeJS.ProcessEnv; cwd: string; global: boolean };

/**
 * What a source's units are: `record`s are commands with their output (parts p1 prompt, p2
 * command, p3 output; `copy SOURCE in|out|cmd N`), `turn`s are agent turns (`copy SOURCE
 * in|out|tool|all N`).
 */
export type UnitKind = 'record' | 'turn';

/** A source of units: the terminal logs, captured history, or one agent provider. */
export interface Source {
  readonly name: string;
  readonly unitKind: UnitKind;
  /** Each session is one unit (a history capture): `history/12` names the capture itself. */
  readonly sessionIsUnit?: boolean;
  /** Record sources: the records `copy SOURCE [mode] N` counts back through, oldest first. */
  recentRecords?(opts: ListOptions): Promise<Unit[]>;
  /** Sessions newest first; workspace-filtered unless `global`. */
  list(opts: ListOptions): Promise<SessionInfo[]>;
  /** `current`, a full id or a unique prefix (never hidden by the workspace filter). */
  open(key: string, opts: ListOptions): Promise<OpenedSession>;
}
