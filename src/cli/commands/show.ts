// sivtr show REF [--json] [--ansi] — a record, turn or part named by an exact ref.
import { jsonRef, jsonSession, unitJson, partJson } from '../../memory/json.js';
import { renderPart, renderParts, unitText, isTerminalUnit } from '../../memory/render.js';
import { resolveRef } from '../../memory/resolve.js';
import { requireRefSource } from '../source-name.js';
import { heading, out, outJson } from '../output.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { listOptions } from './common.js';
import { SivtrError } from '../../errors.js';

export const spec: CommandSpec = {
  name: 'show',
  usage: '<ref>',
  describe: 'print a record, turn or part by ref (terminal/current/2, claude/3f2a9c1d/3/p2)',
  positionals: [{ name: 'ref', describe: 'source/session[/index[/pN]]; index may be a list like 3-5,7' }],
  flags: {
    json: { type: 'boolean', describe: 'print JSON' },
    ansi: { type: 'boolean', describe: 'keep colours' },
  },
  examples: [
    ['sivtr show terminal/current/2', 'the second record of this terminal'],
    ['sivtr show claude/3f2a9c1d/3/p2', 'the second block of turn 3'],
  ],
};

export async function run(args: ParsedArgs): Promise<number> {
  const ref = args._[0];
  if (ref === undefined) throw new SivtrError('show needs a ref', 'e.g. `sivtr show terminal/current/2`', 2);
  requireRefSource(ref);
  const ansi = Boolean(args.ansi);
  const { units, part, session, single } = await resolveRef(ref, listOptions(args));
  if (args.json) {
    let value: unknown;
    if (part) value = { ref: jsonRef(units[0]!, session, part.n), source: units[0]!.source, session: jsonSession(units[0]!, session), index: units[0]!.index, ...partJson(part) };
    else if (single) value = unitJson(units[0]!, session, { ansi });
    else value = units.map((u) => unitJson(u, session, { ansi }));
    outJson(value);
    return 0;
  }
  let text: string;
  if (part) text = renderPart(part, { ansi });
  else {
    text = units
      .map((u) => (isTerminalUnit(u) ? unitText(u, 'block', { ansi }) : `${heading(u.ref, u.complete)}\n${renderParts(u.parts, { ansi })}`))
      .join('\n\n');
  }
  if (text === '' && units.length === 0) throw new SivtrError(`${ref} holds nothing yet`, 'run a command first');
  out(text);
  return 0;
}
