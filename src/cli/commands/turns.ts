// sivtr turns <session> [--json] — one line per turn: number, status with its evidence, start,
// duration, part range, counts, and the first line of the prompt (▸) and of the reply (◂).
import { turnFacts, type TurnFacts } from '../../memory/overview.js';
import { duration, localTime, oneLine, out, outJson, styles, useColor } from '../output.js';
import { resolveSessionArg } from '../session-arg.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { SCOPE_FLAGS } from './common.js';

export const spec: CommandSpec = {
  name: 'turns',
  usage: '<session>',
  describe: 'one line per turn: status with its evidence, time, parts, counts, prompt and reply',
  positionals: [{ name: 'session', describe: 'source/session, or turns of it (claude/3f2a9c1d/2-5)' }],
  flags: {
    ...SCOPE_FLAGS,
    json: { type: 'boolean', describe: 'print JSON' },
    width: { type: 'number', describe: 'characters of prompt and reply shown per line (default: 40 each)' },
  },
  examples: [
    ['sivtr turns claude/current', 'how each turn of the newest Claude Code session went'],
    ['sivtr show claude/current/3/p4', 'then read one part of turn 3'],
  ],
};

const STATUS_WIDTH = 'unfinished'.length;

function line(t: TurnFacts, width: number, colour: boolean, numberWidth: number): string {
  const s = styles(colour);
  const paint = t.status.status === 'finished' ? s.green : t.status.status === 'aborted' || t.status.status === 'unfinished' ? s.red : t.status.status === 'running' ? s.yellow : s.dim;
  const counts = `${t.files.files} files · ${t.commands} cmd · ${t.failures} fail`;
  const cells = [
    `T${t.index}`.padEnd(numberWidth),
    paint(t.status.status.padEnd(STATUS_WIDTH)),
    localTime(t.start ?? t.end),
    (duration(t.durationMs) || '-').padStart(6),
    (t.parts || '-').padEnd(6),
    counts,
    `▸ ${oneLine(t.user, width) || '-'}`,
    `◂ ${oneLine(t.reply, width) || '-'}`,
    s.dim(`[${t.status.evidence}]`),
  ];
  return cells.join('  ');
}

export async function run(args: ParsedArgs): Promise<number> {
  const resolved = await resolveSessionArg('turns', args);
  const turns = turnFacts(resolved.session, resolved.units);
  if (args.json) {
    outJson(turns);
    return 0;
  }
  const width = args.width === undefined ? 40 : Math.max(8, Number(args.width));
  out(turnsText(turns, width, useColor(args)));
  return 0;
}

/** One line per turn, as the command prints them (the MCP server asks for no colour). */
export function turnsText(turns: TurnFacts[], width: number, colour: boolean): string {
  const numberWidth = Math.max(0, ...turns.map((t) => `T${t.index}`.length));
  return turns.map((t) => line(t, width, colour, numberWidth)).join('\n');
}
