// The picker's screen, built with Ink (React for terminals). This file is the entry of its own
// chunk, dist/picker.mjs, that only `pick` and `--pick` load (see scripts/build.mjs).
// Styles are written as SGR sequences here rather than through Ink's colour props: those follow
// chalk's guess about process.stdout, which is a pipe under `--print`, while the screen is on
// the terminal; and the choice of colour is already made (NO_COLOR, --color) by the caller.
import React, { useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { Box, Text, render, useApp, useInput, type Key } from 'ink';
import { Filter, warmHaystacks } from './filter.js';
import { columns, fit } from './fit.js';
import { lineCount, previewLines } from './sanitize.js';
import type { AspectName, DiffSide, PickEntry, UiProps, UiResult } from './types.js';

const h = React.createElement;

/** Terminals at least this wide show the list and the preview side by side. */
const WIDE = 100;

const ASPECT_LABEL: Record<AspectName, string> = {
  block: 'block', input: 'input', output: 'output', command: 'cmd', turn: 'turn', user: 'user', reply: 'reply', tool: 'tool output', all: 'session',
};

type Style = (s: string) => string;
type Styles = { inverse: Style; dim: Style; red: Style; cyan: Style; bold: Style };
function makeStyles(color: boolean): Styles {
  const sgr = (on: number, off: number): Style => (color ? (s) => `\x1b[${on}m${s}\x1b[${off}m` : (s) => s);
  return { inverse: sgr(7, 27), dim: sgr(2, 22), red: sgr(31, 39), cyan: sgr(36, 39), bold: sgr(1, 22) };
}

type Diffed = { older: DiffSide; newer: DiffSide; text: string };

type Layout = { cols: number; rows: number; wide: boolean; listRows: number; listWidth: number; previewRows: number; previewWidth: number };

function layoutFor(cols: number, rows: number): Layout {
  const wide = cols >= WIDE;
  const body = Math.max(2, rows - 2); // the query line above, the keys line below
  if (wide) {
    const listWidth = Math.floor(cols * 0.45);
    return { cols, rows, wide, listRows: body, listWidth, previewRows: body - 1, previewWidth: cols - listWidth - 1 };
  }
  const listRows = Math.max(1, Math.floor((body - 1) / 2));
  return { cols, rows, wide, listRows, listWidth: cols, previewRows: Math.max(1, body - 1 - listRows), previewWidth: cols };
}

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

/** A line that never wraps: Ink cuts it at the box edge. */
const line = (text: string, key?: string | number) => h(Text, { key, wrap: 'truncate-end' }, text === '' ? ' ' : text);

/** One row of the list as one line: cursor, mark, source, title, and the time (or exit status) at the right. */
function rowText(entry: PickEntry, selected: boolean, mark: number, width: number, st: Styles): string {
  const cursor = selected ? '›' : ' ';
  const marked = mark > 0 ? String(mark) : ' ';
  const tag = entry.tag.length > 8 ? entry.tag.slice(0, 8) : entry.tag.padEnd(entry.tag === '$' ? 1 : 8);
  const kind = entry.kind === 'session' ? 'session · ' : '';
  const left = `${cursor}${marked} ${tag} ${kind}${entry.title}`;
  const meta = entry.meta;
  const metaWidth = meta === '' ? 0 : Math.min(columns(meta), Math.max(0, width - 12));
  const body = metaWidth === 0 ? fit(left, width) : fit(left, width - metaWidth - 1);
  const paint = selected ? st.inverse : (s: string) => s;
  if (metaWidth === 0) return paint(body);
  const metaText = fit(meta, metaWidth);
  return `${paint(body)} ${entry.failed ? st.red(metaText) : st.dim(metaText)}`;
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
  const st = useMemo(() => makeStyles(color), [color]);
  const [cols, screenRows] = useTerminalSize(stdout);
  // One row short of the screen: a frame as tall as the terminal makes Ink clear it with
  // ESC[3J, which also erases the scrollback of the screen the picker was opened from.
  const rows = Math.max(3, screenRows - 1);
  const layout = layoutFor(cols, rows);
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const filter = useRef<Filter | undefined>(undefined);
  filter.current ??= new Filter(props.entries);
  const model = useRef<Model | undefined>(undefined);
  model.current ??= {
    all: props.entries,
    shown: props.entries,
    query: '',
    cursor: 0,
    top: 0,
    marks: [],
    aspects: { record: props.aspect?.record ?? 'block', turn: props.aspect?.turn ?? 'turn' },
    scroll: 0,
    diffed: undefined,
    note: '',
    loadingMore: props.later !== undefined,
  };
  const m = model.current;
  const { exit } = useApp();

  const selectedEntry = (): PickEntry | undefined => m.shown[m.cursor];
  const aspectOf = (e: PickEntry): AspectName => {
    const wanted = e.kind === 'record' ? m.aspects.record : e.kind === 'turn' ? m.aspects.turn : e.aspects[0]!;
    return e.aspects.includes(wanted) ? wanted : e.aspects[0]!;
  };

  function moveTo(index: number): void {
    const i = Math.max(0, Math.min(index, m.shown.length - 1));
    m.cursor = i;
    m.scroll = 0;
    if (i < m.top) m.top = i;
    else if (i >= m.top + layout.listRows) m.top = i - layout.listRows + 1;
  }

  function search(next: string): void {
    m.query = next;
    m.shown = filter.current!.run(next);
    m.top = 0;
    m.cursor = 0;
    m.scroll = 0;
  }

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

  function enterVerb(): string {
    return mode === 'show' ? 'show' : mode === 'diff' ? 'diff' : props.print ? 'print' : 'copy';
  }

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
    if (key.upArrow || (key.ctrl && input === 'p')) return moveTo(m.cursor - 1);
    if (key.downArrow || (key.ctrl && input === 'n')) return moveTo(m.cursor + 1);
    const page = Math.max(1, layout.previewRows - 1);
    if (key.pageDown) return void (m.scroll += page);
    if (key.pageUp) return void (m.scroll = Math.max(0, m.scroll - page));
    if (key.ctrl && input === 't') return toggleMark();
    if (key.ctrl && input === 'd') return void showDiff();
    if (key.ctrl && input === 'u') return search('');
    if (key.backspace || key.delete) return search([...m.query].slice(0, -1).join(''));
    if (key.ctrl || key.meta || input === '') return;
    // Typed (or pasted) text goes into the query; control characters do not.
    const typed = input.replace(/[\x00-\x1f\x7f]/g, '');
    if (typed !== '') search(m.query + typed);
  }

  useInput((input: string, key: Key) => {
    for (const [i, k] of splitKeys(input, key)) onKey(i, k);
    redraw();
  });

  // ── the screen ──
  const count = `${m.shown.length}/${m.all.length}${m.loadingMore ? ' …' : ''}`;
  // The query keeps its end in view: what was typed last is what one looks at.
  const room = Math.max(1, cols - columns(count) - 4);
  const typed = columns(m.query) > room ? '…' + [...m.query].slice(-(room - 1)).join('') : m.query;
  const header = line(`${st.bold('>')} ${typed}${st.inverse(' ')}${' '.repeat(Math.max(1, cols - 3 - columns(typed) - columns(count)))}${st.dim(count)}`, 'header');

  const rowsShown = m.shown.slice(m.top, m.top + layout.listRows);
  const listLines: React.ReactElement[] = rowsShown.length === 0
    ? [line(st.dim(m.all.length === 0 ? (m.loadingMore ? '  reading…' : '  nothing recorded yet') : '  no match'), 'empty')]
    : rowsShown.map((entry, i) => line(rowText(entry, m.top + i === m.cursor, m.marks.indexOf(entry.key) + 1, layout.listWidth, st), entry.key));
  // Blank rows keep the preview where it is however few entries match.
  for (let i = listLines.length; i < layout.listRows; i++) listLines.push(line('', `blank${i}`));
  const list = h(Box, { flexDirection: 'column', width: layout.listWidth, height: layout.listRows, flexShrink: 0 }, ...listLines);

  let previewTitle: string;
  let previewText: string;
  let keepColour = color;
  if (m.diffed) {
    previewTitle = `diff ${m.diffed.older.entry.ref} → ${m.diffed.newer.entry.ref}`;
    previewText = m.diffed.text;
  } else if (selected) {
    const aspect = aspectOf(selected);
    const choices = selected.aspects.length > 1 ? selected.aspects.map((a) => (a === aspect ? `[${ASPECT_LABEL[a]}]` : ASPECT_LABEL[a])).join(' ') : ASPECT_LABEL[aspect];
    previewTitle = `${selected.ref} · ${choices}`;
    previewText = selected.text(aspect, color);
    keepColour = color && selected.kind === 'record';
  } else {
    previewTitle = '';
    previewText = '';
  }
  const maxScroll = Math.max(0, lineCount(previewText) - layout.previewRows);
  if (m.scroll > maxScroll) m.scroll = maxScroll;
  const lines = previewLines(previewText, keepColour, layout.previewRows, m.scroll);
  for (let i = lines.length; i < layout.previewRows; i++) lines.push('');
  const rule = previewTitle === '' ? '' : `── ${previewTitle} `;
  const preview = h(
    Box,
    { flexDirection: 'column', width: layout.previewWidth, height: layout.previewRows + 1, flexShrink: 0 },
    line(st.cyan(rule + '─'.repeat(Math.max(0, layout.previewWidth - [...rule].length))), 'rule'),
    ...lines.map((l, i) => line(l, i)),
  );

  const enter = m.diffed ? (mode === 'copy' && !props.print ? 'copy diff' : 'print diff') : enterVerb();
  const keys = m.note !== '' ? m.note : `Enter ${enter} · Tab what · ^T mark · ^D diff · PgUp/PgDn scroll · Esc ${m.diffed ? 'back' : 'quit'}`;
  const footer = h(Box, { width: cols }, h(Text, { wrap: 'truncate-end' }, m.note !== '' ? st.red(keys) : st.dim(keys)));

  const body = layout.wide
    ? h(Box, { flexDirection: 'row', height: layout.listRows }, list, h(Box, { width: 1 }), preview)
    : h(Box, { flexDirection: 'column' }, list, preview);
  return h(Box, { flexDirection: 'column', width: cols, height: rows }, header, body, footer);
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
    // Each keystroke is answered at once (Ink's default caps redraws at 30 a second).
    maxFps: 1000,
  });
  props.onStop?.(() => instance.unmount());
  await instance.waitUntilExit();
  return result;
}
