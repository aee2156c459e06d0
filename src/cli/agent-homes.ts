// Where each agent keeps its own configuration, honouring the variables that move it, so that
// `sivtr init --mcp` and `sivtr skill` look where the agent itself looks.
import { join } from 'node:path';
import { expandHome, homeOf } from '../agents/common.js';

type Env = NodeJS.ProcessEnv;

const dirOr = (value: string | undefined, env: Env, fallback: string): string => (value ? expandHome(value, env) : fallback);

export const agentHomes = {
  claude: (env: Env): string => dirOr(env.CLAUDE_CONFIG_DIR, env, join(homeOf(env), '.claude')),
  codex: (env: Env): string => dirOr(env.CODEX_HOME, env, join(homeOf(env), '.codex')),
  gemini: (env: Env): string => join(dirOr(env.GEMINI_CLI_HOME, env, homeOf(env)), '.gemini'),
  qwen: (env: Env): string => join(homeOf(env), '.qwen'),
  opencode: (env: Env): string => join(dirOr(env.XDG_CONFIG_HOME, env, join(homeOf(env), '.config')), 'opencode'),
  copilot: (env: Env): string => dirOr(env.COPILOT_HOME, env, join(homeOf(env), '.copilot')),
  cursor: (env: Env): string => join(homeOf(env), '.cursor'),
  pi: (env: Env): string => dirOr(env.PI_CODING_AGENT_DIR, env, join(homeOf(env), '.pi', 'agent')),
  /** The cross-agent folder of the Agent Skills standard (`~/.agents/skills`). */
  agents: (env: Env): string => join(homeOf(env), '.agents'),
} as const;

/**
 * Claude Code keeps user-scope MCP servers in `~/.claude.json` (beside the `~/.claude` folder),
 * or in `$CLAUDE_CONFIG_DIR/.claude.json` when that variable moves its configuration.
 */
export function claudeUserConfig(env: Env): string {
  return env.CLAUDE_CONFIG_DIR ? join(expandHome(env.CLAUDE_CONFIG_DIR, env), '.claude.json') : join(homeOf(env), '.claude.json');
}
