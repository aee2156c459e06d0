// sivtr overview <session> [--json] — one screen of facts about a session: turns, parts by
// kind, commands, failures, tokens where recorded, first and last activity.
import { count } from '../../plural.js';
import { sessionFacts, turnFacts, type SessionFacts } from '../../memory/overview.js';
import type { Tokens } from '../../memory/unit-facts.js';
import { localTime, oneLine, out, outJson, shortPath } from '../output.js';
import type { Resolved } from '../../memory/resolve.js';
import { resolveSessionArg } from '../session-arg.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { SCOPE_FLAGS } from './common.js';

export const spec: CommandSpec = {
  name: 'overview',
  usage: '<session>',
  describe: 'one screen of facts about a session: turns, parts, commands, failures, tokens, activity',
  positionals: [{ name: 'session', describe: 'source/session (claude/3f2a9c1d, codex/current, terminal/current)' }],
  flags: {
    ...SCOPE_FLAGS,
    json: { type: 'boolean', describe: 'print JSON' },
  },
  examples: [
    ['sivtr overview claude/current', 'what the newest Claude Code session of this workspace did'],
    ['sivtr overview codex/3f2a9c1d --json', 'the same facts for a program'],
  ],
};

const KIND_NAMES: [string, string][] = [
  ['user', 'user message'],
  ['assistant', 'assistant message'],
  ['thinking', 'thinking block'],
  ['tool_call', 'tool call'],
  ['tool_output', 'tool output'],
  ['compaction', 'compaction'],
  ['prompt', 'prompt'],
  ['command', 'command'],
  ['output', 'output'],
];

const n = (v: number): string => v.toLocaleString('en-US');

export function tokensLine(t: Tokens): string {
  const pieces: string[] = [];
  if (t.input !== undefined) pieces.push(`input ${n(t.input)}`);
  if (t.output !== undefined) pieces.push(`output ${n(t.output)}`);
  if (t.cacheRead !== undefined) pieces.push(`cache reads ${n(t.cacheRead)}`);
  if (t.cacheWrite !== undefined) pieces.push(`cache writes ${n(t.cacheWrite)}`);
  return pieces.join(' · ');
}

function markdown(f: SessionFacts, shownRef: string): string {
  const noun = f.unitKind === 'record' ? 'record' : 'turn';
  const lines = [`# ${shownRef}${f.title ? ` — ${oneLine(f.title, 70)}` : ''}`, ''];
  if (f.cwd) lines.push(`- **cwd**: ${shortPath(f.cwd)}`);
  const statuses = Object.entries(f.statuses).map(([word, k]) => `${k} ${word}`).join(', ');
  lines.push(`- **${noun}s**: ${f.units}${statuses ? ` (${statuses})` : ''}`);
  const total = Object.values(f.parts).reduce((a, b) => a + (b ?? 0), 0);
  const kinds = KIND_NAMES.filter(([k]) => (f.parts as Record<string, number | undefined>)[k]).map(([k, name]) => count((f.parts as Record<string, number>)[k]!, name));
  lines.push(`- **parts**: ${total}${kinds.length ? ` — ${kinds.join(', ')}` : ''}`);
  lines.push(`- **files changed**: ${count(f.files.files, 'file')} (${count(f.files.writes, 'write')})`);
  lines.push(`- **commands run**: ${f.commands}`);
  lines.push(`- **failures**: ${f.failures}`);
  if (f.tokens) lines.push(`- **tokens**: ${tokensLine(f.tokens)}${f.tokensScope === 'session' ? ' (the agent\'s session total: it records none per turn)' : ''}`);
  lines.push(`- **first activity**: ${localTime(f.firstActivity)}`);
  lines.push(`- **last activity**: ${localTime(f.lastActivity)}`);
  lines.push('', `Next: \`sivtr turns ${shownRef}\` for one line per ${noun}.`);
  return lines.join('\n') + '\n';
}

export function overviewOf(resolved: Resolved): SessionFacts {
  return sessionFacts({ ...resolved.session, units: resolved.units }, turnFacts(resolved.session, resolved.units));
}

/** The Markdown screen, headed by `shownRef` (the short ref on a terminal, the full one for MCP). */
export function overviewMarkdown(resolved: Resolved, shownRef = `${resolved.session.info.source}/${resolved.session.info.displayId}`): string {
  return markdown(overviewOf(resolved), shownRef);
}

export async function run(args: ParsedArgs): Promise<number> {
  const resolved = await resolveSessionArg('overview', args);
  if (args.json) {
    outJson(overviewOf(resolved));
    return 0;
  }
  out(overviewMarkdown(resolved));
  return 0;
}
