// Agents that load skills from a folder of their own (`<skills dir>/<name>/SKILL.md`, the Agent
// Skills layout), where that folder is, and which other folders each one also reads — so one
// installed copy can serve several agents, and no agent is shown the same skill twice.
//   Claude Code   ~/.claude/skills (or $CLAUDE_CONFIG_DIR/skills)
//   Codex CLI     ~/.agents/skills (its documented user scope)
//   Gemini CLI    ~/.gemini/skills, and the ~/.agents/skills alias
//   OpenCode      ~/.config/opencode/skills, and ~/.claude/skills, ~/.agents/skills
//   Copilot CLI   ~/.copilot/skills, and ~/.claude/skills, ~/.agents/skills
//   pi            ~/.pi/agent/skills (or $PI_CODING_AGENT_DIR/skills), and ~/.agents/skills
import { join } from 'node:path';
import { homeOf } from '../agents/common.js';
import { agentHomes } from '../cli/agent-homes.js';

type Env = NodeJS.ProcessEnv;

export type SkillAgent = {
  name: string;
  label: string;
  /** The agent's own folder: it is on this machine when this exists. */
  home(env: Env): string;
  skillsDir(env: Env): string;
  /** Skills folders it reads besides its own. */
  alsoReads(env: Env): string[];
};

const claudeShared = (env: Env): string => join(homeOf(env), '.claude', 'skills');
const agentsShared = (env: Env): string => join(agentHomes.agents(env), 'skills');

/** In this order: agents that read only their own folder first, so the others can share theirs. */
export const SKILL_AGENTS: SkillAgent[] = [
  { name: 'claude', label: 'Claude Code', home: agentHomes.claude, skillsDir: (env) => join(agentHomes.claude(env), 'skills'), alsoReads: () => [] },
  { name: 'codex', label: 'Codex CLI', home: agentHomes.codex, skillsDir: agentsShared, alsoReads: () => [] },
  { name: 'gemini', label: 'Gemini CLI', home: agentHomes.gemini, skillsDir: (env) => join(agentHomes.gemini(env), 'skills'), alsoReads: (env) => [agentsShared(env)] },
  { name: 'opencode', label: 'OpenCode', home: agentHomes.opencode, skillsDir: (env) => join(agentHomes.opencode(env), 'skills'), alsoReads: (env) => [claudeShared(env), agentsShared(env)] },
  { name: 'copilot', label: 'GitHub Copilot CLI', home: agentHomes.copilot, skillsDir: (env) => join(agentHomes.copilot(env), 'skills'), alsoReads: (env) => [claudeShared(env), agentsShared(env)] },
  { name: 'pi', label: 'pi', home: agentHomes.pi, skillsDir: (env) => join(agentHomes.pi(env), 'skills'), alsoReads: (env) => [agentsShared(env)] },
];

export const skillAgentNames = (): string[] => SKILL_AGENTS.map((a) => a.name);
