import { describe, expect, it } from 'vitest';
import { entryFromJson, makeEntry, MAY_NEED_NORMALISING, normalAsIs, normaliseRaw, parseEntryLine, parseRawEntryLine, renderBlock, renderInput, serializeEntry } from '../../src/session/entry.js';

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

describe('a line that needs no normalising', () => {
  // Texts made of what normalising acts on (CR, CRLF, ESC, CSI, DEL, BS, FF, NUL, trailing
  // newlines) and what it leaves alone (tab, inner newline, quotes, backslashes, non-ASCII).
  const alphabet = ['a', 'Z', ' ', '\t', '\n', '\r', '\r\n', '\x1b[31m', '\x1b[0m', '\x9b', '\x7f', '\b', '\f', '\u0000', '\u0001', '"', '\\', '\\n', '/', '会话', 'é', '_ansi', 'command_shown'];
  function text(seed: number, length: number): string {
    let x = seed;
    let out = '';
    for (let i = 0; i < length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      // Mostly plain letters, so that many lines are plain and the fast path is tried.
      out += x % 29 === 0 ? alphabet[(x >>> 8) % alphabet.length] : 'abc xyz'[(x >>> 8) % 7];
    }
    return out;
  }
  const odd = [undefined, '', 'x', 0, 1, -2, 1.5, null, true, NaN];
  const fields = ['prompt', 'cwd', 'ended_at', 'exit_code', 'duration_ms'] as const;
  const PLAIN = ['prompt', 'command', 'output', 'cwd', 'ended_at', 'exit_code'] as const;

  it('is normalised as it is, for every field the index reads', () => {
    let asIs = 0;
    let hinted = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const value: Record<string, unknown> = { command: text(seed, seed % 13), output: text(seed * 7, seed % 40) };
      for (const [i, f] of fields.entries()) {
        const pick = (seed >>> i) % 5;
        if (pick === 0) continue;
        value[f] = pick === 1 ? odd[(seed >>> (i + 3)) % odd.length] : f === 'exit_code' || f === 'duration_ms' ? (seed % 3) - 1 : text(seed * (i + 3), 1 + (seed % 9));
      }
      if (seed % 17 === 0) value[seed % 2 ? 'output_ansi' : 'command_shown'] = text(seed, 5);
      const line = JSON.stringify(value);
      const raw = parseRawEntryLine(line);
      if (!raw) continue;
      if (MAY_NEED_NORMALISING.test(line)) {
        hinted++;
        continue;
      }
      if (!normalAsIs(raw)) continue;
      asIs++;
      const entry = normaliseRaw(raw);
      for (const f of PLAIN) expect(raw[f], `${f} of ${line}`).toEqual(entry[f]);
    }
    // Neither side may be empty, or the test would hold nothing.
    expect(asIs).toBeGreaterThan(300);
    expect(hinted).toBeGreaterThan(300);
  });

  it('is told from one that does, whatever escapes the JSON text uses', () => {
    const needs = ['{"prompt":"$ ","command":"ls\\r","output":""}', '{"prompt":"$ ","command":"x","output":"a\\n"}', '{"prompt":"$ ","command":"x","output":"\\u001b[1m"}', '{"prompt":"$ ","command":"x","output":"del \x7f"}', '{"prompt":"$ ","command":"x","output":"csi \x9b1m"}', '{"prompt":"$ ","command":"x","output":"","output_ansi":"y"}', '{"prompt":"$ ","command":"x","command_shown":"x","output":""}', '{"prompt":"a\\b","command":"x","output":""}'];
    // A \r after an escaped backslash is still a \r; a b, n" or u after one is ordinary text.
    needs.push('{"prompt":"$ ","command":"x","output":"a\\\\\\r"}', '{"prompt":"$ ","command":"x","output":"a\\\\\\n"}');
    for (const line of needs) expect(MAY_NEED_NORMALISING.test(line), line).toBe(true);
    for (const line of ['{"prompt":"$ ","command":"x","output":"a\\\\b \\\\n\\\\"}', '{"prompt":"C:\\\\u\\\\ ","command":"dir","output":"\\\\r"}']) {
      expect(MAY_NEED_NORMALISING.test(line), line).toBe(false);
      const raw = parseRawEntryLine(line)!;
      expect(normalAsIs(raw)).toBe(true);
      expect(normaliseRaw(raw), line).toMatchObject(raw);
    }
    const plain = '{"prompt":"me@box:~$ ","command":"printf \'a\\tb\\nc\'","output":"a\\tb\\nc \\"q\\" \\/ 会话","cwd":"/home/me","ended_at":"2026-10-01T00:00:00Z","exit_code":0}';
    expect(MAY_NEED_NORMALISING.test(plain)).toBe(false);
    const raw = parseRawEntryLine(plain)!;
    expect(normalAsIs(raw)).toBe(true);
    expect(normaliseRaw(raw)).toMatchObject(raw);
    for (const bad of [{ cwd: '' }, { ended_at: '' }, { exit_code: 1.5 }, { exit_code: '0' }, { cwd: null }, { prompt: undefined }]) expect(normalAsIs({ ...raw, ...bad }), JSON.stringify(bad)).toBe(false);
  });
});
