import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeEntry } from '../../src/session/entry.js';
import { appendEntry, currentTerminalLog, loadLog, LogWriter } from '../../src/session/log.js';
import { configDir, configFile, dataDir, historyDbForRead, terminalLogPath } from '../../src/session/paths.js';
import { tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
let stderr: string[];
beforeEach(() => {
  tmp = tempDir();
  stderr = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  tmp.cleanup();
});

const good = (c: string) => JSON.stringify({ prompt: '$ ', command: c, output: `out of ${c}` });

describe('loading logs', () => {
  it('skips blank lines silently', () => {
    const p = join(tmp.path, 'a.jsonl');
    writeFileSync(p, `${good('a')}\n\n   \n${good('b')}\n`);
    const log = loadLog(p);
    expect(log.entries.map((e) => e.command)).toEqual(['a', 'b']);
    expect(log.skipped).toBe(0);
    expect(stderr.join('')).toBe('');
  });

  it('counts and skips a corrupt line in the middle and a truncated last line', () => {
    const p = join(tmp.path, 'a.jsonl');
    writeFileSync(p, `${good('a')}\n{not json\n${good('b')}\n{"prompt":"$ ","command":"c","out`);
    const log = loadLog(p);
    expect(log.entries.map((e) => e.command)).toEqual(['a', 'b']);
    expect(log.skipped).toBe(2);
    expect(stderr.join('')).toBe(`sivtr: skipped 2 unreadable lines in ${p}\n`);
  });

  it('normalises a legacy line with raw ANSI in output', () => {
    const p = join(tmp.path, 'a.jsonl');
    writeFileSync(p, JSON.stringify({ prompt: '$ ', command: 'ls', output: '\x1b[34msrc\x1b[0m\r\n' }) + '\n');
    expect(loadLog(p).entries[0]).toEqual({ prompt: '$ ', command: 'ls', output: 'src', output_ansi: '\x1b[34msrc\x1b[0m' });
  });

  it('reads a non-JSON file as all unreadable, without throwing', () => {
    const p = join(tmp.path, 'a.jsonl');
    writeFileSync(p, 'hello\nworld\n');
    expect(loadLog(p)).toMatchObject({ entries: [], skipped: 2 });
  });
});

describe('appending', () => {
  it('creates the log 0600 inside a 0700 directory', () => {
    const p = join(tmp.path, 'state', 'terminals', 't1.jsonl');
    appendEntry(p, makeEntry({ command: 'ls', output: 'x' }));
    expect(statSync(p).mode & 0o777).toBe(0o600);
    expect(statSync(join(tmp.path, 'state', 'terminals')).mode & 0o777).toBe(0o700);
    expect(readFileSync(p, 'utf8')).toBe('{"prompt":"","command":"ls","output":"x"}\n');
  });

  it('backs up a damaged log, keeps every valid entry and appends', () => {
    const dir = join(tmp.path, 'terminals');
    mkdirSync(dir);
    const p = join(dir, 't.jsonl');
    const original = `${good('a')}\ngarbage\n${good('b')}\n{"command":"cut`;
    writeFileSync(p, original);
    appendEntry(p, makeEntry({ command: 'c', output: 'new' }));
    const backups = readdirSync(dir).filter((n) => n.startsWith('t.jsonl.corrupt-'));
    expect(backups).toHaveLength(1);
    expect(backups[0]).toMatch(/^t\.jsonl\.corrupt-\d{8}T\d{6}Z$/);
    expect(readFileSync(join(dir, backups[0]!), 'utf8')).toBe(original);
    const log = loadLog(p);
    expect(log.skipped).toBe(0);
    expect(log.entries.map((e) => e.command)).toEqual(['a', 'b', 'c']);
    expect(statSync(p).mode & 0o777).toBe(0o600);
  });

  it('salvages damage another program appends mid-session at the next append, once', () => {
    const dir = join(tmp.path, 'terminals');
    mkdirSync(dir);
    const p = join(dir, 't.jsonl');
    const writer = new LogWriter(p);
    writer.append(makeEntry({ command: 'a', output: '' }));
    appendFileSync(p, 'typed by an editor');
    const damaged = readFileSync(p, 'utf8');
    writer.append(makeEntry({ command: 'b', output: '' }));
    writer.append(makeEntry({ command: 'c', output: '' }));
    const backups = readdirSync(dir).filter((n) => n.startsWith('t.jsonl.corrupt-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(dir, backups[0]!), 'utf8')).toBe(damaged);
    expect(stderr.join('')).toMatch(/^sivtr: \S+ held an unreadable line: kept the original as t\.jsonl\.corrupt-\S+ and blanked it/);
    stderr.length = 0;
    expect(loadLog(p)).toMatchObject({ skipped: 0, entries: [{ command: 'a' }, { command: 'b' }, { command: 'c' }] });
    expect(stderr.join('')).toBe('');
  });

  it('adds the missing newline after a valid last line instead of gluing entries', () => {
    const p = join(tmp.path, 't.jsonl');
    writeFileSync(p, good('a'));
    appendEntry(p, makeEntry({ command: 'b', output: '' }));
    expect(loadLog(p).entries.map((e) => e.command)).toEqual(['a', 'b']);
    expect(existsSync(`${p}.corrupt`)).toBe(false);
  });
});

describe('paths', () => {
  it('honours SIVTR_DATA_DIR, then XDG_STATE_HOME, then ~/.local/state', () => {
    expect(dataDir({ SIVTR_DATA_DIR: '/d', XDG_STATE_HOME: '/x', HOME: '/h' }, 'linux')).toBe('/d');
    expect(dataDir({ XDG_STATE_HOME: '/x', HOME: '/h' }, 'linux')).toBe('/x/sivtr');
    expect(dataDir({ HOME: '/h' }, 'linux')).toBe('/h/.local/state/sivtr');
    expect(dataDir({ HOME: '/h' }, 'darwin')).toBe('/h/Library/Application Support/sivtr');
    expect(dataDir({ APPDATA: 'C:/Users/u/AppData/Roaming', HOME: '/h' }, 'win32')).toMatch(/Roaming[\\/]sivtr$/);
  });

  it('honours SIVTR_CONFIG_DIR, then XDG_CONFIG_HOME, then ~/.config; macOS and Windows use the data root', () => {
    expect(configDir({ SIVTR_CONFIG_DIR: '/c', XDG_CONFIG_HOME: '/x', HOME: '/h' }, 'linux')).toBe('/c');
    expect(configDir({ XDG_CONFIG_HOME: '/x', HOME: '/h' }, 'linux')).toBe('/x/sivtr');
    expect(configDir({ HOME: '/h' }, 'linux')).toBe('/h/.config/sivtr');
    expect(configDir({ HOME: '/h' }, 'darwin')).toBe('/h/Library/Application Support/sivtr');
  });

  it('falls back to legacy sift config and history only when the current files are absent', () => {
    const env = { HOME: tmp.path };
    const legacyConfig = join(tmp.path, '.config', 'sift', 'config.toml');
    const legacyHistory = join(tmp.path, '.local', 'state', 'sift', 'history.db');
    expect(configFile(env, 'linux')).toBe(join(tmp.path, '.config', 'sivtr', 'config.toml'));
    mkdirSync(join(tmp.path, '.config', 'sift'), { recursive: true });
    mkdirSync(join(tmp.path, '.local', 'state', 'sift'), { recursive: true });
    writeFileSync(legacyConfig, 'max_entries = 5\n');
    writeFileSync(legacyHistory, '');
    expect(configFile(env, 'linux')).toBe(legacyConfig);
    expect(historyDbForRead(env, 'linux')).toBe(legacyHistory);
    mkdirSync(join(tmp.path, '.config', 'sivtr'), { recursive: true });
    writeFileSync(join(tmp.path, '.config', 'sivtr', 'config.toml'), '');
    expect(configFile(env, 'linux')).toBe(join(tmp.path, '.config', 'sivtr', 'config.toml'));
  });

  it('resolves terminal/current: SIVTR_SESSION_LOG, then SIVTR_TERMINAL_ID, then the newest log', () => {
    const env: NodeJS.ProcessEnv = { SIVTR_DATA_DIR: tmp.path };
    const older = terminalLogPath('older', env);
    const newer = terminalLogPath('newer', env);
    appendEntry(older, makeEntry({ command: 'a' }));
    appendEntry(newer, makeEntry({ command: 'b' }));
    utimesSync(older, 1000, 1000);
    expect(currentTerminalLog(env)).toBe(newer);
    expect(currentTerminalLog({ ...env, SIVTR_TERMINAL_ID: 'older' })).toBe(older);
    expect(currentTerminalLog({ ...env, SIVTR_TERMINAL_ID: 'missing' })).toBe(newer);
    expect(currentTerminalLog({ ...env, SIVTR_TERMINAL_ID: 'older', SIVTR_SESSION_LOG: '/x/explicit.jsonl' })).toBe('/x/explicit.jsonl');
  });
});
