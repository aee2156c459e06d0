// sivtr pick [SOURCE] — choose a terminal record, an agent turn or a session by typing, see it as
// it was shown, and copy it (Enter), print it (--print) or leave (Esc). `copy --pick`,
// `show --pick` and `diff --pick` open the same picker and do their own thing with the choice.
import { SivtrError, UsageError } from '../../errors.js';
import { filterLines } from '../../memory/lines.js';
import { out, useColor } from '../output.js';
import { deliver } from '../deliver.js';
import { requireSourceName } from '../source-name.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { listOptions, str } from './common.js';
import type { AspectName, UiMode } from '../picker/types.js';

export const spec: CommandSpec = {
  name: 'pick',
  usage: '[source]',
  describe: 'choose a record, agent turn or session as you type; Enter copies it, Esc leaves',
  positionals: [{ name: 'source', describe: 'only this source: terminal, history, claude, codex, …' }],
  flags: {
    print: { type: 'boolean', alias: 'p', describe: 'write the choice to stdout instead of copying it' },
    ansi: { type: 'boolean', describe: 'keep colours in what is copied or printed' },
    global: { type: 'boolean', alias: 'g', describe: "agents' sessions of every workspace, not only this one" },
    'include-self': { type: 'boolean', describe: "list sivtr's own copy/show/diff/search… records too" },
  },
  examples: [
    ['sivtr pick', 'this terminal, then every agent here, newest first'],
    ['sivtr pick claude', "Claude Code's turns and sessions"],
    ['sivtr pick --print', 'print the choice (for $(…) and key bindings)'],
  ],
};

/** Exit status when the picker is left without a choice (as fzf and a Ctrl-C'd shell command). */
export const LEFT = 130;

/**
 * LEFT, told to the launcher (bin/sivtr.js) as an ordinary end: it writes its code cache only
 * after a run that ended well, and leaving the picker with Esc or Ctrl-C is one.
 */
function leftWithoutChoice(): number {
  (globalThis as { __sivtrOrdinaryExit?: (code: number) => void }).__sivtrOrdinaryExit?.(LEFT);
  return LEFT;
}

export type PickAction = {
  mode: UiMode;
  source?: string;
  aspect?: { record?: AspectName; turn?: AspectName };
  /** copy: also print (copy --pick --print); pick: print instead of copying. */
  print: 'also' | 'instead' | 'no';
};

/** Opens the picker and does what the command that opened it does with the choice. */
export async function pickAndAct(args: ParsedArgs, action: PickAction): Promise<number> {
  if (action.source !== undefined) requireSourceName(action.source);
  if (process.env.TERM === 'dumb') throw new UsageError('the picker needs a terminal that can move its cursor (TERM is dumb)', 'set TERM (e.g. xterm-256color), or use `sivtr copy`, `show` or `search`');
  const { runPicker } = await import('../picker/launch.js');
  const result = await runPicker({
    source: action.source,
    mode: action.mode,
    print: action.print === 'instead',
    // The screen is a terminal whatever stdout is: colour unless NO_COLOR or --color=never.
    color: useColor(args, { isTTY: true } as NodeJS.WriteStream),
    aspect: action.aspect,
    includeSelf: Boolean(args['include-self']),
    list: listOptions(args),
  });
  if (result.kind === 'cancelled') return leftWithoutChoice();
  const ansi = Boolean(args.ansi);
  if (result.kind === 'diff') {
    const { diffText } = await import('../picker/launch.js');
    if (action.mode === 'copy' && action.print !== 'instead') {
      const plain = await diffText(result.older, result.newer, false);
      await deliver(plain, { print: action.print === 'also', what: `the diff of ${result.older.entry.ref} and ${result.newer.entry.ref}` });
      return 0;
    }
    process.stdout.write(await diffText(result.older, result.newer, useColor(args)));
    return 0;
  }
  const { entry, aspect } = result;
  if (action.mode === 'show') {
    const show = await import('./show.js');
    return (await show.run({ ...args, _: [entry.ref] })) ?? 0;
  }
  let text = entry.text(aspect, ansi);
  if (action.mode === 'copy') {
    // copy's own filters (--regex, --lines) apply to what was picked, as to what a selector names.
    const filter = { regex: str(args.regex), ignoreCase: Boolean(args['ignore-case']), lines: str(args.lines) };
    if (filter.regex !== undefined || filter.lines !== undefined) {
      const filtered = filterLines(text, filter, ansi ? entry.text(aspect, false) : text);
      if (filtered === '' && text !== '') throw new SivtrError('no line of the chosen entry matched the filter', 'loosen --regex or --lines, or pick another entry');
      text = filtered;
    }
  }
  if (action.print === 'instead') {
    out(text);
    return 0;
  }
  await deliver(text, { print: action.print === 'also', what: entry.what });
  return 0;
}

export async function run(args: ParsedArgs): Promise<number> {
  const [source, extra] = args._;
  if (extra !== undefined) {
    throw new UsageError(`unexpected "${args._.slice(1).join(' ')}"`, 'usage: sivtr pick [SOURCE]');
  }
  return pickAndAct(args, { mode: 'copy', source, print: args.print ? 'instead' : 'no' });
}
