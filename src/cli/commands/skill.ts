// `sivtr skill install|status|uninstall`: teach every agent on this machine that loads skills
// when and how to call sivtr (skill/sivtr/SKILL.md, as `<skills dir>/sivtr`).
import { UsageError } from '../../errors.js';
import { note, out, shortPath } from '../output.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { unknownWord } from '../suggest.js';

export const spec: CommandSpec = {
  name: 'skill',
  usage: '[action]',
  describe: 'install the sivtr skill into every agent that loads skills (Claude Code, Codex, Gemini, …)',
  positionals: [{ name: 'action', describe: 'install, status (default) or uninstall' }],
  flags: {
    agent: { type: 'string', describe: 'only these agents, comma-separated (claude,codex,gemini,opencode,copilot,pi)' },
    copy: { type: 'boolean', describe: 'copy the file instead of linking it (for a loader that does not follow links)' },
    'dry-run': { type: 'boolean', describe: 'say what would be done, change nothing' },
    force: { type: 'boolean', describe: 'move aside a skill named sivtr that someone else put there' },
  },
  examples: [
    ['sivtr skill install', 'link the skill into every agent found here'],
    ['sivtr skill install --agent claude,codex --copy', 'copies, for these two only'],
    ['sivtr skill status', 'where each agent reads it from, and whether a copy is stale'],
  ],
};

const ACTIONS = ['install', 'status', 'uninstall'];

export async function run(args: ParsedArgs): Promise<number> {
  const [action = 'status', ...rest] = args._;
  if (!ACTIONS.includes(action)) throw unknownWord('skill action', action, ACTIONS, { display: (a) => `\`sivtr skill ${a}\`` });
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`, 'usage: sivtr skill install|status|uninstall [--agent a,b]');
  const [{ skillAgentNames }, skill] = await Promise.all([import('../../skill/agents.js'), import('../../skill/install.js')]);
  let names: string[] | undefined;
  if (typeof args.agent === 'string') {
    names = args.agent.split(',').map((n) => n.trim()).filter(Boolean);
    for (const n of names) if (!skillAgentNames().includes(n)) throw unknownWord('agent', n, skillAgentNames());
    if (names.length === 0) throw new UsageError('--agent needs a name', `one or more of ${skillAgentNames().join(', ')}`);
  }
  const source = skill.skillSource();
  const mode = args.copy ? 'copy' : 'link';
  const plans = skill.planFor(process.env, names, source, action === 'install' ? mode : undefined);
  const dryRun = args['dry-run'] === true;
  const width = Math.max(...plans.map((p) => p.agent.name.length));
  const line = (agent: string, text: string): string => `${agent.padEnd(width)}  ${text}`;

  if (action === 'status') {
    const lines = plans.map((p) => {
      if (!p.chosen) return line(p.agent.name, `not on this machine (${shortPath(p.agent.home(process.env))} is missing)`);
      if (p.shared) return line(p.agent.name, `${shortPath(p.shared.path)}: ${skill.describeState(p.shared.state)}, read from there (${p.shared.by === 'an earlier install' ? 'installed earlier' : `installed for ${p.shared.by}`})`);
      return line(p.agent.name, `${shortPath(p.own)}: ${skill.describeState(p.ownState)}`);
    });
    out(lines.join('\n'));
    return 0;
  }
  if (!plans.some((p) => p.chosen)) {
    note(`no agent that loads skills was found here (looked for ${plans.map((p) => shortPath(p.agent.home(process.env))).join(', ')}) — name one with --agent`);
    return 1;
  }
  const actions = action === 'install'
    ? skill.install(plans, source, { mode, force: args.force === true, dryRun })
    : skill.uninstall(plans, { dryRun });
  if (actions.length === 0) note('nothing of sivtr\'s to remove');
  out(actions.map((a) => line(a.agent, `${shortPath(a.path)}: ${a.did}`)).join('\n'));
  return actions.some((a) => a.problem) ? 1 : 0;
}
