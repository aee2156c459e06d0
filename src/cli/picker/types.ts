// What the picker's screen needs to know about an entry, and what it hands back. The screen is a
// chunk of its own (dist/picker.mjs, with Ink and React): it sees entries only through this shape,
// so everything that reads logs and transcripts stays in the main bundle.
import type { Filter } from './filter.js';
import type { Painted } from './painter.js';

/** A terminal record, an agent turn, or an agent session. */
export type EntryKind = 'record' | 'turn' | 'session';

/** What Enter copies: one of the entry's `aspects`, named for people. */
export type AspectName = 'block' | 'input' | 'output' | 'command' | 'turn' | 'user' | 'reply' | 'tool' | 'all';

export type PickEntry = {
  readonly key: string;
  readonly kind: EntryKind;
  readonly ref: string;
  /** `$` for a terminal record, else the source's name. */
  readonly tag: string;
  /** One line: the command, the user's message, the session's title. */
  readonly title: string;
  /** Local time and, for records, the exit status: shown at the end of its row. */
  readonly meta: string;
  readonly failed: boolean;
  /** Lower-cased text that the query is matched against. */
  readonly haystack: string;
  /** What can be copied from it; the first is the default. */
  readonly aspects: readonly AspectName[];
  /** Its text for an aspect; `ansi` keeps the colours it was shown in, where there are any. */
  text(aspect: AspectName, ansi: boolean): string;
  /** `#4 make`, `claude/3f2a9c1d/2`: what the copy confirmation names. */
  readonly what: string;
  /** Reads what `text` needs (a whole agent session) before it can be previewed or chosen. */
  load?(): Promise<void>;
};

export type UiMode = 'copy' | 'show' | 'diff';

export type UiProps = {
  entries: readonly PickEntry[];
  /** The whole list with agents' entries, asked for after the first paint and merged in when it comes. */
  later?: () => Promise<readonly PickEntry[]>;
  /** What Enter does: copy (or print), print as `show` does, or print a diff of two entries. */
  mode: UiMode;
  /** Enter prints instead of copying (`pick --print`): said in the keys line. */
  print?: boolean;
  color: boolean;
  /** The aspect to start from for records and for turns (`copy out --pick`). */
  aspect?: { record?: AspectName; turn?: AspectName };
  /** The diff of two texts, older first, as `sivtr diff` prints it. */
  diff(older: DiffSide, newer: DiffSide, color: boolean): Promise<string>;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  /** What the screen shows already: the frame drawn by the main bundle before the screen's chunk had loaded. */
  painted?: Painted;
  /** Where the keys typed before the screen's chunk had loaded left the list (early-keys.ts). */
  start?: HeadStart;
  /** Receives what stops the drawing at once (the terminal is being restored: a signal, a crash). */
  onStop?(stop: () => void): void;
};

export type HeadStart = { query: string; shown: readonly PickEntry[]; cursor: number; top: number; filter: Filter };

export type DiffSide = { entry: PickEntry; aspect: AspectName; text: string };

export type UiResult =
  | { kind: 'chosen'; entry: PickEntry; aspect: AspectName }
  | { kind: 'diff'; older: DiffSide; newer: DiffSide; text: string }
  | { kind: 'cancelled'; by: 'escape' | 'ctrl-c' };

export type PickerChunk = { runPickerUi(props: UiProps): Promise<UiResult> };
