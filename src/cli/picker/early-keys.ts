// Keys typed between the first frame and Ink's screen. Loading Ink and React takes longer than
// everything before the first frame (over 100 ms here), and a key typed at once (the picker opened
// by a key binding, the query typed straight after) waited all that time to show. So the main
// bundle reads the terminal itself until the screen's chunk is in, and answers the keys that
// edit the query or move the selection with the same code as the screen (list-keys.ts), drawing
// with the same frame and painter. Esc and Ctrl-C leave at once; Enter takes the selected entry
// when it can be taken as it is. The first key of any other kind (Tab, a mark, PgDn, …), and every
// key after it, goes back to the terminal's stream unread, in order, for Ink to answer: no key
// is lost, none is answered twice, and Ink starts from the query and selection the keys left.
import type { ReadStream } from 'node:tty';
import type { Filter } from './filter.js';
import { aspectFor, frame, type FrameState } from './frame.js';
import { listKey, type KeyFlags } from './list-keys.js';
import type { Painted, Painter } from './painter.js';
import type { HeadStart, UiResult } from './types.js';

type Read =
  | { kind: 'list'; input: string; key: KeyFlags; next: number }
  | { kind: 'escape' | 'ctrl-c' | 'enter'; next: number }
  | { kind: 'other' };

const ctrl = (letter: string, next: number): Read => ({ kind: 'list', input: letter, key: { ctrl: true }, next });

/**
 * The key at `i`, as Ink would read it where the two agree: a lone ESC at the end of what was
 * read is Esc (Ink waits for more in the same turn of the event loop, then says the same).
 */
function readKey(text: string, i: number): Read {
  const c = text.charCodeAt(i);
  if (c === 0x1b) {
    if (i === text.length - 1) return { kind: 'escape', next: i + 1 };
    const seq = text.slice(i, i + 3);
    if (seq === '\x1b[A' || seq === '\x1bOA') return { kind: 'list', input: '', key: { upArrow: true }, next: i + 3 };
    if (seq === '\x1b[B' || seq === '\x1bOB') return { kind: 'list', input: '', key: { downArrow: true }, next: i + 3 };
    return { kind: 'other' };
  }
  if (c === 0x0d) return { kind: 'enter', next: i + 1 };
  if (c === 0x03) return { kind: 'ctrl-c', next: i + 1 };
  if (c === 0x7f || c === 0x08) return { kind: 'list', input: '', key: { backspace: true }, next: i + 1 };
  if (c === 0x15) return ctrl('u', i + 1);
  if (c === 0x0e) return ctrl('n', i + 1);
  if (c === 0x10) return ctrl('p', i + 1);
  if (c < 0x20) return { kind: 'other' };
  let j = i + 1;
  while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) !== 0x7f) j++;
  return { kind: 'list', input: text.slice(i, j), key: {}, next: j };
}

/** How much of `bytes` ends on a whole UTF-8 character: a read can cut one, and its rest comes with the next. */
export function wholeUtf8(bytes: Buffer): number {
  for (let j = bytes.length - 1; j >= Math.max(0, bytes.length - 3); j--) {
    const b = bytes[j]!;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return bytes.length - j < need ? j : bytes.length;
  }
  return bytes.length;
}

export type EarlyKeys = {
  /** Settles when a key ends the picker before Ink has loaded: Esc, Ctrl-C, or Enter. */
  ended: Promise<UiResult>;
  /** Stops reading and gives back the keys left for Ink; returns where the list is and what the screen shows. */
  handOver(): { start: HeadStart; painted: Painted };
  /** Stops reading (the picker is closing). */
  stop(): void;
};

export type EarlyScreen = {
  stdin: ReadStream;
  paint(text: string): void;
  /** The state drawn in the first frame; the keys change it in place. */
  state: FrameState;
  filter: Filter;
  painter: Painter;
  painted: Painted;
};

export function answerEarlyKeys(screen: EarlyScreen): EarlyKeys {
  const { stdin, state, filter, painter } = screen;
  const { cols, rows } = screen.painted;
  let painted = screen.painted;
  const listRows = frame(state, cols, rows).layout.listRows;
  let end: (result: UiResult) => void = () => undefined;
  const ended = new Promise<UiResult>((resolve) => (end = resolve));
  /** Bytes of a character the last read cut in two. */
  let cut: Buffer = Buffer.alloc(0);
  /** Everything from the first key left for Ink on, as read. */
  let forInk: Buffer[] | undefined;
  let reading = true;

  const repaint = (): void => {
    const drawn = frame(state, cols, rows);
    state.scroll = drawn.scroll;
    painted = { lines: drawn.lines, cols, rows };
    const bytes = painter.update(painted);
    if (bytes !== '') screen.paint(bytes);
  };

  /** Enter on an entry that needs nothing more (not a diff, nothing to read first, not empty); else Ink's. */
  const chosen = (): UiResult | undefined => {
    const entry = state.shown[state.cursor];
    if (state.mode === 'diff' || !entry || entry.load) return undefined;
    const aspect = aspectFor(entry, state.aspects);
    return entry.text(aspect, false) === '' ? undefined : { kind: 'chosen', entry, aspect };
  };

  const finish = (result: UiResult): void => {
    stop();
    end(result);
  };

  const answer = (text: string): void => {
    let changed = false;
    for (let i = 0; i < text.length; ) {
      const key = readKey(text, i);
      if (key.kind === 'escape') return finish({ kind: 'cancelled', by: 'escape' });
      if (key.kind === 'ctrl-c') return finish({ kind: 'cancelled', by: 'ctrl-c' });
      const result = key.kind === 'enter' ? chosen() : undefined;
      if (result) return finish(result);
      if (key.kind !== 'list') {
        forInk = [Buffer.from(text.slice(i)), cut];
        cut = Buffer.alloc(0);
        break;
      }
      listKey(state, filter, key.input, key.key, listRows);
      changed = true;
      i = key.next;
    }
    if (changed) repaint();
  };

  const onReadable = (): void => {
    if (!reading) return;
    const chunks: Buffer[] = [];
    let chunk: Buffer | string | null;
    while ((chunk = stdin.read() as Buffer | string | null) !== null) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (chunks.length === 0) return;
    if (forInk) return void forInk.push(...chunks);
    const bytes = Buffer.concat([cut, ...chunks]);
    const whole = wholeUtf8(bytes);
    cut = bytes.subarray(whole);
    answer(bytes.toString('utf8', 0, whole));
  };

  function stop(): void {
    if (!reading) return;
    reading = false;
    stdin.off('readable', onReadable);
  }

  stdin.on('readable', onReadable);
  return {
    ended,
    stop,
    handOver() {
      stop();
      const left = Buffer.concat(forInk ?? [cut]);
      // Back at the front of the stream: Ink reads them before anything typed after.
      if (left.length > 0) stdin.unshift(left);
      return { start: { query: state.query, shown: state.shown, cursor: state.cursor, top: state.top, filter }, painted };
    },
  };
}
