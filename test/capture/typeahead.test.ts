// Lines typed ahead while bash runs between two lines of a multi-line command are echoed twice: by the
// terminal (readline is not reading then) and by readline after the next continuation prompt. The
// command and how it was shown keep each line once. Streams are written as bash writes them.
import { describe, expect, it } from 'vitest';
import { recordText } from '../../src/capture/recorder.js';
import { escape633 } from '../../src/capture/tokenizer.js';
import { NONCE } from './harness.js';

const osc = (body: string): string => `\x1b]${body}\x07`;
const A = osc(`133;A;sivtr=${NONCE}`);
const B = osc(`133;B;sivtr=${NONCE}`);
const A2 = osc(`133;A;k=s;sivtr=${NONCE}`);
const B2 = osc(`133;B;k=s;sivtr=${NONCE}`);
const C = osc(`133;C;sivtr=${NONCE}`);
const D = (code: number): string => osc(`133;D;${code};sivtr=${NONCE}`);
const E = (command: string): string => osc(`633;E;${escape633(command)};${NONCE}`);
const more = `${A2}more> ${B2}`;

function loop(kernelEcho: string, reported: string): string {
  return `${A}b$ ${B}for i in 1 2; do\r\n${kernelEcho}${more}echo "n=$i"\r\n${more}done\r\n${C}n=1\r\nn=2\r\n${E(reported)}${D(0)}${A}b$ ${B}`;
}

describe('a multi-line command typed ahead', () => {
  it('bash: a line echoed by the terminal before its continuation prompt is not a line of the command', () => {
    const [entry] = recordText(loop('echo "n=$i"\r\n', 'for i in 1 2; do echo "n=$i"; done'), NONCE);
    expect(entry?.command).toBe('for i in 1 2; do\necho "n=$i"\ndone');
    expect(entry?.command_shown).toBe('for i in 1 2; do\nmore> echo "n=$i"\nmore> done');
    expect(entry?.output).toBe('n=1\nn=2');
  });

  it('bash: two lines typed ahead at once, both echoed early', () => {
    const stream = `${A}b$ ${B}if true; then\r\necho y\r\nfi\r\n${more}echo y\r\n${more}fi\r\n${C}y\r\n${E('if true; then echo y; fi')}${D(0)}`;
    const [entry] = recordText(stream, NONCE);
    expect(entry?.command).toBe('if true; then\necho y\nfi');
    expect(entry?.command_shown).toBe('if true; then\nmore> echo y\nmore> fi');
  });

  it('an exact report (zsh) keeps its lines, and how it was shown loses the early echo', () => {
    const [entry] = recordText(loop('echo "n=$i"\r\n', 'for i in 1 2; do\necho "n=$i"\ndone'), NONCE);
    expect(entry?.command).toBe('for i in 1 2; do\necho "n=$i"\ndone');
    expect(entry?.command_shown).toBe('for i in 1 2; do\nmore> echo "n=$i"\nmore> done');
  });

  it('without typeahead the lines are taken as echoed, as before', () => {
    const [entry] = recordText(loop('', 'for i in 1 2; do echo "n=$i"; done'), NONCE);
    expect(entry?.command).toBe('for i in 1 2; do\necho "n=$i"\ndone');
    expect(entry?.command_shown).toBe('for i in 1 2; do\nmore> echo "n=$i"\nmore> done');
  });

  it('an echo that matches neither way falls back to the report', () => {
    const [entry] = recordText(loop('rm -rf x\r\n', 'for i in 1 2; do echo "n=$i"; done; echo extra'), NONCE);
    expect(entry?.command).toBe('for i in 1 2; do echo "n=$i"; done; echo extra');
  });
});
