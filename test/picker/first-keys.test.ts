// Keys typed before the picker's screen chunk (Ink and React) has loaded: the picker opened by a
// key binding and the query typed at once. The chunk is held back (test/helpers/hold-picker-chunk.mjs)
// for as long as a test types, so what is asserted is what the main bundle answers on its own,
// and then that Ink takes over from it with every key answered once, in the order typed.
import { spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { pickerHome } from '../helpers/picker-home.js';
import { KEY, PtyScreen } from '../helpers/screen.js';

const HOLD = pathToFileURL(join(ROOT, 'test', 'helpers', 'hold-picker-chunk.mjs')).href;

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let sink: string;
let n = 0;
const open: { s: PtyScreen; fifo: string }[] = [];

beforeAll(() => {
  tmp = tempDir();
  ({ env, sink } = pickerHome(tmp.path));
});
afterEach(() => {
  for (const { s, fifo } of open.splice(0)) {
    s.kill('SIGKILL');
    // A release still waiting for a reader (the picker died first) gets one, and fails quietly.
    try {
      closeSync(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK));
    } catch {
      // no FIFO, or nobody waiting
    }
  }
});
afterAll(() => tmp.cleanup());

/** The picker with its screen chunk held back until `release()`. */
function heldPicker(args: string[]): { s: PtyScreen; release(): void } {
  const fifo = join(tmp.path, `hold-${++n}`);
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const s = new PtyScreen(process.execPath, [BIN, ...args], { env: { ...env, NODE_OPTIONS: `--import=${HOLD}`, HOLD_PICKER_CHUNK: fifo } });
  open.push({ s, fifo });
  return { s, release: () => void writeFile(fifo, 'go').catch(() => undefined) };
}

const clipboard = (): string => readFileSync(sink, 'utf8');
const header = (s: PtyScreen): string => s.lines()[0] ?? '';
const selectedRow = (s: PtyScreen): string => s.lines().find((l) => l.startsWith('›')) ?? '';

describe('keys typed before Ink has loaded', () => {
  it('edit the query at once, and Ink goes on from there: every key once, in order, into what is copied', async () => {
    const { s, release } = heldPicker(['pick']);
    s.write('ma'); // right after spawn, before the first frame
    await s.untilText('Enter copy');
    const firstFrame = s.raw.length;
    s.write(`kx${KEY.backspace}e`); // at the first paint
    await s.untilText(/^> make +1\/4 …$/m); // the whole list (` …`) is Ink's to read
    expect(selectedRow(s)).toMatch(/^› +\$ make/);
    // Tab is Ink's to answer: it and every key after it wait for Ink, in order.
    s.write(`${KEY.tab}${KEY.tab} miss`);
    release();
    await s.untilText('── terminal/t/2 · block input [output] cmd');
    await s.untilText(/^> make miss +1\/4$/m);
    s.write(KEY.enter);
    expect(await s.wait()).toBe(0);
    expect(clipboard()).toBe('error: missing target\nmake: *** [all] Error 2');
    // Ink took over what the screen showed: it changed rows, it never cleared the screen to redraw it.
    expect(s.raw.slice(firstFrame)).not.toContain('\x1b[2J');
  });

  it('Up/Down, Ctrl-N/Ctrl-P and Ctrl-U move and clear before Ink, and Ink keeps the selection', async () => {
    const { s, release } = heldPicker(['pick']);
    await s.untilText('Enter copy');
    s.write(KEY.down + KEY.ctrlN + KEY.down);
    await s.untilText('── terminal/t/1 · [block]');
    s.write(KEY.up + KEY.ctrlP);
    await s.untilText('── terminal/t/3 · [block]');
    s.write(`xyz${KEY.ctrlU}`);
    await s.until((x) => /^> +4\/4 …$/.test(header(x)) && x.text().includes('── terminal/t/4 · [block]'), 'the query cleared, the list from its top');
    s.write(`${KEY.down}${KEY.down}`);
    await s.untilText('── terminal/t/2 · [block]');
    release();
    s.write(KEY.tab); // answered by Ink, on the entry the early keys selected
    await s.untilText('── terminal/t/2 · block [input] output cmd');
    s.write(KEY.enter);
    expect(await s.wait()).toBe(0);
    expect(clipboard()).toBe('me@box:~$ make');
  });

  it('a query of any script, typed as one paste', async () => {
    const { s, release } = heldPicker(['pick']);
    await s.untilText('Enter copy');
    s.write('seq 1 ✓é会话');
    await s.untilText(/^> seq 1 ✓é会话 +0\/4 …$/m);
    s.write(`${KEY.backspace.repeat(4)}`);
    await s.untilText(/^> seq 1 +1\/4 …$/m);
    release();
    s.write(KEY.tab);
    await s.untilText('block [input] output cmd');
    await s.untilText(/^> seq 1 +1\/4$/m); // the whole list read by Ink, the query kept
    s.write(KEY.esc);
    expect(await s.wait()).toBe(130);
  });

  for (const [name, key, code] of [
    ['Esc', KEY.esc, 130],
    ['Ctrl-C', KEY.ctrlC, 130],
  ] as const) {
    it(`${name} leaves at once, exit ${code}, the terminal given back`, async () => {
      writeFileSync(sink, 'untouched');
      const { s, release } = heldPicker(['pick']);
      await s.untilText('Enter copy');
      s.write(`ls${key}`);
      await s.until((x) => !x.onAltScreen(), 'the main screen back, Ink still held');
      expect(s.term.modes.wraparoundMode).toBe(true);
      release(); // the process ends once the load it started is over
      expect(await s.wait()).toBe(code);
      expect(clipboard()).toBe('untouched');
    });
  }

  it('Enter copies the selected entry at once', async () => {
    const { s, release } = heldPicker(['copy', 'out', '--pick']);
    await s.untilText('Enter copy');
    s.write(`ls${KEY.enter}`);
    await s.until((x) => !x.onAltScreen(), 'the main screen back, Ink still held');
    release();
    expect(await s.wait()).toBe(0);
    expect(clipboard()).toBe('a.txt\nb.txt');
  });

  it('Enter on an entry with nothing to copy is left to Ink, which says so', async () => {
    const { s, release } = heldPicker(['copy', 'out', '--pick']);
    await s.untilText('Enter copy');
    s.write(`true${KEY.enter}`);
    await s.untilText(/^> true +1\/4 …$/m);
    release();
    await s.untilText('nothing to copy: no output here');
    s.write(KEY.esc);
    expect(await s.wait()).toBe(130);
  });
});
