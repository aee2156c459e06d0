// run / pipe / bare piped sivtr / history list|search|show, retention and the legacy `sift` db,
// all through the CLI as a user runs it, against a real history.db in a temp dir.
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3') as typeof import('better-sqlite3');

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = tempDir();
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: join(tmp.path, 'data'), SIVTR_CONFIG_DIR: join(tmp.path, 'config') });
});
afterEach(() => tmp.cleanup());

const cli = (args: string[], input?: string, e = env) => runCli(args, { env: e, input });
const showJson = (id: string, e = env) => JSON.parse(cli(['history', 'show', id, '--json'], undefined, e).stdout) as Record<string, unknown>;

describe('sivtr run', () => {
  it('passes output through, keeps plain and ANSI output, and exits with the command’s code', () => {
    const script = 'printf "\\033[31mred\\033[0m line\\n"; printf "progress 10%%\\rprogress 100%%\\n"; exit 3';
    const r = cli(['run', 'bash', '-c', script]);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('\x1b[31mred\x1b[0m line');
    const entry = showJson('1');
    expect(entry).toMatchObject({ ref: 'history/1', source: 'history', command: `bash -c '${script}'`, output: 'red line\nprogress 100%', exit_code: 3, cwd: tmp.path });
    expect(typeof entry.duration_ms).toBe('number');
    expect(Date.parse(entry.ended_at as string)).toBeGreaterThan(0);
    expect(cli(['history', 'show', '1', '--ansi']).stdout).toContain('\x1b[31mred\x1b[0m line\nprogress 100%');
    expect(cli(['history', 'show', '1']).stdout).toBe(`bash -c '${script}'\nred line\nprogress 100%\n`);
  });

  it('exits 0 for a successful command and keeps its exit code', () => {
    expect(cli(['run', 'echo', 'hello world']).code).toBe(0);
    expect(showJson('1')).toMatchObject({ command: "echo 'hello world'", output: 'hello world', exit_code: 0 });
  });

  it('feeds piped stdin to the command', () => {
    // (A coreutils `cat`, which closes the terminal before exiting, is in test/capture/run-capture.test.ts.)
    const r = cli(['run', 'bash', '-c', 'read x; echo "got $x"; exit 5'], 'typed line\n');
    expect(r.code).toBe(5);
    expect(showJson('1').output).toContain('got typed line');
  });

  it('says so in one line for a command that does not exist, and keeps nothing', () => {
    const r = cli(['run', 'no-such-command-xyz']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sivtr: command not found: no-such-command-xyz — .+\n$/);
    expect(cli(['history', '--json']).stdout).toBe('[]\n');
  });

  it('needs a command', () => {
    expect(cli(['run']).code).toBe(2);
  });
});

describe('sivtr pipe and bare piped sivtr', () => {
  it('tees stdin to stdout and keeps it', () => {
    const r = cli(['pipe'], 'line one\nline two\n');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('line one\nline two\n');
    expect(showJson('1')).toMatchObject({ source: 'history', command: '', output: 'line one\nline two' });
    expect(JSON.parse(cli(['history', '--json']).stdout)).toMatchObject([{ kind: 'pipe' }]);
    expect(statSync(join(tmp.path, 'data', 'history.db')).mode & 0o777).toBe(0o600);
  });

  it('stores the producing command when given', () => {
    cli(['pipe', '--command', 'make all'], 'built\n');
    expect(showJson('1')).toMatchObject({ command: 'make all', output: 'built' });
  });

  it('renders carriage returns and colours with the text model', () => {
    cli(['pipe'], '\x1b[32mok\x1b[0m\r\ndownload 5%\rdownload 99%\r\n');
    const entry = showJson('1');
    expect(entry.output).toBe('ok\ndownload 99%');
    expect(cli(['history', 'show', '1', '--ansi']).stdout).toContain('\x1b[32mok\x1b[0m');
  });

  it('bare `sivtr` with piped stdin is `sivtr pipe`', () => {
    const r = cli([], 'from bare sivtr\n');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('from bare sivtr\n');
    expect(showJson('1').output).toBe('from bare sivtr');
  });

  it('bare `sivtr` with empty stdin is still a usage error', () => {
    const r = cli([], '');
    expect(r.code).toBe(2);
    expect(existsSync(join(tmp.path, 'data', 'history.db'))).toBe(false);
  });

  it('`sivtr pipe` with nothing piped exits 1', () => {
    const r = cli(['pipe'], '');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sivtr: .+ — .+\n$/);
  });
});

describe('sivtr run with piped input', () => {
  it('never writes the pty’s last input into history.db (a closed pty fd reused by the database)', async () => {
    // Several at once: the end-of-file write racing the child's exit needs a busy machine.
    const dirs = Array.from({ length: 6 }, (_, i) => join(tmp.path, `w${i}`));
    const one = async (dir: string): Promise<number> => {
      const e = cleanEnv(dir, { SIVTR_DATA_DIR: join(dir, 'data'), SIVTR_CONFIG_DIR: join(dir, 'config') });
      mkdirSync(dir, { recursive: true });
      for (let k = 0; k < 3; k++) {
        const child = spawn(process.execPath, [BIN, 'run', 'sh', '-c', `echo build ${k}`], { env: e, cwd: dir, stdio: ['pipe', 'ignore', 'ignore'] });
        child.stdin.end();
        await new Promise((done) => child.on('exit', done));
      }
      const db = new Database(join(dir, 'data', 'history.db'), { readonly: true });
      try {
        return db.prepare('SELECT count(*) FROM entries').pluck().get() as number;
      } finally {
        db.close();
      }
    };
    expect(await Promise.all(dirs.map(one))).toEqual(dirs.map(() => 3));
  }, 120_000);
});

describe('sivtr history', () => {
  beforeEach(() => {
    cli(['pipe', '--command', 'curl localhost'], 'curl: (7) Failed to connect: Connection refused\n');
    cli(['pipe'], '这是会话记录 see PR1137 in snake_case_module\n');
    cli(['run', 'sh', '-c', 'echo build ok']);
  });

  it('lists newest first with refs', () => {
    const r = cli(['history']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(['history/3', 'history/2', 'history/1']);
    expect(lines[2]).toContain('curl localhost');
    expect(cli(['history', 'list', '--limit', '1']).stdout.trim().split('\n')).toHaveLength(1);
    const json = JSON.parse(cli(['history', 'list', '--json']).stdout) as { ref: string }[];
    expect(json.map((e) => e.ref)).toEqual(['history/3', 'history/2', 'history/1']);
  });

  it('searches CJK, code-like substrings and several words', () => {
    const refs = (q: string) => (JSON.parse(cli(['history', 'search', q, '--json']).stdout) as { hits: { ref: string }[] }).hits.map((h) => h.ref);
    expect(refs('会话')).toEqual(['history/2']);
    expect(refs('PR1137')).toEqual(['history/2']);
    expect(refs('snake_case')).toEqual(['history/2']);
    expect(refs('connection refused')).toEqual(['history/1']);
    // Not every word is anywhere: hits with some words, never silently nothing.
    expect(refs('connection timeout')).toEqual(['history/1']);
    expect(refs('nothing-like-this-anywhere')).toEqual([]);
  });

  it('shows the newest, by id and by ref; an unknown id exits 1', () => {
    expect(cli(['history', 'show']).stdout).toBe('sh -c \'echo build ok\'\nbuild ok\n');
    expect(cli(['history', 'show', 'history/1']).stdout).toBe('curl localhost\ncurl: (7) Failed to connect: Connection refused\n');
    const r = cli(['history', 'show', '99']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sivtr: no history entry 99 — /);
  });

  it('entries resolve as refs through `sivtr show`', () => {
    const r = cli(['show', 'history/1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('curl: (7) Failed to connect: Connection refused');
    const part = JSON.parse(cli(['show', 'history/2/1/p3', '--json']).stdout) as { text: string };
    expect(part.text).toBe('这是会话记录 see PR1137 in snake_case_module');
  });
});

describe('retention and legacy databases', () => {
  it('keeps at most [history] max_entries from config.toml', () => {
    mkdirSync(join(tmp.path, 'config'), { recursive: true });
    writeFileSync(join(tmp.path, 'config', 'config.toml'), '[history]\nmax_entries = 2\n');
    for (const n of [1, 2, 3]) cli(['pipe'], `entry ${n}\n`);
    const json = JSON.parse(cli(['history', '--json']).stdout) as { ref: string }[];
    expect(json.map((e) => e.ref)).toEqual(['history/3', 'history/2']);
    expect(cli(['history', 'show', '1']).code).toBe(1);
  });

  it('warns about a broken config.toml and keeps working', () => {
    mkdirSync(join(tmp.path, 'config'), { recursive: true });
    writeFileSync(join(tmp.path, 'config', 'config.toml'), '[history\nmax_entries = ');
    const r = cli(['pipe'], 'still kept\n');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/config\.toml/);
    expect(showJson('1').output).toBe('still kept');
  });

  it('reads a legacy `sift` history.db, and the first new capture carries it over', () => {
    const legacyEnv = cleanEnv(tmp.path, { SIVTR_CONFIG_DIR: join(tmp.path, 'config') });
    const legacyDir = join(tmp.path, '.local', 'state', 'sift');
    mkdirSync(legacyDir, { recursive: true });
    const db = new Database(join(legacyDir, 'history.db'));
    db.exec(`CREATE TABLE history (id INTEGER PRIMARY KEY AUTOINCREMENT, content TEXT NOT NULL, command TEXT, timestamp TEXT NOT NULL,
      hostname TEXT NOT NULL, session_id TEXT NOT NULL, source TEXT NOT NULL, created_at TEXT DEFAULT CURRENT_TIMESTAMP)`);
    db.prepare('INSERT INTO history (content, command, timestamp, hostname, session_id, source) VALUES (?, ?, ?, ?, ?, ?)').run(
      'old legacy output', 'legacy-cmd', '2025-01-02T03:04:05Z', 'box', 's1', 'pipe',
    );
    db.close();
    const listed = JSON.parse(cli(['history', '--json'], undefined, legacyEnv).stdout) as { ref: string; command: string; output: string }[];
    expect(listed).toMatchObject([{ ref: 'history/1', command: 'legacy-cmd', output: 'old legacy output' }]);
    expect(cli(['history', 'search', 'legacy output', '--json'], undefined, legacyEnv).stdout).toContain('history/1');
    cli(['pipe'], 'new capture\n', legacyEnv);
    expect(existsSync(join(tmp.path, '.local', 'state', 'sivtr', 'history.db'))).toBe(true);
    const after = JSON.parse(cli(['history', '--json'], undefined, legacyEnv).stdout) as { ref: string; output: string }[];
    expect(after.map((e) => [e.ref, e.output])).toEqual([
      ['history/2', 'new capture'],
      ['history/1', 'old legacy output'],
    ]);
  });
});
