// `sivtr mcp` driven by the MCP SDK's own client over stdio, spawning the built CLI as an agent
// would: every tool, its refs, paging, and bad arguments (a tool error, and the server lives on).
import { cpSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, tempDir } from '../helpers/cli.js';
import { writeLog } from '../helpers/terminal-log.js';

const CLAUDE = join(ROOT, 'fixtures', 'real', 'claude-2.1.332');
const MAIN = (JSON.parse(readFileSync(join(CLAUDE, 'run.json'), 'utf8')) as { ids: { main: string } }).ids.main;

// A GitHub token's shape (fake): it must never leave the server.
const TOKEN = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

let tmp: ReturnType<typeof tempDir>;
let client: Client;
let stderr = '';

type Result = { text: string; isError: boolean };

async function call(name: string, args: Record<string, unknown>): Promise<Result> {
  const r = (await client.callTool({ name, arguments: args })) as { content: { type: string; text: string }[]; isError?: boolean };
  return { text: r.content.map((c) => c.text).join(''), isError: r.isError === true };
}

beforeAll(async () => {
  tmp = tempDir();
  const data = join(tmp.path, 'data');
  cpSync(join(CLAUDE, 'home'), tmp.path, { recursive: true });
  const first = writeLog(data, 'a1b2c3d4', [
    { prompt: '$ ', command: 'make', output: 'cc -o app main.c\nmain.c:3: error: expected ;', exit_code: 2, cwd: '/work/app', ended_at: '2026-11-30T10:00:00Z' },
    { prompt: '$ ', command: 'ls', output: 'a.txt\nb.txt', exit_code: 0, cwd: '/work/app', ended_at: '2026-11-30T10:01:00Z' },
    { prompt: '$ ', command: 'sivtr search make', output: 'terminal/a1b2c3d4/1 …', exit_code: 0, cwd: '/work/app', ended_at: '2026-11-30T10:02:00Z' },
  ]);
  // older than e5f6a7b8, the current terminal: both written within one tick of the file clock have
  // the same mtime, and the tie goes to the lower id
  utimesSync(first, new Date('2026-11-30T10:02:00Z'), new Date('2026-11-30T10:02:00Z'));
  writeLog(data, 'e5f6a7b8', [
    { prompt: '$ ', command: 'seq 1 3', output: '1\n2\n3', exit_code: 0, cwd: '/elsewhere', ended_at: '2026-11-30T09:00:00Z' },
    { prompt: '$ ', command: 'seq 1 4', output: '1\n2\n3\n4', exit_code: 0, cwd: '/elsewhere', ended_at: '2026-11-30T11:00:00Z' },
  ]);
  const secretLog = writeLog(data, 'f0e1d2c3', [{ prompt: '$ ', command: 'env | grep TOKEN', output: `GITHUB_TOKEN=${TOKEN}`, exit_code: 0, cwd: '/secret', ended_at: '2026-11-01T10:00:00Z' }]);
  // A title cut to one line right inside a token: the cut must not leave its first half readable.
  const cutLog = writeLog(data, 'c4c4c4c4', [{ prompt: '$ ', command: `echo ${'x'.repeat(100)} ${TOKEN}`, output: 'cutmarker', exit_code: 0, cwd: '/secret', ended_at: '2026-09-01T10:00:00Z' }]);
  utimesSync(cutLog, new Date('2026-09-01T10:00:00Z'), new Date('2026-09-01T10:00:00Z')); // not the current terminal
  const writes = writeLog(data, 'a0b0c0d0', [{ prompt: '$ ', command: 'echo ready > status.txt', output: '', exit_code: 0, cwd: '/work/app', ended_at: '2026-10-01T10:00:00Z' }]);
  utimesSync(writes, new Date('2026-10-01T10:00:00Z'), new Date('2026-10-01T10:00:00Z'));
  utimesSync(secretLog, new Date('2026-11-01T10:00:00Z'), new Date('2026-11-01T10:00:00Z')); // not the current terminal
  const env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: data });
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: env as Record<string, string>, cwd: tmp.path, stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  client = new Client({ name: 'sivtr-test', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  tmp.cleanup();
});

describe('sivtr mcp', () => {
  it('names itself and lists its read-only tools', async () => {
    expect(client.getServerVersion()?.name).toBe('sivtr');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['diff', 'files', 'overview', 'recent_commands', 'search', 'sessions', 'show', 'turns']);
    for (const t of tools) {
      expect(t.annotations?.readOnlyHint, t.name).toBe(true);
      expect(t.inputSchema.properties, t.name).toHaveProperty('max_chars');
      expect(t.inputSchema.properties, t.name).toHaveProperty('cursor');
    }
  });

  it('recent_commands: the latest records of every terminal, newest first, with output, exit code and ref; sivtr\'s own left out', async () => {
    const r = await call('recent_commands', { n: 3 });
    expect(r.isError).toBe(false);
    const refs = [...r.text.matchAll(/^══ (terminal\/\S+)/gm)].map((m) => m[1]);
    expect(refs).toEqual(['terminal/e5f6a7b8/2', 'terminal/a1b2c3d4/2', 'terminal/a1b2c3d4/1']);
    expect(r.text).toContain('exit 2  cwd /work/app');
    expect(r.text).toContain('main.c:3: error: expected ;');
    expect(r.text).not.toContain('sivtr search make');
  });

  it('recent_commands filters by status and by directory', async () => {
    const failed = await call('recent_commands', { status: 'failure' });
    expect([...failed.text.matchAll(/^══ (\S+)/gm)].map((m) => m[1])).toEqual(['terminal/a1b2c3d4/1']);
    const here = await call('recent_commands', { cwd: '/elsewhere', n: 10 });
    expect([...here.text.matchAll(/^══ (\S+)/gm)].map((m) => m[1])).toEqual(['terminal/e5f6a7b8/2', 'terminal/e5f6a7b8/1']);
  });

  it('search: hits with full refs that show resolves, from terminals and agent sessions', async () => {
    const r = await call('search', { query: 'expected', target: 'terminal' });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/^1\. terminal\/a1b2c3d4\/1(\/p\d+)?  2026-11-30T10:00Z/m);
    const agent = await call('search', { query: 'banana', target: 'claude' });
    const ref = /^1\. (claude\/\S+)/m.exec(agent.text)?.[1];
    expect(ref, agent.text).toContain(`claude/${MAIN}/`);
    const shown = await call('show', { ref: ref! });
    expect(shown.isError).toBe(false);
    expect(shown.text).toContain('banana');
    expect(shown.text).toContain(`══ claude/`);
  });

  it('search: an error message pasted whole finds the record holding most of its words first, with its ref', async () => {
    const r = await call('search', { query: 'main.c:3: error: expected ; (make failed)' });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/^1\. terminal\/a1b2c3d4\/1  2026-11-30T10:00Z  \(output, failed, some words only\)/m);
    expect(r.text.split('\n')[0]).toMatch(/^\d+ of \d+ hits( holding at least \d of the 6 words)? for "main\.c:3: error: expected ; \(make failed\)" in every source/);
  });

  it('a title cut to one line is masked before the cut, so no half token leaves the server', async () => {
    const r = await call('search', { query: 'cutmarker', scope: 'global' });
    expect(r.text).toContain('terminal/c4c4c4c4/1');
    expect(r.text).not.toContain(TOKEN.slice(0, 10));
  });

  it('search filters by status, kind and time, and says when nothing matched', async () => {
    const failed = await call('search', { query: '', target: 'terminal', status: 'failure' });
    expect([...failed.text.matchAll(/^\d+\. (\S+)/gm)].map((m) => m[1].split('/').slice(0, 3).join('/'))).toEqual(['terminal/a1b2c3d4/1']);
    const none = await call('search', { query: 'expected', target: 'terminal', until: '2026-11-29T00:00:00Z' });
    expect(none).toEqual({ text: 'no hits for "expected" in terminal\n', isError: false });
    // `kind: "command"` is the older spelling of `in: "command"`, kept for agents configured before.
    const cmd = await call('search', { query: 'seq', target: 'terminal', kind: 'command', scope: '/elsewhere' });
    expect(cmd.text).toContain('terminal/e5f6a7b8/');
    expect(cmd.text).not.toContain('a1b2c3d4');
  });

  it('search: kind takes the part kinds of the CLI\'s --kind (one or a list), in takes --in\'s fields', async () => {
    const kindsOf = (text: string) => [...text.matchAll(/^\d+\. claude\/\S+  \S+  \((\w+)/gm)].map((m) => m[1]);
    expect(kindsOf((await call('search', { query: 'banana', target: 'claude', kind: 'tool_output' })).text)).toEqual(['tool_output']);
    expect(kindsOf((await call('search', { query: 'banana', target: 'claude', kind: ['assistant'] })).text)).toEqual(['assistant']);
    expect(kindsOf((await call('search', { query: 'banana', target: 'claude', kind: ['thinking', 'tool_output'] })).text)).toEqual(['tool_output']);
    expect((await call('search', { query: 'banana', target: 'claude', kind: 'user' })).text).toBe('no hits for "banana" in claude\n');
    // A part kind leaves terminal records out, as --kind does on the command line.
    expect((await call('search', { query: 'seq', target: 'terminal', kind: 'tool_call' })).text).toBe('no hits for "seq" in terminal\n');
    const byIn = await call('search', { query: 'seq', target: 'terminal', in: 'command', scope: '/elsewhere' });
    expect(byIn.text).toContain('terminal/e5f6a7b8/');
    expect((await call('search', { query: 'seq', target: 'terminal', in: 'output' })).text).toBe('no hits for "seq" in terminal\n');
  });

  it('search: a wrong kind or in is a tool error naming the choices', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ query: 'x', kind: 'tool' }, /tool_output/],
      [{ query: 'x', kind: [] }, /kind/],
      [{ query: 'x', kind: ['command'] }, /tool_call/],
      [{ query: 'x', in: 'user' }, /content/],
      [{ query: 'x', kind: 'command', in: 'output' }, /kind "command" \(the older spelling of in\) and in "output" disagree/],
    ];
    for (const [args, message] of cases) {
      const r = await call('search', args).catch((error: Error) => ({ text: error.message, isError: true }));
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.text, JSON.stringify(args)).toMatch(message);
    }
  });

  it('show: a terminal record under its ref heading, and a whole session record by record', async () => {
    const one = await call('show', { ref: 'terminal/a1b2c3d4/1' });
    expect(one.text).toBe('══ terminal/a1b2c3d4/1 ══\n$ make\ncc -o app main.c\nmain.c:3: error: expected ;\n');
    const all = await call('show', { ref: 'terminal/e5f6a7b8' });
    expect(all.text).toContain('══ terminal/e5f6a7b8/1 ══\n$ seq 1 3\n1\n2\n3');
    expect(all.text).toContain('══ terminal/e5f6a7b8/2 ══');
  });

  it('sessions: every source with refs, workspace-scoped by default', async () => {
    const global = await call('sessions', { scope: 'global' });
    expect(global.text).toContain(`claude/${MAIN}  `);
    expect(global.text).toContain('terminal/a1b2c3d4  ');
    const claude = await call('sessions', { provider: 'claude', scope: '/tmp/sivtr-conformance/claude/proj' });
    expect(claude.text).toContain(`claude/${MAIN}  `);
    const nowhere = await call('sessions', { provider: 'claude', scope: '/nowhere' });
    expect(nowhere.text).toMatch(/^no claude sessions under \/nowhere — pass scope: "global"/);
  });

  it('diff: a unified diff headed by both refs, older side first', async () => {
    const r = await call('diff', { left: 'terminal/e5f6a7b8/2', right: 'terminal/e5f6a7b8/1' });
    expect(r.text).toBe('--- terminal/e5f6a7b8/1 (2 commands ago) seq 1 3\n+++ terminal/e5f6a7b8/2 (last command) seq 1 4\n@@ -1,3 +1,4 @@\n 1\n 2\n 3\n+4\n');
    expect((await call('diff', { left: 'terminal/e5f6a7b8/1', right: 'terminal/e5f6a7b8/1' })).text).toBe('no differences\n');
  });

  it('files: the ledger of a session, each write with its rule and the ref of its evidence', async () => {
    const r = await call('files', { session: 'terminal/a0b0c0d0' });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/^terminal\/a0b0c0d0: 1 file, 1 write$/m);
    expect(r.text).toMatch(/status\.txt\s+1\s+derived:>\s+terminal\/a0b0c0d0\/1/);
    expect((await call('files', { session: 'terminal/e5f6a7b8' })).text).toBe('no file writes proven in terminal/e5f6a7b8\n');
    expect(await call('files', { session: 'what?' })).toMatchObject({ isError: true });
  });

  it('overview and turns: the drill-down of a genuine session, every turn cited by its full ref', async () => {
    const o = await call('overview', { session: `claude/${MAIN}` });
    expect(o.isError).toBe(false);
    expect(o.text).toMatch(new RegExp(`^# claude/${MAIN} — `));
    expect(o.text).toMatch(/^- \*\*turns\*\*: 4 \(4 finished\)$/m);
    expect(o.text).toMatch(/^- \*\*commands run\*\*: 2$/m);
    expect(o.text).toMatch(/^- \*\*tokens\*\*: input 1,080 · output 225 · cache reads 0 · cache writes 0$/m);
    const t = await call('turns', { session: `claude/${MAIN}` });
    const lines = t.text.trimEnd().split('\n');
    expect(lines.map((l) => l.split(/\s+/).slice(0, 3).join(' '))).toEqual([1, 2, 3, 4].map((n) => `claude/${MAIN}/${n} T${n} finished`));
    expect(lines[0]).toContain('[stop_reason: end_turn]');
    expect(await call('turns', { session: `claude/${MAIN}/1/p2` })).toMatchObject({ isError: true });
    expect(await call('overview', { session: 'nosuch/abc' })).toMatchObject({ isError: true });
  });

  it('pages long answers by max_chars, a cursor continuing exactly where the page stopped', async () => {
    const whole = await call('show', { ref: `claude/${MAIN}` });
    expect(whole.text.length).toBeGreaterThan(1200);
    let text = '';
    let cursor: string | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const r = await call('show', { ref: `claude/${MAIN}`, max_chars: 400, ...(cursor ? { cursor } : {}) });
      const m = /\n\[(\d+) more characters of (\d+) — call show again with the same arguments and cursor "([^"]+)"\]$/.exec(r.text);
      const page = m ? r.text.slice(0, m.index) : r.text;
      expect(page.length).toBeLessThanOrEqual(400);
      text += page;
      if (!m) break;
      expect(Number(m[2])).toBe(whole.text.length);
      cursor = m[3];
    }
    expect(text).toBe(whole.text);
  });

  it('secrets are masked in every answer, and the answer says so', async () => {
    const answers = [
      await call('recent_commands', { cwd: '/secret' }),
      await call('search', { query: 'GITHUB_TOKEN', target: 'terminal' }),
      await call('show', { ref: 'terminal/f0e1d2c3/1' }),
      await call('show', { ref: 'terminal/f0e1d2c3/1', raw: true }),
    ];
    for (const a of answers) {
      expect(a.text).not.toContain(TOKEN);
      expect(a.text).not.toContain(TOKEN.slice(4, 20));
    }
    expect(answers[0]!.text).toContain('terminal/f0e1d2c3/1');
    expect(answers[2]!.text).toMatch(/masked 1 secret .*never revealed over MCP/);
  });

  it('bad arguments are tool errors that say what to do, and the server keeps answering', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['search', { query: 42 }, /expected string/],
      ['search', { query: 'x', target: 'nosuch' }, /target "nosuch"/],
      ['search', { query: 'x', since: 'soon' }, /since/],
      ['search', { query: 'x', limit: 0 }, /limit/],
      ['search', { query: 'x', scope: 'relative/dir' }, /absolute directory/],
      ['show', { ref: 'nosuch/abc/1' }, /unknown source "nosuch"/],
      ['show', { ref: 'terminal/a1b2c3d4/99' }, /has no record 99/],
      ['show', { ref: 'hello' }, /is not a ref/],
      ['show', {}, /ref/],
      ['show', { ref: 'terminal/a1b2c3d4', cursor: 'garbage' }, /cursor "garbage" is not one sivtr gave/],
      ['recent_commands', { n: -1 }, /n/],
      ['sessions', { provider: 'claud' }, /unknown source "claud".*claude/],
      ['diff', { left: 'terminal/a1b2c3d4/1' }, /right/],
      ['nosuchtool', {}, /nosuchtool/],
    ];
    for (const [name, args, message] of cases) {
      const r = await call(name, args).catch((error: Error) => ({ text: error.message, isError: true }));
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(r.text, `${name} ${JSON.stringify(args)}`).toMatch(message);
    }
    expect((await call('recent_commands', { n: 1 })).isError).toBe(false);
    expect(stderr).not.toMatch(/at .*\.(c?js|ts):\d+/);
  });

  it('a cursor from an answer that changed since is refused', async () => {
    const log = writeLog(join(tmp.path, 'data'), 'c9d8e7f6', [{ prompt: '$ ', command: 'yes | head', output: 'y\n'.repeat(200), exit_code: 0, ended_at: '2026-11-29T00:00:00Z' }]);
    const first = await call('show', { ref: 'terminal/c9d8e7f6', max_chars: 200 });
    const cursor = /cursor "([^"]+)"/.exec(first.text)?.[1];
    expect(cursor, first.text).toBeDefined();
    writeFileSync(log, readFileSync(log, 'utf8') + JSON.stringify({ prompt: '$ ', command: 'echo new', output: 'new', exit_code: 0, ended_at: '2026-11-29T00:01:00Z' }) + '\n');
    const next = await call('show', { ref: 'terminal/c9d8e7f6', max_chars: 200, cursor });
    expect(next).toMatchObject({ isError: true });
    expect(next.text).toMatch(/changed since that cursor/);
  });
});
