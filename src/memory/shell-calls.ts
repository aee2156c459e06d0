// Which parts are shell commands, and the command string and directory each ran with. Agents
// name their shell tool differently (Bash, exec_command, run_shell_command, launch-process, …)
// and put the command in different argument fields; a terminal record's command part is a
// shell command as typed. Everything that reasons about commands (the file ledger, command
// counts) starts here so the tool names are listed once.
import type { Part } from './types.js';

export type ShellCall = {
  /** The command line as the shell received it (`bash -lc X` unwrapped to X). */
  command: string;
  /** The directory it ran in, when the call says so. */
  cwd?: string;
};

/** Tool names (lower-cased, `-` and `.` read as `_`) whose call runs a shell command. */
const SHELL_TOOLS = new Set([
  'bash',
  'shell',
  'shell_command',
  'local_shell',
  'exec_command',
  'execute',
  'execute_bash',
  'execute_command',
  'run_shell_command',
  'run_terminal_cmd',
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
const CWD_FIELDS = ['workdir', 'cwd', 'working_directory', 'workingDirectory', 'dir', 'directory'];

const toolKey = (label: string): string => label.toLowerCase().replace(/[-.]/g, '_');

export function isShellTool(label: string | undefined): boolean {
  return label !== undefined && SHELL_TOOLS.has(toolKey(label));
}

/** A tool call's arguments as an object, when its text is a JSON object. */
export function toolArgs(part: Part): Record<string, unknown> | undefined {
  const t = part.text.trimStart();
  if (!t.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(part.text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `["bash", "-lc", "X"]` and `bash -lc X` name the command X; anything else is the command itself. */
function unwrapShell(argv: string[]): string {
  if (argv.length === 3 && /(^|\/)(ba|z|da|k)?sh$/.test(argv[0]!) && /^-[a-z]*c[a-z]*$/.test(argv[1]!)) return argv[2]!;
  return argv.join(' ');
}

function commandOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return unwrapShell(value as string[]);
  return undefined;
}

/** The shell command a part ran: a terminal record's command, or an agent's shell tool call. */
export function shellCallOf(part: Part): ShellCall | undefined {
  if (part.kind === 'command') return part.text.trim() === '' ? undefined : { command: part.text };
  if (part.kind !== 'tool_call' || !isShellTool(part.label)) return undefined;
  const args = toolArgs(part);
  if (!args) {
    // Providers that record a user's own shell escape (`!cmd`) store the bare command line.
    return part.text.trim() === '' || part.text.trimStart().startsWith('{') ? undefined : { command: part.text };
  }
  let command: string | undefined;
  for (const f of COMMAND_FIELDS) if ((command = commandOf(args[f])) !== undefined) break;
  if (command === undefined) return undefined;
  const call: ShellCall = { command };
  for (const f of CWD_FIELDS) {
    const v = args[f];
    if (typeof v === 'string' && v !== '') {
      call.cwd = v;
      break;
    }
  }
  return call;
}
