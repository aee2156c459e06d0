// sivtr export <session> [--format md|html] [-o FILE] — a whole session as Markdown or as one
// self-contained HTML file, for sharing or review.
import { writeFileSync } from 'node:fs';
import { SivtrError } from '../../errors.js';
import { sessionFacts, turnFacts } from '../../memory/overview.js';
import { exportHtml, exportMarkdown } from '../export-format.js';
import { confirm, masked, out } from '../output.js';
import { resolveSessionArg } from '../session-arg.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { SCOPE_FLAGS, str } from './common.js';

export const spec: CommandSpec = {
  name: 'export',
  usage: '<session>',
  describe: 'a whole session as Markdown or one self-contained HTML file',
  positionals: [{ name: 'session', describe: 'source/session (claude/3f2a9c1d, codex/current), or turns of it (…/2-4)' }],
  flags: {
    ...SCOPE_FLAGS,
    format: { type: 'string', describe: 'md or html', choices: ['md', 'html'], default: 'md' },
    output: { type: 'string', alias: 'o', describe: 'write to FILE instead of stdout' },
  },
  examples: [
    ['sivtr export claude/current', 'the newest Claude Code session as Markdown'],
    ['sivtr export codex/3f2a9c1d --format html -o session.html', 'one HTML file to open on any device'],
  ],
};

export async function run(args: ParsedArgs): Promise<number> {
  const resolved = await resolveSessionArg('export', args);
  const turns = turnFacts(resolved.session, resolved.units);
  const facts = sessionFacts({ ...resolved.session, units: resolved.units }, turns);
  // Each text masked before it is escaped or fenced: a secret is found in the text the agent wrote.
  const title = facts.title === undefined ? undefined : masked(facts.title);
  const input = { facts: { ...facts, ...(title === undefined ? {} : { title }) }, shownRef: `${resolved.session.info.source}/${resolved.session.info.displayId}`, units: resolved.units, turns, mask: masked };
  const text = masked(args.format === 'html' ? exportHtml(input) : exportMarkdown(input));
  const file = str(args.output);
  if (file === undefined) {
    out(text);
    return 0;
  }
  try {
    writeFileSync(file, text);
  } catch (error) {
    throw new SivtrError(`cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 'pick a path in a directory you can write to');
  }
  confirm(`exported ${input.shownRef} (${turns.length} ${facts.unitKind}${turns.length === 1 ? '' : 's'}) to ${file}`);
  return 0;
}
