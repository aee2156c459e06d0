// sivtr copy [in|out|cmd] [SELECTOR]            — terminal records
// sivtr copy PROVIDER [in|out|tool|all] [SELECTOR] [--session N|ID]  — agent sessions
import { SivtrError } from '../../errors.js';
import { filterLines } from '../../memory/lines.js';
import { AGENT_MODES, pickAgent, pickTerminal, TERMINAL_MODES, type AgentMode, type Picked } from '../../memory/pick.js';
import { parseRecency } from '../../memory/selector.js';
import { pickRuns, selectRecentRuns, type ByFilter } from '../../memory/runs.js';
import { looksLikeRef } from '../../memory/ref.js';
import { resolveRef } from '../../memory/resolve.js';
import { refText } from '../ref-text.js';
import { requireRefSource } from '../source-name.js';
import { getSource, isSourceName, sourceNames } from '../../memory/sources.js';
import { deliver } from '../deliver.js';
import { masked, note } from '../output.js';
import { fitToBudget, parseBudget } from '../../memory/budget.js';
import { unknownWord } from '../suggest.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import type { AspectName } from '../picker/types.js';
import { listOptions, SCOPE_FLAGS, str } from './common.js';

export const spec: CommandSpec = {
  name: 'copy',
  usage: '[what..]',
  describe: 'copy a recorded block (or an agent message) to the clipboard',
  positionals: [{ name: 'what', describe: '[in|out|cmd] [SELECTOR], PROVIDER [in|out|tool|all] [SELECTOR], or a ref (claude/3f2a9c1d/3/p2-4)', variadic: true }],
  flags: {
    budget: { type: 'string', describe: 'keep what matters within N tokens (2k, estimated) or N characters (8000c)' },
    print: { type: 'boolean', alias: 'p', describe: 'also write the text to stdout' },
    ansi: { type: 'boolean', describe: 'keep colours (SGR sequences)' },
    prompt: { type: 'string', describe: 'replace the recorded prompt with P' },
    regex: { type: 'string', alias: 'r', describe: 'keep only lines matching R (JavaScript syntax)' },
    'ignore-case': { type: 'boolean', alias: 'i', describe: 'make --regex case-insensitive' },
    lines: { type: 'string', alias: 'l', describe: 'keep lines: 5, 1:5, 1,3,8:12, -20: (last 20)' },
    session: { type: 'string', alias: 's', describe: 'agent session: Nth newest or an id/prefix' },
    'include-self': { type: 'boolean', describe: "count sivtr's own copy/show/diff/search… records in the selector" },
    ...SCOPE_FLAGS,
    by: { type: 'string', describe: 'count back through every command run here (as `sivtr runs` lists them): by me, agent or all', choices: ['me', 'agent', 'all'] },
    pick: { type: 'boolean', describe: 'choose what to copy in the picker (the mode and source words still apply)' },
  },
  examples: [
    ['sivtr copy', 'the last command and its output'],
    ['sivtr copy out 2 --print', 'the output before the last, also to stdout'],
    ['sivtr copy in 2..4', 'three commands as typed'],
    ['sivtr copy claude out', "Claude Code's last reply"],
  ],
};

/** `copy claude/3f2a9c1d/3/p2-4`: exactly what `show` prints for the ref. */
async function pickRef(ref: string, args: ParsedArgs): Promise<Picked> {
  requireRefSource(ref);
  const resolved = await resolveRef(ref, listOptions(args));
  const text = refText(resolved, { ansi: Boolean(args.ansi) });
  const plain = args.ansi ? refText(resolved) : text;
  return { text, plain, what: ref, ref, ...(resolved.notes ? { notes: resolved.notes } : {}) };
}

async function pickFor(args: ParsedArgs): Promise<Picked> {
  const words = [...args._];
  if (words.length === 1 && looksLikeRef(words[0]!)) return pickRef(words[0]!, args);
  const opts = listOptions(args);
  const named = words[0] !== undefined && !(words[0] in TERMINAL_MODES) && isSourceName(words[0]);
  const name = named ? words.shift()! : 'terminal';
  const source = getSource(name);
  if (args.by !== undefined && named) throw new SivtrError(`--by counts every command that ran here, not those of ${name}`, `drop "${name}": \`sivtr copy out ${words.find((w) => /^\d/.test(w)) ?? '1'} --by ${String(args.by)}\``);
  if (source.unitKind === 'turn') {
    const mode: AgentMode = words[0] !== undefined && (AGENT_MODES as readonly string[]).includes(words[0]) ? (words.shift() as AgentMode) : 'turn';
    if (mode === 'turn' && words[0] !== undefined && /^[a-z][\w-]*$/i.test(words[0])) throw unknownWord('mode', words[0], AGENT_MODES, { otherwise: `use ${AGENT_MODES.join(', ')} or a selector` });
    if (words.length > 1) throw new SivtrError(`unexpected "${words.slice(1).join(' ')}"`, `usage: sivtr copy ${name} [in|out|tool|all] [SELECTOR]`);
    const session = await source.open(str(args.session) ?? 'current', opts);
    const recency = words[0] !== undefined ? parseRecency(words[0]) : undefined;
    return pickAgent(session.units, mode, recency, `${name}/${session.info.displayId}`);
  }
  const mode = words[0] !== undefined && words[0] in TERMINAL_MODES ? words.shift()! : undefined;
  if (mode === undefined && words[0] !== undefined && /^[a-z][\w-]*$/i.test(words[0])) {
    // A word where a mode or a provider goes: a mode or a provider name mistyped.
    const sources = sourceNames().filter((n) => n !== 'terminal');
    throw unknownWord('mode or source', words[0], [...Object.keys(TERMINAL_MODES), ...sources], { otherwise: `use in, out or cmd, or a source: ${sources.join(', ')}` });
  }
  const usage = `usage: sivtr copy ${named ? `${name} ` : ''}[in|out|cmd] [SELECTOR]`;
  if (words.length > 1) throw new SivtrError(`unexpected "${words.slice(1).join(' ')}"`, usage);
  if (args.session !== undefined) throw new SivtrError('--session is for agent sources', `use a ref such as \`sivtr show ${name}/<id>${source.sessionIsUnit ? '' : '/3'}\` for another one`);
  const recency = parseRecency(words[0]);
  if (args.by !== undefined) {
    return pickRuns(await selectRecentRuns({ by: args.by as ByFilter, includeSelf: Boolean(args['include-self']) }, recency, opts), mode ? TERMINAL_MODES[mode]! : 'block', { ansi: Boolean(args.ansi), prompt: str(args.prompt) });
  }
  const units = await source.recentRecords!(opts);
  return pickTerminal(units, mode ? TERMINAL_MODES[mode]! : 'block', recency, { ansi: Boolean(args.ansi), prompt: str(args.prompt), includeSelf: Boolean(args['include-self']) });
}

const PICK_RECORD_ASPECT: Record<string, AspectName> = { in: 'input', out: 'output', cmd: 'command' };
const PICK_TURN_ASPECT: Record<string, AspectName> = { in: 'user', out: 'reply', tool: 'tool', all: 'turn' };

/** `copy [SOURCE] [MODE] --pick`: the picker, on that source, starting from that mode. */
async function copyWithPicker(args: ParsedArgs): Promise<number> {
  const words = [...args._];
  const named = words[0] !== undefined && !(words[0] in TERMINAL_MODES) && isSourceName(words[0]);
  const source = named ? words.shift()! : undefined;
  const mode = words.shift();
  const aspect = mode === undefined ? undefined : source !== undefined && getSource(source).unitKind === 'turn' ? { turn: PICK_TURN_ASPECT[mode] } : { record: PICK_RECORD_ASPECT[mode] };
  if ((mode !== undefined && !aspect?.turn && !aspect?.record) || words.length > 0) {
    throw new SivtrError(`--pick takes a source and a mode, not "${[mode, ...words].filter(Boolean).join(' ')}"`, 'e.g. `sivtr copy out --pick` or `sivtr copy claude tool --pick`', 2);
  }
  const { pickAndAct } = await import('./pick.js');
  return pickAndAct(args, { mode: 'copy', source, aspect, print: args.print ? 'also' : 'no' });
}

export async function run(args: ParsedArgs): Promise<number> {
  if (args.pick) return copyWithPicker(args);
  const picked = await pickFor(args);
  const filter = { regex: str(args.regex), ignoreCase: Boolean(args['ignore-case']), lines: str(args.lines) };
  const budget = args.budget !== undefined ? parseBudget(String(args.budget)) : undefined;
  let text = filterLines(picked.text, filter, picked.plain);
  if (text === '' && picked.text !== '') {
    const used = [filter.regex !== undefined ? `--regex "${filter.regex}"` : '', filter.lines !== undefined ? `--lines "${filter.lines}"` : ''].filter(Boolean).join(' and ');
    throw new SivtrError(`no line matched ${used}`, 'loosen the filter or pick another record');
  }
  for (const line of picked.notes ?? []) note(line);
  if (budget) {
    // Secrets are masked before cutting, so the budget counts what is really copied.
    const fitted = fitToBudget(masked(text), budget, picked.ref);
    if (fitted.cut) note(`kept ${fitted.keptLines} of ${fitted.totalLines} lines within ${budget.label}`);
    text = fitted.text;
  }
  await deliver(text, { print: Boolean(args.print), what: picked.what });
  return 0;
}
