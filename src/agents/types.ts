// The provider-neutral model every agent transcript is imported into (docs/formats.md).
/** `compaction`: the summary that replaced earlier history (auto-compaction, /compact, compression). */
export type BlockKind = 'user' | 'assistant' | 'tool_call' | 'tool_output' | 'thinking' | 'compaction';

/** Tokens one model response used, as the provider recorded them; each count is kept apart. */
export type TokenUsage = {
  /** Prompt tokens read fresh (never the cached ones: a cache re-read is not input). */
  input?: number;
  output?: number;
  /** Prompt tokens served from the provider's cache. */
  cacheRead?: number;
  /** Prompt tokens written into the cache. */
  cacheWrite?: number;
  /** Reasoning tokens, where recorded apart; already counted in `output`. */
  reasoning?: number;
};

/**
 * Where a block came from in the agent's own files, so `--raw` can print the record(s) as the
 * agent wrote them (readRawRecords in raw.ts). The file is always named: a fork may show its
 * parent's records, a provider may keep side files.
 */
export type RawLocator =
  /**
   * A line-oriented file (JSONL; a Markdown or plain-text transcript): 1-based line numbers
   * (blank lines counted, as `sed -n Np` counts them).
   */
  | { file: string; lines: number[] }
  /**
   * A SQLite database: the rows of `table` whose `column` holds one of `ids`. With `document`,
   * the row's cell in `document.column` holds a JSON document (zstd-compressed when
   * `compression` says so) and the records are the values its JSON pointers name.
   */
  | { db: string; table: string; column: string; ids: (string | number)[]; document?: RowDocument }
  /** One JSON document: JSON pointers (RFC 6901) to the values. */
  | { file: string; pointers: string[] };

/** A JSON document kept in one cell of a database row (Zed's thread bodies). */
export type RowDocument = { column: string; pointers: string[]; compression?: 'zstd' };

/**
 * What the provider itself recorded about how a turn ended (never inferred from the shape of
 * the turn). `completed`: a completion record (Codex task_complete, Claude stop_reason end_turn,
 * Pi stopReason stop, OpenCode finish stop, Gemini finish); `aborted`: an interruption the
 * provider wrote (Claude "[Request interrupted by user]", Codex turn_aborted, Pi stopReason
 * aborted); `error`: the turn stopped on an error record (an API error, Pi stopReason error).
 */
export type TurnEnd = {
  state: 'completed' | 'aborted' | 'error';
  /** The provider's own words: `stop_reason: end_turn`, `turn_aborted: interrupted`, … */
  evidence: string;
  /** The record that says so (it may hold no block of its own). */
  raw?: RawLocator;
  at?: string;
};

/**
 * The facts a block carries besides its kind and text. memory's Part is built from these too,
 * so a fact added here flows from provider to copy/show/search without being listed again.
 */
/** How an agent cut a tool output, as it recorded it (Pi: `details.truncation`, `fullOutputPath`). */
export type ToolTruncation = { fullOutputPath?: string; totalLines?: number; shownLines?: number; totalBytes?: number; shownBytes?: number };

/**
 * Files the agent itself recorded as changed (Codex FileChange items and patch_apply_end events,
 * Copilot fileEdits and session.shutdown codeChanges, OpenCode patch parts), apart from what a
 * tool's arguments say. The file ledger counts them as observed writes.
 */
export type RecordedChange = {
  /** The provider's record, as the ledger names the rule: `FileChange`, `codeChanges.filesModified`, `patch`, … */
  record: string;
  /** As recorded: absolute, or relative to the session's directory. */
  files: string[];
  /**
   * `call`: the changes of this block's tool call (its callId); `turn`: changes of this turn
   * that the record does not tie to one call (a step's or a process's summary).
   */
  scope: 'call' | 'turn';
  /** The record itself, when it is not the block's own. */
  raw?: RawLocator;
};

export type BlockFacts = {
  /** Tool name for tool_call / tool_output. */
  label?: string;
  callId?: string;
  timestamp?: string;
  /** The provider's own error flag (a failed tool, an API error reply). */
  isError?: boolean;
  /** Codex progress notes (`phase: commentary`): assistant text that is not the final reply. */
  commentary?: boolean;
  /**
   * tool_output: the exit code of the command, only when the agent recorded one (never
   * invented: an absent code is unknown, not 0).
   */
  exitCode?: number;
  /**
   * Tokens of the model response this block came from, on ONE block of that response (its
   * first recorded block, or the last before the provider's usage record), so summing the
   * blocks of a turn or session counts every response once.
   */
  usage?: TokenUsage;
  /** The record(s) of the agent's files this block was read from. */
  raw?: RawLocator;
  /** File changes the agent recorded for this block's call or turn. */
  changes?: RecordedChange[];
  /** tool_output: the agent cut the output before recording it (its own figures; the full text's path when it kept one). */
  truncated?: ToolTruncation;
  /**
   * Set on the last block before the provider's record of how the turn ended (the record that
   * ended it may carry no block itself). The last one in a turn is that turn's evidence.
   */
  ended?: TurnEnd;
};

export type Block = BlockFacts & {
  kind: BlockKind;
  text: string;
};

export type Transcript = {
  id: string;
  cwd?: string;
  title?: string;
  startedAt?: string;
  updatedAt?: string;
  /** Only real user messages are `user` blocks: providers drop or re-kind injected records. */
  blocks: Block[];
  /** Set by a provider that knows the newest turn has not finished (no completion marker yet). */
  lastTurnOpen?: boolean;
  /**
   * The session's running token total, from an agent that records no per-response figure
   * (Hermes, Droid): a session fact only, since no turn can be given its share.
   */
  usage?: TokenUsage;
};

/** What listing needs, read cheaply (stat plus bounded head/tail reads). */
export type TranscriptSummary = {
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
  summary(location: string, mtimeMs: number, size: number, compute: () => TranscriptSummary | undefined): TranscriptSummary | undefined;
  /** Whether a summary for this version is remembered (lets a provider skip costly preparation). */
  has?(location: string, mtimeMs: number, size: number): boolean;
}

export type DiscoverOptions = {
  env: NodeJS.ProcessEnv;
  memo?: SummaryMemo;
  /** Where notes about skipped lines go (default: the `warn` of errors.ts); listing passes a no-op. */
  warn?: (message: string) => void;
};

/** What a provider's `discover` reads besides its session files; see `Provider.listingInputs`. */
export type ListingInputs = {
  /** Folders it walks: every folder below them is checked by its mtime. */
  trees: string[];
  /** Other files or folders whose change can change what it yields (a title index, a settings file). */
  paths: string[];
};

export interface Provider {
  /** Also the ref source: `claude/<session>/3`. */
  readonly name: string;
  /**
   * Sessions of this provider, any order; absent data yields nothing and says nothing. A provider
   * that never waits returns a plain iterable (a sync generator): each step of an async one is a
   * promise and a microtask, ~4 µs a session in a fresh process, most of a warm listing's row.
   */
  discover(opts: DiscoverOptions): Iterable<TranscriptSummary> | AsyncIterable<TranscriptSummary>;
  /** Full, streaming parse of one session found by `discover`. */
  load(summary: TranscriptSummary, opts: DiscoverOptions): Promise<Transcript>;
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
  /**
   * Everything `discover` reads besides the session files, for a listing kept ready between runs
   * (src/memory/listing-snapshot.ts). Only a provider that names it, and whose sessions are files
   * inside its trees, has its listing kept; it must name every input, or a change there would
   * not show.
   */
  listingInputs?(env: NodeJS.ProcessEnv): ListingInputs;
  /** Parse a transcript file given by path (for `import <path>`). */
  loadFile?(path: string, opts: DiscoverOptions): Promise<Transcript>;
}
