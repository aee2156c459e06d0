// How each agent is told to start `sivtr mcp`: the snippet `sivtr mcp --print-config AGENT`
// prints, and the merge `sivtr init --mcp AGENT` makes into the agent's own config file. A merge
// adds one entry named `sivtr` and touches nothing else; the file as it was is kept beside it
// (`<file>.sivtr-backup`), a file that does not parse is left alone, and an entry named `sivtr`
// that someone else wrote is replaced only when asked (--force).
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SivtrError, UsageError } from '../errors.js';
import { agentHomes, claudeUserConfig } from '../cli/agent-homes.js';
import { unknownWord } from '../cli/suggest.js';

type Env = NodeJS.ProcessEnv;
const NAME = 'sivtr';
const COMMAND = 'sivtr';
const ARGS = ['mcp'];

type JsonAgent = {
  kind: 'json';
  label: string;
  file: (env: Env) => string;
  /** Where the servers live in the file. */
  path: string[];
  entry: Record<string, unknown>;
  /** A CLI of the agent's own that does the same, when it has one. */
  cli?: string;
};
type TomlAgent = { kind: 'toml'; label: string; file: (env: Env) => string; cli?: string };
type Agent = JsonAgent | TomlAgent;

const stdio = { command: COMMAND, args: ARGS };

export const MCP_AGENTS: Record<string, Agent> = {
  claude: {
    kind: 'json',
    label: 'Claude Code',
    file: claudeUserConfig,
    path: ['mcpServers'],
    entry: { type: 'stdio', ...stdio, env: {} },
    cli: `claude mcp add --scope user ${NAME} -- ${COMMAND} ${ARGS.join(' ')}`,
  },
  codex: { kind: 'toml', label: 'Codex CLI', file: (env) => join(agentHomes.codex(env), 'config.toml'), cli: `codex mcp add ${NAME} -- ${COMMAND} ${ARGS.join(' ')}` },
  gemini: { kind: 'json', label: 'Gemini CLI', file: (env) => join(agentHomes.gemini(env), 'settings.json'), path: ['mcpServers'], entry: { ...stdio }, cli: `gemini mcp add --scope user ${NAME} ${COMMAND} ${ARGS.join(' ')}` },
  qwen: { kind: 'json', label: 'Qwen Code', file: (env) => join(agentHomes.qwen(env), 'settings.json'), path: ['mcpServers'], entry: { ...stdio } },
  opencode: {
    kind: 'json',
    label: 'OpenCode',
    file: (env) => join(agentHomes.opencode(env), 'opencode.json'),
    path: ['mcp'],
    entry: { type: 'local', command: [COMMAND, ...ARGS], enabled: true },
  },
  copilot: {
    kind: 'json',
    label: 'GitHub Copilot CLI',
    file: (env) => join(agentHomes.copilot(env), 'mcp-config.json'),
    path: ['mcpServers'],
    entry: { type: 'local', ...stdio, tools: ['*'] },
  },
  cursor: { kind: 'json', label: 'Cursor', file: (env) => join(agentHomes.cursor(env), 'mcp.json'), path: ['mcpServers'], entry: { ...stdio } },
};

export const mcpAgentNames = (): string[] => Object.keys(MCP_AGENTS);

function agentOf(name: string): Agent {
  const agent = MCP_AGENTS[name];
  if (!agent) throw unknownWord('agent', name, mcpAgentNames(), { display: (n) => `\`--print-config ${n}\`` });
  return agent;
}

const TOML_MARK = '# added by `sivtr init --mcp codex`; `sivtr init --mcp codex --uninstall` removes it';
const tomlTable = (): string => `${TOML_MARK}\n[mcp_servers.${NAME}]\ncommand = ${JSON.stringify(COMMAND)}\nargs = ${JSON.stringify(ARGS)}\n`;

function nest(path: string[], entry: unknown): Record<string, unknown> {
  return path.reduceRight<Record<string, unknown>>((inner, key) => ({ [key]: inner }), { [NAME]: entry });
}

/** The text `sivtr mcp --print-config AGENT` prints: where it goes, and what to put there. */
export function printConfig(name: string, env: Env = process.env): string {
  const agent = agentOf(name);
  const file = agent.file(env);
  const body = agent.kind === 'toml' ? tomlTable().split('\n').slice(1).join('\n') : JSON.stringify(nest(agent.path, agent.entry), null, 2) + '\n';
  const lines = [
    `# ${agent.label}: merge this into ${file}`,
    ...(agent.cli ? [`# (or run: ${agent.cli})`] : []),
    `# or let sivtr merge it, keeping a backup: sivtr init --mcp ${name}`,
  ];
  return `${lines.join('\n')}\n${body}`;
}

// ── install / uninstall ─────────────────────────────────────────────────────────────────────

export type McpInstall = { agent: string; file: string; outcome: 'added' | 'already' | 'replaced' | 'removed' | 'absent'; backup?: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Writes next to the file and renames over it, keeping the file's mode: a crash leaves the old file whole. */
function writeKeeping(file: string, text: string): string | undefined {
  mkdirSync(dirname(file), { recursive: true });
  let backup: string | undefined;
  let mode = 0o600;
  if (existsSync(file)) {
    mode = statSync(file).mode & 0o777;
    backup = `${file}.sivtr-backup`;
    copyFileSync(file, backup);
  }
  const temp = `${file}.sivtr-${process.pid}`;
  writeFileSync(temp, text, { mode });
  renameSync(temp, file);
  return backup;
}

function readJson(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SivtrError(`${file} is not plain JSON (${(error as Error).message}), so sivtr leaves it alone`, `add the entry by hand: sivtr mcp --print-config shows it`);
  }
  if (!isRecord(value)) throw new SivtrError(`${file} does not hold a JSON object, so sivtr leaves it alone`, 'add the entry by hand: sivtr mcp --print-config shows it');
  return value;
}

/** The object at `path` inside `root`, created on the way when `create`. */
function servers(root: Record<string, unknown>, path: string[], file: string, create: boolean): Record<string, unknown> | undefined {
  let node = root;
  for (const key of path) {
    const next = node[key];
    if (next === undefined) {
      if (!create) return undefined;
      node[key] = {};
    } else if (!isRecord(next)) {
      throw new SivtrError(`"${path.join('.')}" in ${file} is not an object, so sivtr leaves the file alone`, 'fix it by hand, then run this again');
    }
    node = node[key] as Record<string, unknown>;
  }
  return node;
}

/** An entry that starts `sivtr mcp`, whatever else the user added to it (env, timeouts). */
function startsUs(entry: unknown): boolean {
  if (!isRecord(entry)) return false;
  const command = Array.isArray(entry.command) ? entry.command : [entry.command, ...(Array.isArray(entry.args) ? entry.args : [])];
  return typeof command[0] === 'string' && /(^|[/\\])sivtr(\.js|\.cmd)?$/.test(command[0]) && command[1] === 'mcp';
}

function installJson(name: string, agent: JsonAgent, env: Env, force: boolean): McpInstall {
  const file = agent.file(env);
  const root = readJson(file);
  const list = servers(root, agent.path, file, true)!;
  const existing = list[NAME];
  if (existing !== undefined) {
    if (same(existing, agent.entry) || startsUs(existing)) return { agent: name, file, outcome: 'already' };
    if (!force) throw new SivtrError(`${file} already has an MCP server named "${NAME}" that does not start \`sivtr mcp\``, 'look at it; --force replaces it (the file is backed up)');
  }
  list[NAME] = agent.entry;
  const backup = writeKeeping(file, JSON.stringify(root, null, 2) + '\n');
  return { agent: name, file, outcome: existing === undefined ? 'added' : 'replaced', backup };
}

async function installToml(name: string, agent: TomlAgent, env: Env): Promise<McpInstall> {
  const file = agent.file(env);
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const { parse } = await import('smol-toml');
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new SivtrError(`${file} is not valid TOML (${(error as Error).message.split('\n')[0]}), so sivtr leaves it alone`, 'fix it, or add the table by hand: sivtr mcp --print-config codex');
  }
  const existing = isRecord(doc.mcp_servers) ? doc.mcp_servers[NAME] : undefined;
  if (existing !== undefined) {
    if (startsUs(existing)) return { agent: name, file, outcome: 'already' };
    throw new SivtrError(`${file} already has [mcp_servers.${NAME}] that does not start \`sivtr mcp\``, 'edit or remove that table by hand; sivtr does not rewrite TOML it did not write');
  }
  // Appending a table keeps every comment and the layout of the user's file as they were.
  const sep = text === '' || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  const backup = writeKeeping(file, `${text}${sep}${tomlTable()}`);
  return { agent: name, file, outcome: 'added', backup };
}

export async function installMcp(name: string, env: Env, opts: { force?: boolean } = {}): Promise<McpInstall> {
  const agent = agentOf(name);
  return agent.kind === 'toml' ? installToml(name, agent, env) : installJson(name, agent, env, opts.force === true);
}

export function uninstallMcp(name: string, env: Env): McpInstall {
  const agent = agentOf(name);
  const file = agent.file(env);
  if (!existsSync(file)) return { agent: name, file, outcome: 'absent' };
  if (agent.kind === 'toml') {
    const text = readFileSync(file, 'utf8');
    const table = tomlTable();
    const at = text.indexOf(table);
    if (at < 0) return { agent: name, file, outcome: 'absent' };
    const before = text.slice(0, at).replace(/\n\n$/, '\n');
    const backup = writeKeeping(file, before + text.slice(at + table.length));
    return { agent: name, file, outcome: 'removed', backup };
  }
  const root = readJson(file);
  const list = servers(root, agent.path, file, false);
  if (!list || !startsUs(list[NAME])) return { agent: name, file, outcome: 'absent' };
  delete list[NAME];
  const backup = writeKeeping(file, JSON.stringify(root, null, 2) + '\n');
  return { agent: name, file, outcome: 'removed', backup };
}

export function requireMcpAgent(name: string): void {
  if (!MCP_AGENTS[name]) throw new UsageError(`no MCP config known for "${name}"`, `use one of ${mcpAgentNames().join(', ')}`);
}
