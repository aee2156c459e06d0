// sivtr show REF [--json] [--ansi] [--raw] [--max-chars N] [--cursor C] — a record, turn, part
// or part range named by an exact ref, paged when long.
import { jsonRef, jsonSession, unitJson, partJson } from '../../memory/json.js';
import { decodeCursor, DEFAULT_MAX_CHARS, pageOf, type Cursor, type Page } from '../../memory/page.js';
import { partsSpec } from '../../memory/ref.js';
import { resolveRef, type Resolved } from '../../memory/resolve.js';
import { requireRefSource } from '../source-name.js';
import { masked, note, out, outJson } from '../output.js';
import { refText } from '../ref-text.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { listOptions, SCOPE_FLAGS } from './common.js';
import { SivtrError, UsageError } from '../../errors.js';
import { rawRecordsOf } from '../raw-view.js';

export const spec: CommandSpec = {
  name: 'show',
  usage: '<ref>',
  describe: 'print a record, turn or part by ref (terminal/current/2, claude/3f2a9c1d/3/p2)',
  positionals: [{ name: 'ref', describe: 'source/session[/index[/pN]]; index may be a list like 3-5,7, a part a range like p2-4 or p5,7' }],
  flags: {
    json: { type: 'boolean', describe: 'print JSON (with --max-chars or --cursor: one page as {text, offset, total, nextCursor})' },
    ansi: { type: 'boolean', describe: 'keep colours' },
    raw: { type: 'boolean', describe: 'print the record(s) behind the turn or part as the agent wrote them' },
    'max-chars': { type: 'number', describe: `print at most N characters, then say how to continue (default ${DEFAULT_MAX_CHARS}; 0: no limit)` },
    cursor: { type: 'string', describe: 'continue where a previous page stopped (the ref may be left out)' },
    ...SCOPE_FLAGS,
    pick: { type: 'boolean', describe: 'choose what to show in the picker (optionally of one SOURCE)' },
  },
  examples: [
    ['sivtr show terminal/current/2', 'the second record of this terminal'],
    ['sivtr show claude/3f2a9c1d/3/p2', 'the second block of turn 3'],
    ['sivtr show claude/3f2a9c1d/3/p2-4', 'blocks 2 to 4 of turn 3'],
    ['sivtr show claude/3f2a9c1d/3/p4 --raw', 'the transcript record(s) behind that block'],
  ],
};

/** The ref with the session spelled by its full id: a cursor made for `current` keeps naming that session. */
function stableRef(typed: string, resolved: Resolved): string {
  const pieces = typed.split('/');
  pieces[1] = resolved.session.info.id;
  return pieces.join('/');
}

/** The form of the text a cursor pages: a cursor of one form never continues another. */
function viewOf(args: ParsedArgs): string {
  const base = args.raw ? 'raw' : args.ansi ? 'ansi' : 'text';
  return args.reveal ? `${base}, secrets revealed` : base;
}

function structuredJson(resolved: Resolved, ansi: boolean): unknown {
  const { units, part, parts, session, single } = resolved;
  const unit = units[0]!;
  if (part) return { ref: jsonRef(unit, session, part.n), source: unit.source, session: jsonSession(unit, session), index: unit.index, ...partJson(part) };
  if (parts) return { ref: `${jsonRef(unit, session)}/${partsSpec(parts.map((p) => p.n))}`, source: unit.source, session: jsonSession(unit, session), index: unit.index, parts: parts.map(partJson) };
  if (single) return unitJson(unit, session, { ansi });
  return units.map((u) => unitJson(u, session, { ansi }));
}

function continueCommand(ref: string, page: Page, args: ParsedArgs): string {
  const flags = [args.raw ? '--raw' : '', args.ansi && !args.raw ? '--ansi' : '', args.reveal ? '--reveal' : '', args['max-chars'] !== undefined ? `--max-chars ${String(args['max-chars'])}` : '', args.json ? '--json' : ''].filter(Boolean);
  return `sivtr show ${ref} ${[...flags, `--cursor ${page.nextCursor!}`].join(' ')}`;
}

export async function run(args: ParsedArgs): Promise<number> {
  if (args.pick) {
    if (args._.length > 1 || (args._[0] !== undefined && args._[0].includes('/'))) throw new SivtrError('--pick takes a source, not a ref', 'e.g. `sivtr show --pick` or `sivtr show claude --pick`', 2);
    const { pickAndAct } = await import('./pick.js');
    return pickAndAct({ ...args, pick: false }, { mode: 'show', source: args._[0], print: 'instead' });
  }
  const cursorText = args.cursor === undefined ? undefined : String(args.cursor);
  const cursor: Cursor | undefined = cursorText === undefined ? undefined : decodeCursor(cursorText);
  let ref = args._[0];
  if (ref === undefined) {
    if (!cursor) throw new SivtrError('show needs a ref', 'e.g. `sivtr show terminal/current/2`', 2);
    ref = cursor.ref;
  }
  requireRefSource(ref);
  const ansi = Boolean(args.ansi);
  const resolved = await resolveRef(ref, listOptions(args));
  for (const line of resolved.notes ?? []) note(line);
  const stable = stableRef(ref, resolved);
  if (cursor && cursor.ref !== stable) throw new UsageError(`this cursor continues ${cursor.ref}, not ${ref}`, `run \`sivtr show ${cursor.ref} --cursor …\` or leave the ref out`);
  const paging = args['max-chars'] !== undefined || cursor !== undefined;
  if (args.json && !paging && !args.raw) {
    outJson(structuredJson(resolved, ansi));
    return 0;
  }
  const raw = args.raw ? await rawRecordsOf(resolved) : undefined;
  if (raw && raw.unlocated.length > 0) note(`no raw record located for ${raw.unlocated.join(', ')}`);
  for (const line of raw?.notes ?? []) note(`the raw record${raw!.records.length === 1 ? ' was' : 's were'} ${line}`);
  if (args.json && !paging && raw) {
    outJson({ ref: stable, locators: raw.locators, records: raw.records });
    return 0;
  }
  // Masked before paging: a page boundary must never cut a secret into halves the rules miss.
  const text = masked(raw ? raw.text : refText(resolved, { ansi }));
  if (text === '' && resolved.units.length === 0) throw new SivtrError(`${ref} holds nothing yet`, 'run a command first');
  const maxChars = args['max-chars'] === undefined ? DEFAULT_MAX_CHARS : Number(args['max-chars']);
  const page = pageOf(text, { ref: stable, view: viewOf(args) }, { maxChars, cursor });
  if (args.json) {
    const value: Record<string, unknown> = { ref: stable, text: page.text, offset: page.offset, total: page.total, totalChars: page.total };
    if (page.nextCursor) value.nextCursor = page.nextCursor;
    outJson(value);
    return 0;
  }
  out(page.text);
  if (page.nextCursor) {
    note(`printed characters ${page.offset + 1}–${page.end} of ${page.total}; continue with: ${continueCommand(stable, page, args)}`);
  } else if (page.offset > 0) {
    note(`printed characters ${page.offset + 1}–${page.end} of ${page.total} (the end)`);
  }
  return 0;
}
