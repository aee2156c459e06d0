import { describe, expect, it } from 'vitest';
import { entryFromJson, makeEntry, parseEntryLine, renderBlock, renderInput, serializeEntry } from '../../src/session/entry.js';

describe('SessionEntry normalisation', () => {
  it('turns CRLF into LF and trims trailing newlines from command and output', () => {
    const e = makeEntry({ prompt: '$ ', command: 'ls\r\n', output: 'a\r\nb\r\n\r\n' });
    expect(e).toEqual({ prompt: '$ ', command: 'ls', output: 'a\nb' });
  });

  it('strips ANSI from plain fields and keeps colours separately only when different', () => {
    const e = makeEntry({ prompt: '\x1b[32m$\x1b[0m ', command: 'ls --color', output: '\x1b[34msrc\x1b[0m\nREADME' });
    expect(e.prompt).toBe('$ ');
    expect(e.prompt_ansi).toBe('\x1b[32m$\x1b[0m ');
    expect(e.output).toBe('src\nREADME');
    expect(e.output_ansi).toBe('\x1b[34msrc\x1b[0m\nREADME');
    const plainOnly = makeEntry({ command: 'echo', output: 'plain' });
    expect(plainOnly).not.toHaveProperty('output_ansi');
    expect(plainOnly).not.toHaveProperty('prompt_ansi');
  });

  it('drops an ANSI variant that holds only escapes', () => {
    const e = makeEntry({ command: 'clear', output: '\x1b[H\x1b[2J\x1b[3J' });
    expect(e.output).toBe('');
    expect(e).not.toHaveProperty('output_ansi');
  });

  it('never strips the command', () => {
    const e = makeEntry({ command: "printf '\\x1b[31m'  ", output: '' });
    expect(e.command).toBe("printf '\\x1b[31m'  ");
  });

  it('renders progress bars, backspaces and tabs as displayed', () => {
    expect(makeEntry({ command: 'dl', output: '10%\r50%\r100%' }).output).toBe('100%');
    expect(makeEntry({ command: 'x', output: 'ab\bc' }).output).toBe('ac');
    expect(makeEntry({ command: 'x', output: 'a\tb' }).output).toBe('a\tb');
  });

  it('keeps at most one trailing newline on the prompt', () => {
    expect(makeEntry({ prompt: 'user@host ~\n$ ', command: 'ls' }).prompt).toBe('user@host ~\n$ ');
    expect(makeEntry({ prompt: '┌─ ~/src\n└─\n\n\n', command: 'ls' }).prompt).toBe('┌─ ~/src\n└─\n');
    expect(makeEntry({ prompt: '\x1b[1m~\x1b[0m\r\n', command: 'ls' })).toMatchObject({ prompt: '~\n', prompt_ansi: '\x1b[1m~\x1b[0m\n' });
  });

  it('handles an empty prompt and an empty command', () => {
    expect(makeEntry({ command: '' })).toEqual({ prompt: '', command: '', output: '' });
  });

  it('writes keys in the fixed order and omits absent ones', () => {
    const line = serializeEntry(
      makeEntry({ exit_code: 2, duration_ms: 12.4, ended_at: '2026-11-29T10:00:00+01:00', cwd: '/w', output: '\x1b[1mo\x1b[0m', command: 'c', prompt: '\x1b[2m$\x1b[0m ' }),
    );
    expect(Object.keys(JSON.parse(line))).toEqual(['prompt', 'command', 'output', 'prompt_ansi', 'output_ansi', 'cwd', 'ended_at', 'duration_ms', 'exit_code']);
    expect(JSON.parse(line).duration_ms).toBe(12);
  });

  it('normalises the same at load as at construction', () => {
    const raw = { prompt: '$ ', command: 'x\r\n', output: '\x1b[31mred\x1b[0m\r\n50%\r100%\n\n', exit_code: 0 };
    const loaded = parseEntryLine(JSON.stringify(raw));
    expect(loaded).toEqual(makeEntry(raw));
    expect(parseEntryLine(serializeEntry(loaded!))).toEqual(loaded);
  });

  it('rejects lines that are not entries', () => {
    expect(parseEntryLine('')).toBeUndefined();
    expect(parseEntryLine('{"command":"x"')).toBeUndefined();
    expect(parseEntryLine('[1,2]')).toBeUndefined();
    expect(parseEntryLine('{"cmd":"legacy","out":"x"}')).toBeUndefined();
    expect(entryFromJson({ command: 1, output: '' })).toBeUndefined();
    expect(parseEntryLine('{"command":"x","output":"y"}')).toEqual({ prompt: '', command: 'x', output: 'y' });
  });
});

describe('rendering the input', () => {
  it('empty prompt gives the command', () => {
    expect(renderInput('', 'ls')).toBe('ls');
  });
  it('prompt ending in a newline puts the command on the next line', () => {
    expect(renderInput('~/src\n', 'ls')).toBe('~/src\nls');
  });
  it('inserts one space unless the prompt ends in whitespace', () => {
    expect(renderInput('$', 'ls')).toBe('$ ls');
    expect(renderInput('$ ', 'ls')).toBe('$ ls');
    expect(renderInput('>\t', 'ls')).toBe('>\tls');
  });
  it('a block is input, newline, output', () => {
    expect(renderBlock('$ ls', 'a\nb')).toBe('$ ls\na\nb');
    expect(renderBlock('$ true', '')).toBe('$ true');
    expect(renderBlock('', 'piped text')).toBe('piped text'); // no input line: no blank line
  });
});
