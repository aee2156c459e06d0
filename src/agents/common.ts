// Helpers every provider needs: text clean-up, placeholders, tool pairing and listing walks
// (lines are read by session/jsonl.ts).
import { readdirSync, statSync, type Stats } from 'node:fs';
import { normalize } from 'node:path';
import stripAnsi from 'strip-ansi';
import type { Transcript, Block, BlockKind, DiscoverOptions, TranscriptSummary } from './types.js';
import { statStamp } from '../file-stat.js';
import { childPath } from '../files.js';
import { count } from '../plural.js';
import { maskSecrets } from '../text/secrets.js';

/** Providers find their data under the user's home (files.ts says how it is found). */
export { expandHome, home as homeOf } from '../files.js';

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A base64 payload never reaches the user: this line stands for it. */
export function imagePlaceholder(mime: string | undefined, base64?: unknown, kind = 'image'): string {
  const size = typeof base64 === 'string' ? ` ${formatKb(Math.floor((base64.length * 3) / 4))}` : '';
  return `[${kind}: ${mime || 'unknown'}${size ? ',' + size : ''}]`;
}

function formatKb(bytes: number): string {
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} B`;
}

/** Tool arguments as the reader wants them: pretty JSON; strings holding JSON are parsed first. */
export function prettyArgs(args: unknown): string {
  if (typeof args === 'string') {
    const t = args.trim();
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        return JSON.stringify(JSON.parse(t), null, 2);
      } catch {
        return args;
      }
    }
    return args;
  }
  if (args === undefined) return '';
  return JSON.stringify(args, null, 2) ?? '';
}

/** Harness-injected user texts (docs/formats.md): never the start of a turn. */
const INJECTED_PREFIXES = [
  '# AGENTS.md instructions for',
  '<environment_context>',
  '<turn_aborted>',
  '<local-command-caveat>',
  '<local-command-stdout>',
  '<local-command-stderr>',
  '<command-message>',
  '<command-name>',
  '<command-args>',
  '<ide_opened_file>',
  '<ide_selection>',
  '<system-reminder>',
  '<system_reminder>',
  '<task-notification>',
  '[Request interrupted by user',
];

export function isInjectedText(text: string, extra: readonly string[] = []): boolean {
  const t = text.trimStart();
  return INJECTED_PREFIXES.some((p) => t.startsWith(p)) || extra.some((p) => t.startsWith(p));
}

/** Push a block unless its text is empty after trimming (docs/formats.md: empty blocks are dropped). */
export function pushBlock(blocks: Block[], kind: BlockKind, text: string | undefined, extra: Partial<Block> = {}): void {
  let raw = text ?? '';
  // A tool's output is what a program printed for a pipe, colours included when it forced them
  // (test runners, `ls --color`). There is no screen to replay it on, so escapes are removed as
  // text, not rendered: strip-ansi, not the terminal model (docs/formats.md).
  if (kind === 'tool_output' && raw.includes('\u001b')) raw = stripAnsi(raw);
  const trimmed = raw.trim();
  if (trimmed === '') return;
  const block: Block = { kind, text: trimmed };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) (block as Record<string, unknown>)[k] = v;
  blocks.push(block);
}

/** Tool outputs without a label take it from their call (same id), else the nearest earlier call. */
export function labelToolOutputs(blocks: Block[]): void {
  const names = new Map<string, string>();
  let lastCall: string | undefined;
  for (const b of blocks) {
    if (b.kind === 'tool_call') {
      if (b.callId && b.label) names.set(b.callId, b.label);
      lastCall = b.label;
    } else if (b.kind === 'tool_output' && !b.label) {
      const label = (b.callId && names.get(b.callId)) || lastCall;
      if (label) b.label = label;
    }
  }
}

export function isoFromMs(ms: number): string {
  return new Date(ms).toISOString();
}

/** A timestamp (ISO string, epoch ms or epoch s) as ISO-8601, or undefined. */
export function toIso(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
  }
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value < 1e12 ? value * 1000 : value).toISOString();
  return undefined;
}

export function statOrUndefined(path: string): Stats | undefined {
  try {
    // Most probed paths are missing (agents not installed): no exception built for them.
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * The first line of a text, cut for a title. A line that is cut is masked first: half a token no
 * longer matches its rule when the title is masked on its way out.
 */
export function titleFrom(text: string | undefined, max = 80): string | undefined {
  if (!text) return undefined;
  let line = text.trim().split('\n', 1)[0]!.trim();
  if (line === '') return undefined;
  if (line.length > max) line = maskSecrets(line).text;
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
}

export type ReadIssue = { malformed: number; nulPadded: number };

/** One warning line per file when lines had to be skipped. */
export function reportSkipped(path: string, stats: ReadIssue, warn: (m: string) => void): void {
  const n = stats.malformed + stats.nulPadded;
  if (n > 0) warn(`skipped ${count(n, 'unreadable line')} in ${path}`);
}

/** Directory entries; a missing directory is silent, an unreadable one warns once. */
export function readDirQuiet(dir: string, what: string, warn: (m: string) => void): import('node:fs').Dirent[] {
  // A folder that is not there (most agents are not installed) is told by a stat that throws
  // nothing: readdirSync's ENOENT, its message and stack made, was ~60 K instructions, and a warm
  // `sessions --global` met some forty (ten editors' storages for each of Cline, Roo and Kilo).
  // A stat that fails otherwise leaves it to readdirSync, which tells why.
  let st;
  try {
    st = statStamp(dir);
  } catch {
    st = null;
  }
  if (st === undefined || (st !== null && st.kind !== 'folder')) return [];
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') warn(`cannot read ${what} in ${dir} (${code ?? 'error'}) — check its permissions`);
    return [];
  }
}

/** Session files that could not be read during one discovery, reported in a single line. */
export class UnreadableFiles {
  private count = 0;
  private first?: { path: string; code: string };

  add(path: string, error: unknown): void {
    this.count++;
    this.first ??= { path, code: (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : 'error') };
  }

  report(what: string, warn: (m: string) => void): void {
    if (!this.first) return;
    const others = this.count > 1 ? ` and ${this.count - 1} more` : '';
    warn(`cannot read ${what}: ${this.first.path} (${this.first.code})${others} — check their permissions`);
  }
}

type Summarize = (path: string, size: number, mtimeMs: number) => TranscriptSummary | undefined;

/**
 * Session files summarized through the listing memo: each candidate path is stat'ed (a missing
 * one is skipped), summarized once per (mtime, size), and the unreadable ones are reported in one
 * line at the end. Every file-based provider lists its sessions through here.
 */
export function* summariesOfFiles(paths: Iterable<string>, what: string, summarize: Summarize, opts: DiscoverOptions, warn: (m: string) => void): Generator<TranscriptSummary> {
  const unreadable = new UnreadableFiles();
  for (const path of paths) {
    const st = statOrUndefined(path);
    if (!st || !st.isFile()) continue;
    let summary: TranscriptSummary | undefined;
    try {
      const compute = (): TranscriptSummary | undefined => summarize(path, st.size, st.mtimeMs);
      summary = opts.memo ? opts.memo.summary(path, st.mtimeMs, st.size, compute) : compute();
    } catch (error) {
      // A whole-document JSON file caught mid-rewrite does not parse for a moment: it is read
      // again next time, so it is not worth a warning. Anything else is.
      if (!(error instanceof SyntaxError)) unreadable.add(path, error);
      continue;
    }
    if (summary) yield summary;
  }
  unreadable.report(what, warn);
}

/** Files `accept` takes in every folder of `root` (`<root>/<folder>/<file>`: Claude projects, Pi sessions). */
export function* filesInFolders(root: string, what: string, accept: (name: string) => boolean, warn: (m: string) => void): Generator<string> {
  const base = normalize(root);
  for (const dir of readDirQuiet(base, what, warn)) {
    if (!dir.isDirectory()) continue;
    const folder = childPath(base, dir.name);
    for (const file of readDirQuiet(folder, what, warn)) if (!file.isDirectory() && accept(file.name)) yield childPath(folder, file.name);
  }
}

/** Sessions stored one file each in `<root>/<folder>/<file>`, summarized through the memo. */
export function summariesInFolders(root: string, what: string, accept: (name: string) => boolean, summarize: Summarize, opts: DiscoverOptions, warn: (m: string) => void): Generator<TranscriptSummary> {
  return summariesOfFiles(filesInFolders(root, what, accept, warn), what, summarize, opts, warn);
}

/**
 * Message content as providers store it: a string, or an array of parts. Each part becomes text
 * through `partText` (undefined skips it); the texts are joined by newlines.
 */
export function joinContent(content: unknown, partText: (part: unknown) => string | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    const text = partText(part);
    if (text !== undefined) texts.push(text);
  }
  return texts.join('\n');
}

/** True when the newest block is not the model's answer: the turn is still at work. */
export const endsUnanswered = (blocks: readonly Block[]): boolean => blocks.length > 0 && blocks.at(-1)!.kind !== 'assistant';

/**
 * A session whose metadata listing already read (database rows, one run of a shared file):
 * the summary's facts plus the blocks loaded now. The title falls back to the first prompt.
 */
export function sessionOfSummary(summary: TranscriptSummary, blocks: Block[], lastTurnOpen = endsUnanswered(blocks)): Transcript {
  return {
    id: summary.id,
    cwd: summary.cwd,
    title: summary.title ?? titleFrom(blocks.find((b) => b.kind === 'user')?.text),
    startedAt: summary.startedAt,
    updatedAt: summary.updatedAt,
    blocks,
    lastTurnOpen,
  };
}
