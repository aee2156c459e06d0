// What copy / show / diff / search see, whatever the source (docs/architecture.md).
import type { BlockFacts, BlockKind, TokenUsage, TurnEnd } from '../agents/types.js';
import type { FileMark, PathProbe, StampList } from '../session/file-mark.js';
import type { PlainEntry } from '../session/entry.js';
import type { PathStamps } from './listing-snapshot.js';

export type PartKind = BlockKind | 'prompt' | 'command' | 'output';

/** A part carries every fact of the block it came from (BlockFacts), plus what terminals add. */
export type Part = BlockFacts & {
  n: number;
  kind: PartKind;
  text: string;
  ansi?: string;
  /** A terminal command as the terminal showed it (continuation prompts included), when that differs from `text`. */
  shown?: string;
  /** The text is the full output the agent cut, read back from this file (memory/restore.ts). */
  restored?: string;
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
  /**
   * Agent turns: the provider's last record of how this turn ended (the `ended` of its parts)
   * and the part it follows; absent when the provider recorded nothing.
   */
  ended?: TurnEnd & { part: number };
};

/**
 * A printed form of a source's whole listing, made by the command that prints it (`sessions`
 * keeps its table's cells) and kept beside the listing, so that a run with nothing changed
 * prints without making an object per session.
 */
export type ListingView = {
  /** A file name's word: one kept view per name and source. */
  name: string;
  /** What the form depends on besides the sessions (its own format, the home folder): another key, made again. */
  key: string;
  /** The form of every session, in listing order; undefined when it cannot hold these. */
  render(sessions: readonly SessionInfo[]): string | undefined;
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

export type OpenedSession = {
  info: SessionInfo;
  units: Unit[];
  /** The agent's own session total, when it keeps no per-response tokens (Transcript.usage). */
  usage?: TokenUsage;
};

/** `cwd` names the workspace; `scope`, when given, is a subtree that replaces it (`--scope PATH`). */
export type ListOptions = { env: NodeJS.ProcessEnv; cwd: string; global: boolean; scope?: string };

/**
 * What a source's units are: `record`s are commands with their output (parts p1 prompt, p2
 * command, p3 output; `copy SOURCE in|out|cmd N`), `turn`s are agent turns (`copy SOURCE
 * in|out|tool|all N`).
 */
export type UnitKind = 'record' | 'turn';

/**
 * What the index keeps about one session between runs; only the session's source reads it. A
 * session that is not a file of its own keeps its version in `head` and a size of -1.
 */
export type SessionMark = FileMark;

/** A session as the index stores it beside its units. */
export type IndexedSession = { id: string; title?: string; cwd?: string; updatedAt?: string; location: string };

/** One session brought up to date: unchanged since its mark, unreadable now, or read. */
export type SessionChange =
  | { kind: 'unchanged' }
  | { kind: 'failed'; why: string }
  | {
      kind: 'read';
      session: IndexedSession;
      units: Unit[];
      /** `append`: the units follow those already indexed; `replace`: they are all there is. */
      how: 'append' | 'replace';
      /** The content only grew since its mark (counted as appended, whatever `how` is). */
      grew: boolean;
      /** The time of a unit that has none of its own (an agent turn without timestamps). */
      fallbackAt?: string;
      /** What to remember (under `key`) for the next run, and the mark this read started from. */
      mark?: { key: string; now: SessionMark; since?: SessionMark };
      /** Lines parsed (reported by SIVTR_INDEX_STATS: tests prove tails are parsed, not files). */
      lines?: number;
    };

export type IndexContext = {
  env: NodeJS.ProcessEnv;
  /** False for the in-memory index of `--no-index`: nothing is remembered, caches are not used. */
  persistent: boolean;
  /** The fingerprint this source gave at the last sync ('' when there is none). */
  previous: string;
  /** The mark kept under `key` at the last sync. */
  mark(key: string): SessionMark | undefined;
  /** Tells missing paths from a few folder listings (the one the sync's freshness check uses). */
  probe?: PathProbe;
};

/**
 * Given to a record source's `update`: each record read is handed to it, in order, with its
 * index, and not made a unit (the change's `units` is then empty). The index packs a terminal
 * log's records this way as they are read, so no unit is made per record. The entry is only
 * lent: it may not be kept. A streamed record has a time of its own or none (`fallbackAt` does
 * not apply to it).
 */
export type RecordVisitor = (entry: PlainEntry, index: number) => void;

/** What indexing is to do for a source: every session there is now, each read on demand. */
export type IndexPlan = {
  /** Kept once every session is indexed; a source whose fingerprint is unchanged is skipped next time. */
  fingerprint?: string;
  sessions: { id: string; update(records?: RecordVisitor): Promise<SessionChange> }[];
  /** Releases what the plan holds open (a database). */
  close?(): void;
};

/** How a source keeps the search index current. */
export interface SourceIndex {
  /**
   * True when nothing this source reads changed since it gave `fingerprint` and the sessions
   * got the sizes and mtimes of their marks (`stamps`, by the keys the source gave them): the source is
   * then not asked at all. `probe` stats paths for this one check of every source (see PathProbe).
   */
  unchangedSince(fingerprint: string, env: NodeJS.ProcessEnv, stamps: StampList, probe: PathProbe): boolean;
  /** The sessions there are now (sessions of this source not listed leave the index). */
  plan(ctx: IndexContext): Promise<IndexPlan>;
}

/** A source's answer to `view`: its kept text, or its sessions; `stamps` when they vouch for it. */
export type SourceView = ({ view: string; made?: true } | { sessions: SessionInfo[] }) & { stamps?: PathStamps };

/** A source of units: the terminal logs, captured history, or one agent provider. */
export interface Source {
  readonly name: string;
  readonly unitKind: UnitKind;
  /** Each session is one unit (a history capture): `history/12` names the capture itself. */
  readonly sessionIsUnit?: boolean;
  /** Record sources: the records `copy SOURCE [mode] N` counts back through, oldest first. */
  recentRecords?(opts: ListOptions): Promise<Unit[]>;
  /** How the search index reads this source. */
  readonly index: SourceIndex;
  /** Sessions newest first, with their unit counts; workspace-filtered unless `global`. */
  list(opts: ListOptions & { limit?: number }): Promise<SessionInfo[]>;
  /**
   * Every session (as `list` with `global`), printed by `view`: the text kept with the
   * listing when nothing changed (else `made` now), or the sessions when this source keeps no
   * view of them. With the stamps the text answers by, when it has them (a page made from the
   * text is kept by them; see listing-snapshot).
   */
  view?(env: NodeJS.ProcessEnv, view: ListingView): Promise<SourceView>;
  /**
   * What this source's kept view depends on besides its stamps (the listing's inputs): part of a
   * kept page's key. Undefined for a source that keeps no view.
   */
  pageKey?(env: NodeJS.ProcessEnv): string | undefined;
  /** `current`, a full id or a unique prefix (never hidden by the workspace filter). */
  open(key: string, opts: ListOptions): Promise<OpenedSession>;
}
