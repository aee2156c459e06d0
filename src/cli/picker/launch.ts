// Opens the picker: reads the entries, loads the screen's chunk (Ink and React, dist/picker.mjs,
// which no other command loads), draws the first frame and answers keys itself until the chunk
// is in, and gives the terminal back before the caller copies or prints the choice.
import { sideBySideDiff, unifiedDiff } from '../diff-format.js';
import type { Side } from '../../memory/side.js';
import type { ListOptions } from '../../memory/types.js';
import { answerEarlyKeys } from './early-keys.js';
import { pickerEntries } from './entries.js';
import { Filter } from './filter.js';
import { frame, type FrameState } from './frame.js';
import { Painter } from './painter.js';
import { openScreen } from './screen.js';
import type { AspectName, DiffSide, PickerChunk, UiMode, UiResult } from './types.js';

// The bundle's import() of packages and chunks (see scripts/build.mjs); absent when run from source.
declare const __imp_: ((specifier: string) => Promise<unknown>) | undefined;

function loadChunk(): Promise<PickerChunk> {
  const url = new URL('./picker.mjs', import.meta.url).href;
  const load = typeof __imp_ === 'function' ? __imp_ : (s: string) => import(s);
  return load(url) as Promise<PickerChunk>;
}

function side(d: DiffSide): Side {
  return { ref: d.entry.ref, about: d.aspect, text: d.text, place: { location: '', index: 0 } };
}

/** The diff of two chosen entries, as `sivtr diff` prints it (`+` lines are the newer side). */
export function diffText(older: DiffSide, newer: DiffSide, color: boolean, sideBySideWidth?: number): Promise<string> {
  return sideBySideWidth ? sideBySideDiff(side(older), side(newer), sideBySideWidth, color) : unifiedDiff(side(older), side(newer), color);
}

export type PickOptions = {
  source?: string;
  mode: UiMode;
  print?: boolean;
  color: boolean;
  aspect?: { record?: AspectName; turn?: AspectName };
  includeSelf: boolean;
  list: ListOptions;
};

export async function runPicker(opts: PickOptions): Promise<UiResult> {
  const chunk = loadChunk();
  chunk.catch(() => undefined); // awaited below; a failure is reported there
  const set = await pickerEntries(opts.source, opts.list, opts.includeSelf);
  const screen = openScreen();
  // The first frame now, from the same lines the screen's chunk draws (frame.ts): loading Ink and
  // React and their first render take longer than everything before them. Keys typed meanwhile
  // are answered here (early-keys.ts), and the screen's chunk goes on from the state they left,
  // told what is on the screen so that its first frame writes only what differs (nothing).
  const aspects = { record: opts.aspect?.record ?? 'block', turn: opts.aspect?.turn ?? 'turn' } as const;
  const cols = screen.stdout.columns || 80;
  const rows = screen.stdout.rows || 24;
  const state: FrameState = { all: set.first, shown: set.first, query: '', cursor: 0, top: 0, marks: [], aspects, scroll: 0, note: '', loadingMore: set.later !== undefined, mode: opts.mode, print: opts.print, color: opts.color };
  const first = frame(state, cols, rows);
  state.scroll = first.scroll;
  const painted = { lines: first.lines, cols, rows };
  const painter = new Painter();
  screen.paint(`\x1b[?25l${painter.update(painted)}`);
  const early = answerEarlyKeys({ stdin: screen.stdin, paint: screen.paint, state, filter: new Filter(set.first), painter, painted });
  try {
    const ready = await Promise.race([chunk, early.ended.then((result) => ({ result }))]);
    if ('result' in ready) return ready.result;
    const { start, painted: shown } = early.handOver();
    return await ready.runPickerUi({
      entries: set.first,
      later: set.later,
      mode: opts.mode,
      print: opts.print,
      color: opts.color,
      aspect: opts.aspect,
      diff: (a, b, color) => diffText(a, b, color),
      stdin: screen.stdin,
      stdout: screen.stdout,
      painted: shown,
      start,
      onStop: (stop) => screen.onRestore(stop),
    });
  } finally {
    early.stop();
    screen.restore();
  }
}
