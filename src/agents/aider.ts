// Aider: its chat history file (FILE below) at the root of each repository it ran in (or the file
// named by $AIDER_CHAT_HISTORY_FILE), Markdown appended over many runs (docs/formats.md). Each run starts
// with `# aider chat started at <local time>` and is one session; `#### ` lines are what the user
// typed, `> ` lines are Aider's own output (edits applied, commits, command output), everything
// else is the model's reply; `/run`-style commands are tool calls whose output follows. There is no global index, so sessions are found from the current
// directory up to the file system root.
import { nodeCrypto } from '../session/lazy-crypto.js';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  statOrUndefined, expandHome, pushBlock, titleFrom, sessionOfSummary,
} from './common.js';
import type { Transcript, Block, DiscoverOptions, Provider, TranscriptSummary } from './types.js';

/** The name Aider gives its chat history, a Markdown file (spelled in parts: it is data, not a document). */
const FILE = ['.aider', 'chat', 'history', 'md'].join('.');
const START = /^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\s*$/;

function historyFiles(env: NodeJS.ProcessEnv, cwd: string): string[] {
  const out = new Set<string>();
  if (env.AIDER_CHAT_HISTORY_FILE) out.add(resolve(cwd, expandHome(env.AIDER_CHAT_HISTORY_FILE, env)));
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const file = join(dir, FILE);
    if (existsSync(file)) out.add(file);
    if (dirname(dir) === dir) break;
  }
  return [...out].filter((f) => existsSync(f));
}

/** `first`: the file's 1-based line number of `lines[0]` (the line after the run's header). */
type Run = { started: string; lines: string[]; first: number };

function runsOf(text: string): Run[] {
  const runs: Run[] = [];
  for (const [i, line] of text.replace(/\r\n/g, '\n').split('\n').entries()) {
    const m = START.exec(line);
    if (m) runs.push({ started: m[1]!, lines: [], first: i + 2 });
    else runs.at(-1)?.lines.push(line);
  }
  return runs;
}

/** The inclusive range of 1-based line numbers from `a` to `b`. */
const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);

/** `at`, for raw locators: the history file and the line number of `lines[0]` in it. */
export function aiderBlocks(lines: string[], at?: { file: string; first: number }): Block[] {
  const blocks: Block[] = [];
  let kind: 'user' | 'assistant' | 'tool_output' | undefined;
  let buf: string[] = [];
  // indexes into `lines` of the current block's first and last non-blank line
  let from = -1;
  let to = -1;
  const locate = (a: number, b: number) => (at && a >= 0 ? { file: at.file, lines: range(at.first + a, at.first + b) } : undefined);
  const flush = (): void => {
    const raw = locate(from, to);
    if (kind) pushBlock(blocks, kind, buf.join('\n'), kind === 'tool_output' ? { label: blocks.at(-1)?.kind === 'tool_call' ? blocks.at(-1)!.label : 'aider', raw } : { raw });
    buf = [];
    from = to = -1;
  };
  const header = { seen: false };
  for (const [i, line] of lines.entries()) {
    const next = line.startsWith('#### ') ? 'user' : line.startsWith('> ') || line === '>' ? 'tool_output' : line.trim() === '' ? kind : 'assistant';
    // The `> Aider v…` banner before the first prompt describes the run, not a command.
    if (!header.seen && next === 'tool_output') continue;
    if (next === 'user') header.seen = true;
    if (next !== kind) {
      flush();
      kind = next;
    }
    // `/run`, `/test`, `/lint`, `/git` and `!cmd` run a shell command: a tool call, its output the `> ` lines after it
    const shell = next === 'user' ? /^(?:\/(run|test|lint|git)\s+|!)(.*)$/.exec(line.slice(5)) : null;
    if (shell) {
      flush();
      pushBlock(blocks, 'tool_call', (shell[1] === 'git' ? 'git ' : '') + shell[2]!, { label: shell[1] ?? 'run', raw: locate(i, i) });
      kind = undefined;
      continue;
    }
    buf.push(next === 'user' ? line.slice(5) : next === 'tool_output' ? line.replace(/^> ?/, '') : line);
    if (line.trim() !== '') {
      if (from < 0) from = i;
      to = i;
    }
  }
  flush();
  return blocks;
}

/** Local time as written by Aider, read as this machine's local time. */
const localIso = (stamp: string): string => new Date(stamp.replace(' ', 'T')).toISOString();

const fileKey = (file: string): string => nodeCrypto().createHash('sha1').update(file).digest('hex').slice(0, 6);
const idOf = (file: string, started: string): string => `${fileKey(file)}-${started.replace(/\D/g, '')}`;

function sessionsOf(file: string): { summary: TranscriptSummary; blocks: Block[] }[] {
  const runs = runsOf(readFileSync(file, 'utf8'));
  const cwd = dirname(file);
  const st = statOrUndefined(file);
  const mtime = st?.mtimeMs ?? 0;
  // Many sessions share one file: any change to it is a new version of each of them.
  const version = `${mtime}:${st?.size ?? 0}`;
  return runs.map((run, i) => {
    const blocks = aiderBlocks(run.lines, { file, first: run.first });
    const started = localIso(run.started);
    const next = runs[i + 1];
    return {
      blocks,
      summary: {
        provider: 'aider',
        id: idOf(file, run.started),
        location: `${file}#${run.started}`,
        cwd,
        cwds: [cwd],
        title: titleFrom(blocks.find((b) => b.kind === 'user')?.text),
        startedAt: started,
        // a run ends where the next begins; the last one is as new as the file
        updatedAt: next ? localIso(next.started) : new Date(mtime).toISOString(),
        version,
      },
    };
  });
}

async function* discover(opts: DiscoverOptions): AsyncIterable<TranscriptSummary> {
  for (const file of historyFiles(opts.env, process.cwd())) {
    for (const s of sessionsOf(file)) if (s.blocks.some((b) => b.kind === 'user')) yield s.summary;
  }
}

async function load(summary: TranscriptSummary): Promise<Transcript> {
  const file = summary.location.slice(0, summary.location.lastIndexOf('#'));
  const found = sessionsOf(file).find((s) => s.summary.id === summary.id);
  const blocks = found?.blocks ?? [];
  return sessionOfSummary(summary, blocks, blocks.at(-1)?.kind === 'user');
}

export const aider: Provider = {
  name: 'aider',
  discover,
  load,
  dataLocation: () => join(process.cwd(), FILE),
  watchedPaths: (env) => historyFiles(env, process.cwd()),
};
