// `sivtr init bash|zsh|pwsh`: load the sivtr hooks from the user's rc file (idempotent marked block).
import { UsageError } from '../../errors.js';
import type { InitStatus } from '../../capture/install.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { note } from '../output.js';
import { unknownWord } from '../suggest.js';

export const spec: CommandSpec = {
  name: 'init',
  usage: '[shell]',
  describe: 'record every command of bash, zsh or pwsh: installs the hooks in your rc file',
  positionals: [{ name: 'shell', describe: 'bash, zsh or pwsh' }],
  flags: {
    mcp: { type: 'string', describe: 'instead: add `sivtr mcp` to these agents\' MCP config (claude,codex,gemini,…), keeping a backup' },
    force: { type: 'boolean', describe: 'with --mcp: replace an MCP server named sivtr that someone else wrote' },
    print: { type: 'boolean', describe: 'print the snippet instead, for eval "$(sivtr init bash --print)"' },
    uninstall: { type: 'boolean', describe: 'remove the sivtr blocks from the rc file' },
    status: { type: 'boolean', describe: 'say what is installed' },
    'auto-start': { type: 'boolean', describe: 'also start every interactive shell under `sivtr shell` (records output); --no-auto-start turns it off' },
    keybinding: { type: 'boolean', describe: 'Alt-O at the prompt opens `sivtr pick`; --no-keybinding removes it' },
  },
  examples: [
    ['sivtr init bash', 'record command metadata in every new bash'],
    ['sivtr init zsh --auto-start', 'record commands and their output in every new zsh'],
    ['eval "$(sivtr init bash --print)"', 'load the hooks in this shell only'],
    ['sivtr init --mcp claude,codex', 'let Claude Code and Codex start `sivtr mcp`'],
  ],
};

const SHELLS = ['bash', 'zsh', 'pwsh'] as const;

function autoStartState(st: InitStatus): string {
  if (!st.autoStart) return 'off (metadata only; run `sivtr shell` to record output)';
  return st.autoStartProblem ? `on, but ${st.autoStartProblem.what}: ${st.autoStartProblem.fix}` : 'on (output recorded)';
}

/** `init --mcp a,b [--uninstall|--print]`: the MCP server in each agent's own config file. */
async function initMcp(list: string, args: ParsedArgs): Promise<number> {
  const { installMcp, printConfig, requireMcpAgent, uninstallMcp } = await import('../../mcp/agent-config.js');
  const names = list.split(',').map((n) => n.trim()).filter(Boolean);
  if (names.length === 0) throw new UsageError('--mcp needs an agent', 'e.g. `sivtr init --mcp claude` or `--mcp claude,codex`');
  names.forEach(requireMcpAgent);
  if (args.print) {
    process.stdout.write(names.map((n) => printConfig(n)).join('\n'));
    return 0;
  }
  for (const name of names) {
    const done = args.uninstall ? uninstallMcp(name, process.env) : await installMcp(name, process.env, { force: args.force === true });
    const backup = done.backup ? ` (the file as it was: ${done.backup})` : '';
    const said = {
      added: `added the sivtr MCP server to ${done.file}${backup}; restart ${name} to use it`,
      replaced: `replaced the MCP server named sivtr in ${done.file}${backup}`,
      already: `${done.file} already starts \`sivtr mcp\``,
      removed: `removed the sivtr MCP server from ${done.file}${backup}`,
      absent: `no sivtr MCP server in ${done.file}`,
    }[done.outcome];
    note(said);
  }
  return 0;
}

export async function run(args: ParsedArgs): Promise<number> {
  if (typeof args.mcp === 'string') {
    if (args._.length > 0) throw new UsageError(`--mcp takes no shell (got ${args._[0]})`, 'run `sivtr init bash` and `sivtr init --mcp claude` separately');
    return initMcp(args.mcp, args);
  }
  const kind = args._[0] === 'powershell' ? 'pwsh' : args._[0];
  if (!kind || !(SHELLS as readonly string[]).includes(kind)) {
    if (!kind) throw new UsageError('which shell?', 'use `sivtr init bash`, `sivtr init zsh` or `sivtr init pwsh`');
    throw unknownWord('shell', kind, SHELLS, { display: (s) => `\`sivtr init ${s}\`` });
  }
  const shell = kind as (typeof SHELLS)[number];
  const { hooksSnippet, initStatus, install, uninstall } = await import('../../capture/install.js');
  if (args.print) {
    process.stdout.write(hooksSnippet(shell) + '\n');
    return 0;
  }
  if (args.uninstall) {
    const { rc, removed } = uninstall(shell);
    note(removed ? `removed the sivtr blocks from ${rc}; new shells will not be recorded` : `nothing to remove in ${rc}`);
    return 0;
  }
  if (args.status) {
    const st = initStatus(shell);
    process.stdout.write(
      `${shell}: hooks ${st.hooks ? 'installed' : 'not installed'} in ${st.rc}` +
        (st.hooks ? `; auto-start ${autoStartState(st)}` : '') +
        (st.keybinding ? '; Alt-O opens the picker' : '') +
        '\n',
    );
    return st.hooks ? 0 : 1;
  }
  const choice = args['auto-start'];
  const keys = args.keybinding;
  const st = install(shell, { autoStart: typeof choice === 'boolean' ? choice : undefined, keybinding: typeof keys === 'boolean' ? keys : undefined });
  process.stderr.write(
    `sivtr: hooks installed in ${st.rc}. Open a new terminal: every command is recorded` +
      (st.autoStart ? ' with its output (auto-start under `sivtr shell`).\n' : ' (command, cwd, exit code, time); run `sivtr shell` or `sivtr init ' + shell + ' --auto-start` to record output too.\n'),
  );
  if (st.keybinding) process.stderr.write('sivtr: Alt-O at the prompt opens the picker (`sivtr init ' + shell + ' --no-keybinding` removes it).\n');
  return 0;
}
