// `sivtr mcp`: the memory as an MCP server on stdin/stdout. One long-lived process, so the second
// search no longer pays for starting node, loading the SDK or opening the index. Every result is
// text with refs in it, paged by `max_chars` + `cursor`; a problem with the arguments or the data
// is a tool error that says what to do, never a crash of the server.
import { Writable } from 'node:stream';
import { SivtrError } from '../errors.js';
import { packageVersion } from '../cli/version.js';
import { maskSecrets } from '../text/secrets.js';
import { DEFAULT_MAX_CHARS, MIN_MAX_CHARS, pageText, toolPage } from './page.js';
import { loadSdk, type Sdk } from './sdk.js';
import { WarmSearch } from '../store/engine.js';
import { PART_KINDS, SEARCH_FIELDS } from '../cli/commands/search.js';
import { diffTool, filesTool, overviewTool, QUIET, recentCommandsTool, searchTool, sessionsTool, showTool, turnsTool, type ToolContext } from './tools.js';

type Text = { content: { type: 'text'; text: string }[]; isError?: boolean };

/**
 * What leaves the server: the one place where secret masking applies to every tool. There is no
 * way to reveal them over MCP — a person who needs one runs `sivtr show REF --reveal`.
 */
function outgoing(text: string): string {
  const { text: safe, count, kinds } = maskSecrets(text);
  if (count === 0) return safe;
  return `${safe}${safe.endsWith('\n') ? '' : '\n'}[masked ${count} secret${count === 1 ? '' : 's'} (${kinds.join(', ')}); secrets are never revealed over MCP]\n`;
}

function failure(error: unknown): Text {
  if (error instanceof SivtrError) return { content: [{ type: 'text', text: outgoing(error.message) }], isError: true };
  const message = error instanceof Error ? error.message : String(error);
  if (process.env.SIVTR_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return { content: [{ type: 'text', text: `unexpected error: ${message} — rerun the server with SIVTR_DEBUG=1 and report it` }], isError: true };
}

/** Runs a tool, then pages what it said. */
type Paging = { max_chars?: number; cursor?: string };

function paged<A>(name: string, ctx: ToolContext, tool: (args: A, ctx: ToolContext) => Promise<string>) {
  return async (args: A & Paging): Promise<Text> => {
    try {
      const text = outgoing(await tool(args, ctx));
      const { max_chars: _max, cursor: _cursor, ...rest } = args as Record<string, unknown>;
      const subject = `${name} ${JSON.stringify(rest, Object.keys(rest).sort())}`;
      const page = toolPage(name, subject, text, args.max_chars ?? DEFAULT_MAX_CHARS, args.cursor);
      return { content: [{ type: 'text', text: pageText(page, name) }] };
    } catch (error) {
      return failure(error);
    }
  };
}

function pagingArgs(z: Sdk['z']) {
  return {
    max_chars: z.number().int().min(MIN_MAX_CHARS).max(1_000_000).optional().describe(`at most this many characters in this answer (default ${DEFAULT_MAX_CHARS}); the end says how to get the rest`),
    cursor: z.string().optional().describe('where to continue: the cursor the previous page ended with'),
  };
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export function buildServer(sdk: Sdk, ctx: ToolContext) {
  const { McpServer, z } = sdk;
  const server = new McpServer(
    { name: 'sivtr', version: packageVersion() },
    {
      instructions:
        'sivtr remembers what ran in terminals (commands with their output and exit codes) and what AI agents did (Claude Code, Codex, Gemini, … sessions, turn by turn). ' +
        'Use recent_commands for "the last command\'s output" or "what just failed", search for anything seen before, sessions to list sessions, show to read a ref whole, diff to compare two. ' +
        'Every answer names what it shows by a ref (terminal/<session>/<n>, claude/<session>/<turn>/p<part>): cite refs, and pass them back to show or diff.',
    },
  );
  const page = pagingArgs(z);
  const status = z.enum(['success', 'failure', 'unknown']);
  server.registerTool(
    'search',
    {
      title: 'Search terminals and agent sessions',
      description: 'Ranked hits over recorded terminal commands and outputs, captured history and agent sessions (hits holding every word first, then all but one, and so on). Each hit has a ref to cite and to pass to show.',
      inputSchema: {
        query: z.string().describe('words to look for; empty lists the newest units that pass the filters'),
        target: z.string().optional().describe('all (default), terminal, agent, history, or a provider: claude, codex, gemini, pi, opencode, …'),
        kind: z
          .union([z.enum([...PART_KINDS, ...SEARCH_FIELDS]), z.array(z.enum(PART_KINDS)).min(1)], {
            error: `kind is one of ${PART_KINDS.join(', ')}, or a non-empty list of them`,
          })
          .optional()
          .describe(`only parts of this kind, or of these kinds: ${PART_KINDS.join(', ')} (as the CLI's --kind); the older values ${SEARCH_FIELDS.join(', ')} still mean what \`in\` does`),
        in: z.enum(SEARCH_FIELDS).optional().describe('where to look (as the CLI\'s --in): content (default), command, output, input (prompts, commands, user messages), title'),
        since: z.string().optional().describe('not before: RFC 3339, Unix seconds, 30m, 2h, 7d, today, yesterday'),
        until: z.string().optional().describe('not after (same forms as since)'),
        status: status.optional().describe('only units that succeeded, failed or whose outcome is unknown'),
        scope: z.string().optional().describe('global (default), workspace (the directory the server runs in) or an absolute directory'),
        limit: z.number().int().min(1).max(200).optional().describe('hits to return (default 10)'),
        ...page,
      },
      annotations: { title: 'Search', ...READ_ONLY },
    },
    paged('search', ctx, searchTool),
  );
  server.registerTool(
    'show',
    {
      title: 'Show a record, turn or part',
      description: 'The text of what a ref names: a terminal record (prompt, command, output), an agent turn part by part, one part (…/p3), or a whole session (source/session).',
      inputSchema: {
        ref: z.string().describe('a ref from another tool, e.g. terminal/3f2a9c1d/4 or claude/3f2a9c1d/2/p3; index lists (3-5,7) and part ranges (p2-4) work'),
        raw: z.boolean().optional().describe('the transcript records behind the turn or part, as the agent wrote them'),
        ...page,
      },
      annotations: { title: 'Show', ...READ_ONLY },
    },
    paged('show', ctx, showTool),
  );
  server.registerTool(
    'recent_commands',
    {
      title: 'Latest terminal commands',
      description: 'The latest recorded terminal commands with their output and exit code, newest first, over every terminal: what just ran, what just failed.',
      inputSchema: {
        n: z.number().int().min(1).max(100).optional().describe('how many records (default 5)'),
        status: status.optional().describe('failure for failed commands only, success, or unknown'),
        cwd: z.string().optional().describe('only commands run in this absolute directory or below it (workspace: the server\'s directory)'),
        ...page,
      },
      annotations: { title: 'Recent commands', ...READ_ONLY },
    },
    paged('recent_commands', ctx, recentCommandsTool),
  );
  server.registerTool(
    'sessions',
    {
      title: 'List sessions',
      description: 'Terminal and agent sessions, newest first, with their refs, last activity, turn counts, directories and titles.',
      inputSchema: {
        provider: z.string().optional().describe('terminal or a provider (claude, codex, gemini, pi, opencode, …); every source when omitted'),
        scope: z.string().optional().describe('workspace (default: the directory the server runs in), global, or an absolute directory'),
        limit: z.number().int().min(1).max(500).optional().describe('at most this many sessions (default 20)'),
        ...page,
      },
      annotations: { title: 'Sessions', ...READ_ONLY },
    },
    paged('sessions', ctx, sessionsTool),
  );
  server.registerTool(
    'diff',
    {
      title: 'Diff two records, turns or parts',
      description: 'A unified diff of two refs (or recency selectors of the current terminal: 1 = the last command); the older side is ---, the newer +++.',
      inputSchema: {
        left: z.string().describe('a ref, or a recency selector like 2'),
        right: z.string().describe('a ref, or a recency selector like 1'),
        aspect: z.enum(['output', 'block', 'input', 'command']).optional().describe('what is compared: output (default), block (input and output), input, command'),
        ...page,
      },
      annotations: { title: 'Diff', ...READ_ONLY },
    },
    paged('diff', ctx, diffTool),
  );
  server.registerTool(
    'files',
    {
      title: 'Files a session wrote',
      description: 'The file ledger: every file a session (or a turn, or every session of a workspace) wrote, with the number of writes, the rule that proves each (observed from a write tool, or derived from shell syntax) and the refs of the evidence.',
      inputSchema: {
        session: z.string().optional().describe('a session or turn ref (claude/3f2a9c1d, codex/01a2/3) or a provider for its current session; every session of the scope when omitted'),
        scope: z.string().optional().describe('without a session: workspace (default: the directory the server runs in), global, or an absolute directory'),
        ...page,
      },
      annotations: { title: 'Files', ...READ_ONLY },
    },
    paged('files', ctx, filesTool),
  );
  server.registerTool(
    'overview',
    {
      title: 'What a session did',
      description: 'One screen of facts about an agent or terminal session: turns with their status, parts by kind, files changed, commands run, failures, tokens where the agent recorded them, first and last activity. Next: turns, then show.',
      inputSchema: {
        session: z.string().describe('a session ref (claude/3f2a9c1d…, codex/current, terminal/current)'),
        ...page,
      },
      annotations: { title: 'Overview', ...READ_ONLY },
    },
    paged('overview', ctx, overviewTool),
  );
  server.registerTool(
    'turns',
    {
      title: 'One line per turn',
      description: 'Every turn of a session, each with its ref, status and the evidence for it (finished, running, aborted, unfinished, unknown), start time, duration, part range, file/command/failure counts, and the first line of the request (▸) and of the reply (◂).',
      inputSchema: {
        session: z.string().describe('a session ref (claude/3f2a9c1d…, codex/current, terminal/current)'),
        ...page,
      },
      annotations: { title: 'Turns', ...READ_ONLY },
    },
    paged('turns', ctx, turnsTool),
  );
  return server;
}

/**
 * Serves until the client closes stdin. Anything else that writes to stdout would corrupt the
 * protocol, so stdout is handed to the transport alone and every other write goes to stderr.
 */
export async function serve(): Promise<void> {
  const sdk = loadSdk();
  const writeOut = process.stdout.write.bind(process.stdout);
  const channel = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      writeOut(chunk, callback);
    },
  });
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  const warm = new WarmSearch(process.env, QUIET);
  const server = buildServer(sdk, { env: process.env, cwd: process.cwd(), warm });
  const transport = new sdk.StdioServerTransport(process.stdin, channel);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  warm.close();
  await server.close();
}
