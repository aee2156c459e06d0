// The picker's screen, run by Ink (React for terminals): Ink reads the keys, React holds the
// state and says when to draw. This file is the entry of its own chunk, dist/picker.mjs, that
// only `pick` and `--pick` load (see scripts/build.mjs).
// The frame itself is whole lines from frame.ts, put on the terminal by painter.ts (only the
// lines that changed) instead of through Ink's renderer, which re-read every cell of every
// frame and was most of a keystroke's time. Colours are SGR sequences in those lines: the
// choice (NO_COLOR, --color) is made by the caller, and the screen may be /dev/tty while
// process.stdout is a pipe (`--print`).
import React, { useEffect, useLayoutEffect, useReducer, useRef, useState } from 'react';
import { render, useApp, useInput, type Key } from 'ink';
import { Filter, warmHaystacks } from './filter.js';
import { listKey, moveTo as moveIn } from './list-keys.js';
import { ASPECT_LABEL, aspectFor, enterVerb as verbFor, frame, layoutFor } from './frame.js';
import { Painter } from './painter.js';
import type { AspectName, DiffSide, PickEntry, UiProps, UiResult } from './types.js';

const h = React.createElement;

type Diffed = { older: DiffSide; newer: DiffSide; text: string };

function useTerminalSize(stdout: NodeJS.WriteStream): [number, number] {
  const read = (): [number, number] => [stdout.columns || 80, stdout.rows || 24];
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}

/**
 * A crash on the first keystroke, when SIVTR_PICKER_FAULT asks for one: tests prove that the
 * terminal is given back after a failure inside React (`render`) and outside it (`uncaught`).
 */
function faultForTests(): void {
  const fault = process.env.SIVTR_PICKER_FAULT;
  if (fault === 'render') throw new Error('fault injected for a test');
  if (fault === 'uncaught') {
    setImmediate(() => {
      throw new Error('fault injected for a test');
    });
  }
}

const NO_KEY: Key = {
  upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false,
  return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false,
  super: false, hyper: false, capsLock: false, numLock: false,
} as Key;

/**
 * Ink splits what one read brings at escape sequences only: keys typed faster than the picker
 * reads (Tab Tab, two Backspaces, a Ctrl key after a letter) arrive as one string. Each becomes
 * a key of its own here, so none is lost.
 */
function splitKeys(input: string, key: Key): [string, Key][] {
  if (input.length <= 1 || !/[\x00-\x1f\x7f]/.test(input) || input.startsWith('\x1b')) return [[input, key]];
  const keys: [string, Key][] = [];
  let text = '';
  const flush = () => {
    if (text !== '') keys.push([text, NO_KEY]);
    text = '';
  };
  for (const ch of input) {
    const code = ch.charCodeAt(0);
    if (code >= 0x20 && code !== 0x7f) {
      text += ch;
      continue;
    }
    flush();
    if (ch === '\r' || ch === '\n') keys.push(['', { ...NO_KEY, return: true }]);
    else if (ch === '\t') keys.push(['', { ...NO_KEY, tab: true }]);
    else if (ch === '\x7f' || ch === '\b') keys.push(['', { ...NO_KEY, backspace: true }]);
    else if (code >= 1 && code <= 26) keys.push([String.fromCharCode(code + 96), { ...NO_KEY, ctrl: true }]);
  }
  flush();
  return keys;
}

/** Everything the screen shows. Kept in one mutable object: several keys can arrive in one read, and each must see what the one before did. */
type Model = {
  all: readonly PickEntry[];
  shown: readonly PickEntry[];
  query: string;
  cursor: number;
  top: number;
  marks: string[];
  aspects: { record: AspectName; turn: AspectName };
  scroll: number;
  diffed: Diffed | undefined;
  note: string;
  loadingMore: boolean;
};

export function Picker(props: UiProps & { done(result: UiResult): void }) {
  const { color, mode, stdout } = props;
  const [cols, screenRows] = useTerminalSize(stdout);
  const layout = layoutFor(cols, screenRows);
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const filter = useRef<Filter | undefined>(undefined);
  // Keys typed before Ink had loaded were answered by the main bundle: the screen goes on from
  // where they left the query and the selection (and the filter, narrowed as far as they took it).
  const start = props.start;
  filter.current ??= start?.filter ?? new Filter(props.entries);
  const model = useRef<Model | undefined>(undefined);
  model.current ??= {
    all: props.entries,
    shown: start?.shown ?? props.entries,
    query: start?.query ?? '',
    cursor: start?.cursor ?? 0,
    top: start?.top ?? 0,
    marks: [],
    aspects: { record: props.aspect?.record ?? 'block', turn: props.aspect?.turn ?? 'turn' },
    scroll: 0,
    diffed: undefined,
    note: '',
    loadingMore: props.later !== undefined,
  };
  const m = model.current;
  const { exit } = useApp();
  const painter = useRef<Painter | undefined>(undefined);
  painter.current ??= new Painter(props.painted);

  const selectedEntry = (): PickEntry | undefined => m.shown[m.cursor];
  const aspectOf = (e: PickEntry) => aspectFor(e, m.aspects);

  const moveTo = (index: number): void => moveIn(m, index, layout.listRows);

  // Agents' entries are read after the first paint, and merged in keeping the selection.
  useEffect(() => {
    let stopWarming = warmHaystacks(m.all);
    if (!props.later) return stopWarming;
    let live = true;
    const timer = setImmediate(() => {
      props.later!().then(
        (more) => {
          if (!live) return;
          const key = selectedEntry()?.key;
          filter.current!.reset(more);
          m.all = more;
          m.shown = filter.current!.run(m.query);
          const at = key === undefined ? -1 : m.shown.findIndex((e) => e.key === key);
          // The same entry stays selected, scrolled as it was; another one starts at its top.
          const scroll = at >= 0 ? m.scroll : 0;
          moveTo(at < 0 ? 0 : at);
          m.scroll = scroll;
          m.loadingMore = false;
          redraw();
          stopWarming();
          stopWarming = warmHaystacks(more);
        },
        () => {
          m.loadingMore = false;
          if (live) redraw();
        },
      );
    });
    return () => {
      live = false;
      clearImmediate(timer);
      stopWarming();
    };
  }, []);

  // A session's transcript is read when it is first selected.
  const selected = selectedEntry();
  useEffect(() => {
    if (!selected?.load) return;
    let live = true;
    selected.load().then(
      () => live && redraw(),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [selected?.key]);

  function cycleAspect(step: number): void {
    const e = selectedEntry();
    if (!e) return;
    const list = e.aspects;
    const next = list[(list.indexOf(aspectOf(e)) + step + list.length) % list.length]!;
    if (e.kind === 'record') m.aspects = { ...m.aspects, record: next };
    else if (e.kind === 'turn') m.aspects = { ...m.aspects, turn: next };
    m.scroll = 0;
  }

  function toggleMark(): void {
    const e = selectedEntry();
    if (!e) return;
    m.marks = m.marks.includes(e.key) ? m.marks.filter((k) => k !== e.key) : [...m.marks, e.key].slice(-2);
  }

  /** The two sides of a diff, older first: the one further down the newest-first list is older. */
  function diffSides(): [PickEntry, PickEntry] | undefined {
    const e = selectedEntry();
    const keys = m.marks.length === 2 ? m.marks : m.marks.length === 1 && e && e.key !== m.marks[0] ? [m.marks[0]!, e.key] : undefined;
    if (!keys) return undefined;
    const pos = (k: string) => m.all.findIndex((x) => x.key === k);
    const [a, b] = keys.map((k) => m.all[pos(k)]!) as [PickEntry, PickEntry];
    return pos(a.key) > pos(b.key) ? [a, b] : [b, a];
  }

  async function showDiff(): Promise<void> {
    const pair = diffSides();
    if (!pair) {
      m.note = 'mark two entries with Ctrl-T first';
      return;
    }
    await Promise.all(pair.map((e) => e.load?.()));
    const [older, newer] = pair.map((entry) => ({ entry, aspect: aspectOf(entry), text: entry.text(aspectOf(entry), false) })) as [DiffSide, DiffSide];
    const text = older.text === newer.text ? 'no differences\n' : await props.diff(older, newer, color);
    m.scroll = 0;
    m.diffed = { older, newer, text };
    redraw();
  }

  const enterVerb = (): string => verbFor(mode, props.print);

  function finish(result: UiResult): void {
    props.done(result);
    exit();
  }

  async function choose(): Promise<void> {
    if (m.diffed) return finish({ kind: 'diff', older: m.diffed.older, newer: m.diffed.newer, text: m.diffed.text });
    if (mode === 'diff') {
      if (!diffSides()) {
        m.note = 'diff: mark an entry with Ctrl-T, then Enter on the other (or mark both)';
        redraw();
        return;
      }
      return showDiff();
    }
    const e = selectedEntry();
    if (!e) return;
    await e.load?.();
    const aspect = aspectOf(e);
    if (e.text(aspect, false) === '') {
      m.note = `nothing to ${enterVerb()}: no ${ASPECT_LABEL[aspect]} here`;
      redraw();
      return;
    }
    finish({ kind: 'chosen', entry: e, aspect });
  }

  function onKey(input: string, key: Key): void {
    faultForTests();
    m.note = '';
    if (key.ctrl && input === 'c') return finish({ kind: 'cancelled', by: 'ctrl-c' });
    if (key.escape) {
      if (!m.diffed) return finish({ kind: 'cancelled', by: 'escape' });
      m.diffed = undefined;
      m.scroll = 0;
      return;
    }
    if (key.return) return void choose();
    if (key.tab) return cycleAspect(key.shift ? -1 : 1);
    const page = Math.max(1, layout.previewRows - 1);
    if (key.pageDown) return void (m.scroll += page);
    if (key.pageUp) return void (m.scroll = Math.max(0, m.scroll - page));
    if (key.ctrl && input === 't') return toggleMark();
    if (key.ctrl && input === 'd') return void showDiff();
    listKey(m, filter.current!, input, key, layout.listRows);
  }

  useInput((input: string, key: Key) => {
    for (const [i, k] of splitKeys(input, key)) onKey(i, k);
    redraw();
  });

  // ── the screen: whole lines from frame.ts, the changed ones written once React has committed ──
  const drawn = frame(
    {
      all: m.all,
      shown: m.shown,
      query: m.query,
      cursor: m.cursor,
      top: m.top,
      marks: m.marks,
      aspects: m.aspects,
      scroll: m.scroll,
      diff: m.diffed && { title: `diff ${m.diffed.older.entry.ref} → ${m.diffed.newer.entry.ref}`, text: m.diffed.text },
      note: m.note,
      loadingMore: m.loadingMore,
      mode,
      print: props.print,
      color,
    },
    cols,
    screenRows,
  );
  m.scroll = drawn.scroll;
  useLayoutEffect(() => {
    const bytes = painter.current!.update({ lines: drawn.lines, cols, rows: screenRows });
    if (bytes !== '') stdout.write(bytes);
  });
  // Ink is given nothing to draw: with an empty tree it writes no frame of its own.
  return null;
}

/** Shows the picker until an entry is chosen or it is left; the caller restores the terminal. */
export async function runPickerUi(props: UiProps): Promise<UiResult> {
  let result: UiResult = { kind: 'cancelled', by: 'escape' };
  const instance = render(h(Picker, { ...props, done: (r: UiResult) => (result = r) }), {
    stdin: props.stdin,
    stdout: props.stdout,
    stderr: props.stdout,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  props.onStop?.(() => instance.unmount());
  await instance.waitUntilExit();
  return result;
}
