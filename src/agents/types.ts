// The provider-neutral model every agent transcript is imported into (docs/formats.md).
/** `compaction`: the summary that replaced earlier history (auto-compaction, /compact, compression). */
export type BlockKind = 'user' | 'assistant' | 'tool_call' | 'tool_output' | 'thinking' | 'compaction';

export type Block = {
  kind: BlockKind;
  text: string;
  /** Tool name for tool_call / tool_output. */
  label?: string;
  callId?: string;
  timestamp?: string;
  isError?: boolean;
  /** Codex progress notes (`phase: commentary`): assistant text that is not the final reply. */
  commentary?: boolean;
};

export type AgentSession = {
  id: string;
  cwd?: string;
  title?: string;
  startedAt?: string;
  updatedAt?: string;
  /** Only real user messages are `user` blocks: providers drop or re-kind injected records. */
  blocks: Block[];
  /** Set by a provider that knows the newest turn has not finished (no completion marker yet). */
  lastTurnOpen?: boolean;
};

/** What listing needs, read cheaply (stat plus bounded head/tail reads). */
export type SessionSummary = {
  provider: string;
  id: string;
  /** Where the session lives: a file path, or a URI such as `opencode:<id>` for databases. */
  location: string;
  cwd?: string;
  /** Every cwd the session recorded, for the workspace filter. */
  cwds?: string[];
  title?: string;
  startedAt?: string;
  updatedAt: string;
  /** Other ids the session answers to (an inner id differing from the file name, …). */
  aliases?: string[];
  /** The session this one ran inside (a Claude Code subagent's parent): listed under it. */
  parent?: string;
  /**
   * For a session that is not a file of its own (a database row): a text that changes whenever
   * its content does (its last update). File sessions leave it out: their bytes are compared.
   */
  version?: string;
};

/** Remembers summaries by (location, mtime, size) between runs; see listing-cache.ts. */
export interface SummaryMemo {
  summary(location: string, mtimeMs: number, size: number, compute: () => SessionSummary | undefined): SessionSummary | undefined;
  /** Whether a summary for this version is remembered (lets a provider skip costly preparation). */
  has?(location: string, mtimeMs: number, size: number): boolean;
}

export type DiscoverOptions = {
  env: NodeJS.ProcessEnv;
  memo?: SummaryMemo;
  /** Where notes about skipped lines go (default: the `warn` of errors.ts); listing passes a no-op. */
  warn?: (message: string) => void;
};

export interface Provider {
  /** Also the ref source: `claude/<session>/3`. */
  readonly name: string;
  /** Sessions of this provider, any order; absent data yields nothing and says nothing. */
  discover(opts: DiscoverOptions): AsyncIterable<SessionSummary>;
  /** Full, streaming parse of one session found by `discover`. */
  load(summary: SessionSummary, opts: DiscoverOptions): Promise<AgentSession>;
  /** The session the calling process runs inside, from env hints (CODEX_THREAD_ID, …). */
  currentSessionHint?(env: NodeJS.ProcessEnv): string | undefined;
  /** True when a file's content is this provider's transcript format (for `import <path>`). */
  detect?(head: string, path: string): boolean;
  /** Where this provider's data lives (for messages when nothing is found, and the index's watch). */
  dataLocation?(env: NodeJS.ProcessEnv): string;
  /**
   * Files besides the session files whose change means sessions may have changed (a database
   * and its WAL). Without it the index watches `dataLocation`, the folders down to every
   * session file, and the files.
   */
  watchedPaths?(env: NodeJS.ProcessEnv): string[];
  /** Parse a transcript file given by path (for `import <path>`). */
  loadFile?(path: string, opts: DiscoverOptions): Promise<AgentSession>;
}
