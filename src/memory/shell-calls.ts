// Which parts are shell commands, the command string and directory each ran with, and which
// tool output answers each call. Agents name their shell tool differently (Bash, exec_command,
// run_shell_command, launch-process, …) and put the command in different argument fields;
// every provider turns a call's arguments into the call part's text — pretty JSON for
// model-issued calls (`{"command": "echo hello", "workdir": …}`), the bare command line for the
// shell runs a user typed into the agent (Claude Code and Pi `!cmd`, Crush bang mode, Codex
// `local_shell`, Aider's `/run`). A terminal record's command part is a shell command as typed.
// Everything that reasons about commands (the file ledger, the runs stream, command counts)
// starts here so the tool names are listed once. Works on blocks and parts alike.

/** What this module reads of a block or a part. */
export type CallLike = { kind: string; text: string; label?: string; callId?: string; timestamp?: string };

export type ShellCall = {
  /** The command line as the shell received it (`bash -lc X` unwrapped to X). */
  command: string;
  /** The directory it ran in, when the call says so. */
  cwd?: string;
};

/** A shell tool call with the output that answers it. */
export type PairedShellCall<T extends CallLike = CallLike> = ShellCall & {
  /** The tool as the agent named it (`Bash`, `exec_command`, `run_shell_command`, …). */
  tool: string;
  call: T;
  /** The tool output that answers the call, when the transcript has one. */
  output?: T;
};

/**
 * Tool names (lower-cased, `-` and `.` read as `_`) whose call runs a shell command: Claude
 * Code, Continue `Bash`; Pi, OpenCode, Kilo, Copilot, Crush, Grok `bash`; Codex `exec_command`,
 * `shell`, `shell_command`, `local_shell`, `container.exec`; Gemini and Qwen
 * `run_shell_command`; Droid `Execute`; Auggie `launch-process`; Cline, Roo and the Kilo
 * extension `execute_command`; Cursor `Shell`, `run_terminal_cmd`; Goose `developer__shell`;
 * Hermes, OpenHands, Zed `terminal`; OpenHands `execute_bash`; kimi-cli `Shell`; Crush's bang
 * mode `shell_command`; Aider `run` and `git`; VS Code agents `run_in_terminal`.
 */
const SHELL_TOOLS = new Set([
  'bash',
  'shell',
  'sh',
  'zsh',
  'powershell',
  'pwsh',
  'shell_command',
  'local_shell',
  'exec_command',
  'execute',
  'execute_bash',
  'execute_command',
  'run_shell_command',
  'run_terminal_cmd',
  'run_terminal_command',
  'run_in_terminal',
  'run_command',
  'launch_process',
  'terminal',
  'developer__shell',
  'container_exec',
  'cmd',
  'run',
  'git',
]);

const COMMAND_FIELDS = ['command', 'cmd', 'commandLine', 'command_line', 'script'];
const CWD_FIELDS = ['workdir', 'cwd', 'working_directory', 'workingDirectory', 'dir', 'directory', 'dir_path', 'cd'];

const toolKey = (label: string): string => label.toLowerCase().replace(/[-.]/g, '_');

/** A tool a server exposes under a prefix (`mcp__box__bash`) keeps its name after the last `__`. */
export function isShellTool(label: string | undefined): boolean {
  if (label === undefined) return false;
  const key = toolKey(label);
  if (SHELL_TOOLS.has(key)) return true;
  const cut = key.lastIndexOf('__');
  return cut !== -1 && SHELL_TOOLS.has(key.slice(cut + 2));
}

/** A tool call's arguments as an object, when its text is a JSON object. */
export function toolArgs(part: CallLike): Record<string, unknown> | undefined {
  const t = part.text.trimStart();
  if (!t.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(part.text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Shells whose `-c` argument is the command line itself (`["bash", "-lc", "npm test"]`). */
const WRAPPERS = /(^|\/)((ba|z|da|k)?sh|pwsh|powershell)(\.exe)?$/;

/** An argv as a command line: the script of `bash -lc SCRIPT`, else the words quoted as a shell would need. */
function unwrapShell(argv: string[]): string {
  if (argv.length === 3 && WRAPPERS.test(argv[0]!) && /^-[a-z]*c[a-z]*$|^-Command$/i.test(argv[1]!)) return argv[2]!;
  return argv.map((w) => (w !== '' && /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function commandOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return unwrapShell(value as string[]);
  return undefined;
}

/**
 * The shell command a part ran: a terminal record's command, or an agent's shell tool call —
 * from its JSON arguments, or the call's text itself where the provider stored the bare command
 * line. A shell tool's call without a command (one that only polls a running process) is not a
 * command.
 */
export function shellCallOf(part: CallLike): ShellCall | undefined {
  if (part.kind === 'command') return part.text.trim() === '' ? undefined : { command: part.text };
  if (part.kind !== 'tool_call' || !isShellTool(part.label)) return undefined;
  const parsed = toolArgs(part);
  if (!parsed) {
    // `{ make; make install; }` typed by a user is a command, not arguments.
    const line = part.text.trim();
    return line === '' || line === '{}' ? undefined : { command: line };
  }
  // Codex `local_shell` keeps its argv under `action` when the parser could not join it.
  const action = parsed.action;
  const args = typeof action === 'object' && action !== null && !Array.isArray(action) ? { ...(action as Record<string, unknown>), ...parsed } : parsed;
  let command: string | undefined;
  for (const f of COMMAND_FIELDS) if ((command = commandOf(args[f])) !== undefined) break;
  if (command === undefined) return undefined;
  const call: ShellCall = { command };
  for (const f of CWD_FIELDS) {
    const v = args[f];
    if (typeof v === 'string' && v.trim() !== '') {
      call.cwd = v;
      break;
    }
  }
  return call;
}

/**
 * Every shell tool call among `items` (one turn's parts or a session's blocks, in order), each
 * with the output that answers it: the tool output with the same call id, else — for providers
 * that give none — the first tool output after the call that no identified call claims.
 */
export function shellCalls<T extends CallLike>(items: readonly T[]): PairedShellCall<T>[] {
  const byId = new Map<string, T>();
  for (const item of items) if (item.kind === 'tool_output' && item.callId !== undefined && !byId.has(item.callId)) byId.set(item.callId, item);
  const callIds = new Set(items.filter((i) => i.kind === 'tool_call' && i.callId !== undefined).map((i) => i.callId));
  const taken = new Set<T>();
  const out: PairedShellCall<T>[] = [];
  items.forEach((item, i) => {
    if (item.kind !== 'tool_call') return;
    const found = shellCallOf(item);
    let output = item.callId !== undefined ? byId.get(item.callId) : undefined;
    if (output === undefined) {
      // The next output that answers no identified call, before the next call without an id.
      for (let k = i + 1; k < items.length; k++) {
        const next = items[k]!;
        if (next.kind === 'tool_call' && next.callId === undefined) break;
        if (next.kind === 'tool_output' && !taken.has(next) && (next.callId === undefined || !callIds.has(next.callId))) {
          output = next;
          break;
        }
      }
    }
    if (output !== undefined) taken.add(output);
    if (found === undefined) return;
    const call: PairedShellCall<T> = { tool: item.label!, ...found, call: item };
    if (output !== undefined) call.output = output;
    out.push(call);
  });
  return out;
}

/**
 * A shell tool's output as the command printed it: Gemini CLI wraps it in a report
 * (`<untrusted_context>`, `Output: …`, `Process Group PGID: N`, `Exit Code: N`); the other
 * providers store the output itself.
 */
export function shellOutputText(text: string): string {
  const inner = /^<untrusted_context>\n([\s\S]*)\n<\/untrusted_context>$/.exec(text)?.[1] ?? text;
  const m = /^(?:Command: .*\n)?(?:Directory: .*\n)?Output: ([\s\S]*?)(?:\n(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): .*)*$/.exec(inner);
  if (!m) return text;
  const body = m[1]!;
  return body === '(empty)' ? '' : body;
}
