// overview → turns → export on every genuine transcript in fixtures/real, checked against what
// `show --json` prints of the same session; hand-made cases for the status rules and for HTML
// escaping; a terminal session, where the facts apply.
import { existsSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { SAMPLE, writeLog } from '../helpers/terminal-log.js';

const REAL = join(ROOT, 'fixtures', 'real');
type Run = { agent: string; ids: Record<string, string> };
type Block = { part: number; kind: string; text: string; label?: string; timestamp?: string };
type Turn = { turn: number; blocks: Block[]; ended?: { at?: string } };
type Overview = { ref: string; units: number; unitKind: string; parts: Record<string, number>; commands: number; failures: number; statuses: Record<string, number>; firstActivity?: string; lastActivity?: string };
type TurnLine = { index: number; ref: string; status: { status: string; evidence: string }; parts: string; partCount: number; user: string; reply: string; commands: number; failures: number };

const STATUS = /^T\d+ +(finished|running|aborted|unfinished|unknown) /;
const readable = ['claude', 'codex', 'pi', 'gemini', 'opencode', 'qwen', 'droid', 'continue', 'copilot', 'kilo', 'auggie'];
const sets = existsSync(REAL) ? readdirSync(REAL).filter((d) => existsSync(join(REAL, d, 'run.json'))) : [];

for (const set of sets) {
  const run = JSON.parse(readFileSync(join(REAL, set, 'run.json'), 'utf8')) as Run;
  if (!readable.includes(run.agent)) continue;
  describe(`drill-down on real ${set}`, () => {
    let tmp: ReturnType<typeof tempDir>;
    let env: NodeJS.ProcessEnv;
    const ref = `${run.agent}/${run.ids.main}`;
    const cli = (args: string[]) => runCli(args, { env });
    let shown: Turn[];
    beforeAll(() => {
      tmp = tempDir('sivtr-drill-');
      cpSync(join(REAL, set, 'home'), tmp.path, { recursive: true });
      env = cleanEnv(tmp.path);
      shown = JSON.parse(cli(['show', ref, '--json']).stdout) as Turn[];
    });
    afterAll(() => tmp.cleanup());

    it('overview counts what show prints: turns, parts by kind, first and last activity', () => {
      const r = cli(['overview', ref, '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const o = JSON.parse(r.stdout) as Overview;
      expect(o.ref).toBe(ref);
      expect(o.units).toBe(shown.length);
      const kinds: Record<string, number> = {};
      for (const b of shown.flatMap((t) => t.blocks)) kinds[b.kind] = (kinds[b.kind] ?? 0) + 1;
      expect(o.parts).toEqual(kinds);
      expect(Object.values(o.statuses).reduce((a, b) => a + b, 0)).toBe(shown.length);
      const stamps = shown.flatMap((t) => [...t.blocks.map((b) => b.timestamp), t.ended?.at]).filter((s): s is string => s !== undefined).sort((a, b) => Date.parse(a) - Date.parse(b));
      expect(o.firstActivity).toBe(stamps[0]);
      expect(o.lastActivity).toBe(stamps.at(-1));
      // the conformance drivers run `echo hello` in every session's first turn
      expect(o.commands).toBeGreaterThanOrEqual(1);
      const md = cli(['overview', ref]);
      expect(md.stdout).toContain(`- **turns**: ${shown.length}`);
      expect(md.stdout).toContain(`- **commands run**: ${o.commands}`);
    });

    it('turns: one line per turn, starting T<n> and its status word, with part range, prompt and reply', () => {
      const j = JSON.parse(cli(['turns', ref, '--json']).stdout) as TurnLine[];
      expect(j.map((t) => t.index)).toEqual(shown.map((t) => t.turn));
      j.forEach((t, i) => {
        const blocks = shown[i]!.blocks;
        expect(t.partCount).toBe(blocks.length);
        expect(t.parts).toBe(`p1-${blocks.length}`);
        expect(t.user).toBe(blocks.find((b) => b.kind === 'user')!.text.split('\n').find((l) => l.trim())!.trim());
        expect(t.status.evidence.length).toBeGreaterThan(0);
      });
      const lines = cli(['turns', ref]).stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(shown.length);
      lines.forEach((line, i) => {
        expect(line).toMatch(STATUS);
        expect(line.startsWith(`T${i + 1} `)).toBe(true);
        expect(line).toContain(` p1-${shown[i]!.blocks.length} `);
        expect(line).toContain('▸ ');
        expect(line).toContain('◂ ');
      });
    });

    it('export: Markdown and HTML hold every prompt and every tool output', () => {
      const md = cli(['export', ref]).stdout;
      const html = cli(['export', ref, '--format', 'html']).stdout;
      for (const t of shown) {
        for (const b of t.blocks.filter((x) => x.kind === 'user' || x.kind === 'tool_output')) {
          expect(md).toContain(b.text);
          expect(html).toContain(b.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;'));
        }
      }
      const folded = shown.flatMap((t) => t.blocks).filter((b) => ['tool_call', 'tool_output', 'thinking', 'compaction'].includes(b.kind)).length;
      expect(html.match(/<details/g)?.length ?? 0).toBe(folded);
    });
  });
}

/** A Claude Code transcript written by hand, one record per line. */
function claudeSession(home: string, id: string, records: Record<string, unknown>[]): void {
  const dir = join(home, '.claude', 'projects', '-work');
  mkdirSync(dir, { recursive: true });
  let parent: string | null = null;
  const lines = records.map((r, i) => {
    const uuid = `u${i + 1}`;
    const line = { parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/work', sessionId: id, version: '2.1.40', uuid, timestamp: `2026-05-02T09:00:${String(i * 2).padStart(2, '0')}.000Z`, ...r };
    parent = uuid;
    return JSON.stringify(line);
  });
  writeFileSync(join(dir, `${id}.jsonl`), lines.join('\n') + '\n');
}

const user = (content: unknown) => ({ type: 'user', message: { role: 'user', content } });
const assistant = (content: unknown[], stop: string | null, id: string) => ({ type: 'assistant', message: { id, type: 'message', role: 'assistant', model: 'm', content, stop_reason: stop } });

describe('turn status from what followed', () => {
  let tmp: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  const ID = '11111111-2222-4333-8444-555555555555';
  beforeAll(() => {
    tmp = tempDir('sivtr-drill-');
    env = cleanEnv(tmp.path);
    claudeSession(tmp.path, ID, [
      user('Fix the build'),
      assistant([{ type: 'text', text: 'Looking at the build.' }], null, 'm1'),
      assistant([{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'make' } }], 'tool_use', 'm1'),
      user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'make: *** [all] Error 2', is_error: true }]),
      user([{ type: 'text', text: '[Request interrupted by user for tool use]' }]),
      user('continue'),
      assistant([{ type: 'text', text: 'The build is fixed.' }], 'end_turn', 'm2'),
    ]);
  });
  afterAll(() => tmp.cleanup());

  it('a turn the user interrupted is aborted, with the provider\'s record and the "continue" that followed', () => {
    const turns = JSON.parse(runCli(['turns', `claude/${ID}`, '--json'], { env }).stdout) as TurnLine[];
    expect(turns).toHaveLength(2);
    expect(turns[0]!.status).toEqual({ status: 'aborted', evidence: '[Request interrupted by user for tool use]; T2 is a bare "continue"' });
    expect(turns[1]!.status).toEqual({ status: 'finished', evidence: 'stop_reason: end_turn' });
    expect(turns[0]!.failures).toBe(1);
    expect(turns[0]!.commands).toBe(1);
    expect(turns[1]!.user).toBe('continue');
    expect(turns[1]!.reply).toBe('The build is fixed.');
    const o = JSON.parse(runCli(['overview', `claude/${ID}`, '--json'], { env }).stdout) as Overview;
    expect(o.failures).toBe(1);
    expect(o.commands).toBe(1);
    expect(o.statuses).toEqual({ aborted: 1, finished: 1 });
    const lines = runCli(['turns', `claude/${ID}`], { env }).stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^T1 +aborted .*\[\[Request interrupted by user for tool use\]; T2 is a bare "continue"\]$/);
  });

  it('without any end record, a bare "continue" next is the only evidence: unfinished; the rest is unknown', () => {
    const dir = tempDir('sivtr-drill-');
    try {
      const OLD = '33333333-2222-4333-8444-555555555555';
      // older Claude Code versions persisted stop_reason null and no turn_duration
      claudeSession(dir.path, OLD, [
        user('Refactor the parser'),
        assistant([{ type: 'text', text: 'Starting on the parser.' }], null, 'm1'),
        user('go on'),
        assistant([{ type: 'text', text: 'The parser is refactored.' }], null, 'm2'),
      ]);
      const turns = JSON.parse(runCli(['turns', `claude/${OLD}`, '--json'], { env: cleanEnv(dir.path) }).stdout) as TurnLine[];
      expect(turns.map((t) => t.status)).toEqual([
        { status: 'unfinished', evidence: 'T2 is a bare "go on"' },
        { status: 'unknown', evidence: 'the provider recorded no end for this turn' },
      ]);
    } finally {
      dir.cleanup();
    }
  });

  it('files changed: overview and turns count what `sivtr files` proves', () => {
    const dir = tempDir('sivtr-drill-');
    try {
      const W = '44444444-2222-4333-8444-555555555555';
      claudeSession(dir.path, W, [
        user('Write the notes'),
        assistant([{ type: 'tool_use', id: 'toolu_w', name: 'Write', input: { file_path: '/work/notes.md', content: 'a' } }], 'tool_use', 'm1'),
        user([{ type: 'tool_result', tool_use_id: 'toolu_w', content: 'File created successfully at: /work/notes.md' }]),
        assistant([{ type: 'tool_use', id: 'toolu_b', name: 'Bash', input: { command: 'echo b >> /work/notes.md && cp /work/notes.md /work/copy.md' } }], 'tool_use', 'm1'),
        user([{ type: 'tool_result', tool_use_id: 'toolu_b', content: '' }]),
        assistant([{ type: 'text', text: 'Written.' }], 'end_turn', 'm1'),
      ]);
      const e = cleanEnv(dir.path);
      const files = JSON.parse(runCli(['files', `claude/${W}`, '--json'], { env: e }).stdout) as { files: number; writes: number };
      expect(files.files).toBe(2);
      const o = JSON.parse(runCli(['overview', `claude/${W}`, '--json'], { env: e }).stdout) as Overview & { files: { files: number; writes: number } };
      expect(o.files).toEqual({ files: files.files, writes: files.writes });
      const t = JSON.parse(runCli(['turns', `claude/${W}`, '--json'], { env: e }).stdout) as (TurnLine & { files: { files: number } })[];
      expect(t[0]!.files).toEqual({ files: files.files, writes: files.writes });
      expect(runCli(['overview', `claude/${W}`], { env: e }).stdout).toContain(`- **files changed**: 2 files (${files.writes} writes)`);
    } finally {
      dir.cleanup();
    }
  });
});

/** A Codex rollout written by hand: turns of a prompt and a reply, each ended by task_complete unless `open`. */
function codexSession(home: string, id: string, turns: { prompt: string; reply: string; complete: boolean }[]): void {
  const dir = join(home, '.codex', 'sessions', '2026', '05', '02');
  mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  const at = (s: number): string => new Date(Date.parse('2026-05-02T09:00:00Z') + s * 1000).toISOString();
  const rec = (s: number, type: string, payload: unknown) => lines.push(JSON.stringify({ timestamp: at(s), type, payload }));
  rec(0, 'session_meta', { id, timestamp: at(0), cwd: '/work', originator: 'codex_cli_rs', cli_version: '0.118.0', source: 'cli' });
  turns.forEach((t, i) => {
    const s = 10 * (i + 1);
    rec(s, 'event_msg', { type: 'task_started', turn_id: `t${i}` });
    rec(s, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: t.prompt }] });
    rec(s, 'event_msg', { type: 'user_message', message: t.prompt, images: [] });
    rec(s + 2, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: t.reply }] });
    rec(s + 2, 'event_msg', { type: 'agent_message', message: t.reply });
    if (t.complete) rec(s + 3, 'event_msg', { type: 'task_complete', turn_id: `t${i}`, last_agent_message: t.reply });
  });
  writeFileSync(join(dir, `rollout-2026-05-02T09-00-00-${id}.jsonl`), lines.join('\n') + '\n');
}

describe('Codex turns without task_complete', () => {
  it('an earlier turn without one did not finish; the newest without one is still running', () => {
    const dir = tempDir('sivtr-drill-');
    try {
      const ID = '0196a000-1111-7c3d-9f00-aabbccddeeff';
      codexSession(dir.path, ID, [
        { prompt: 'First task', reply: 'Working on the first task.', complete: false },
        { prompt: 'Second task', reply: 'Second task done.', complete: true },
        { prompt: 'Third task', reply: 'Looking at the third task.', complete: false },
      ]);
      const turns = JSON.parse(runCli(['turns', `codex/${ID}`, '--json'], { env: cleanEnv(dir.path) }).stdout) as TurnLine[];
      expect(turns.map((t) => t.status)).toEqual([
        { status: 'unfinished', evidence: 'no end record before T2 began (other turns have one)' },
        { status: 'finished', evidence: 'task_complete' },
        { status: 'running', evidence: 'no end record yet (earlier turns have one)' },
      ]);
    } finally {
      dir.cleanup();
    }
  });
});

describe('export escapes hostile text', () => {
  let tmp: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  const ID = '22222222-2222-4333-8444-555555555555';
  const HOSTILE = `<script>alert("x")</script> & 'quoted' "double"`;
  const BREAKOUT = '</pre></details><img src=x onerror=alert(1)>\n```\nnot code\n````';
  beforeAll(() => {
    tmp = tempDir('sivtr-drill-');
    env = cleanEnv(tmp.path);
    claudeSession(tmp.path, ID, [
      user(HOSTILE),
      assistant([{ type: 'thinking', thinking: 'Think <b>bold</b>', signature: 'x' }], null, 'm1'),
      assistant([{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'cat "<x>"' } }], 'tool_use', 'm1'),
      user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: BREAKOUT }]),
      assistant([{ type: 'text', text: 'Reply with <iframe src="http://example.com"></iframe> & more' }], 'end_turn', 'm2'),
    ]);
  });
  afterAll(() => tmp.cleanup());

  it('HTML: every text escaped, nothing loaded from elsewhere, tool calls and thinking folded, a phone viewport', () => {
    const out = join(tmp.path, 'session.html');
    const r = runCli(['export', `claude/${ID}`, '--format', 'html', '-o', out], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`exported claude/22222222 (1 turn) to ${out}\n`);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39; &quot;double&quot;');
    expect(html).toContain('&lt;/pre&gt;&lt;/details&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('Think &lt;b&gt;bold&lt;/b&gt;');
    expect(html).toContain('Reply with &lt;iframe src=&quot;http://example.com&quot;&gt;&lt;/iframe&gt; &amp; more');
    for (const tag of ['<script', '<img', '<iframe', '<b>', '<link', '@import', 'url(']) expect(html, tag).not.toContain(tag);
    expect(html).not.toMatch(/<[^>]*\s(?:src|href)=/); // no tag loads anything (escaped text may say src=)
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html.match(/<details/g)).toHaveLength(3); // thinking, tool call, tool output
    expect(html.match(/<\/details>/g)).toHaveLength(3);
  });

  it('Markdown: a code fence longer than any backtick run inside, so tool output cannot close it', () => {
    const md = runCli(['export', `claude/${ID}`], { env }).stdout;
    expect(md).toContain(`\`\`\`\`\`\n${BREAKOUT}\n\`\`\`\`\`\n`);
    expect(md).toContain(`**▸ User**\n\n${HOSTILE}\n`);
  });

  it('a secret in the session leaves masked, in a file as on stdout, unless --reveal', () => {
    const dir = tempDir('sivtr-drill-');
    try {
      const SECRET = 'ghp_sRkDcjJ2C9EnSeKN8dHIq7CH9aD99Y9SzGmI'; // a well-formed fake (fixtures/secrets)
      claudeSession(dir.path, ID, [user('push it'), assistant([{ type: 'text', text: `remote: token ${SECRET} accepted` }], 'end_turn', 'm1')]);
      const e = cleanEnv(dir.path);
      const file = join(dir.path, 'out.html');
      const r = runCli(['export', `claude/${ID}`, '--format', 'html', '-o', file], { env: e });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/masked 1 secret \(github-token\)/);
      const html = readFileSync(file, 'utf8');
      expect(html).toContain('remote: token ');
      expect(html).not.toContain(SECRET);
      expect(runCli(['export', `claude/${ID}`, '--reveal'], { env: e }).stdout).toContain(SECRET);
    } finally {
      dir.cleanup();
    }
  });

  it('a file that cannot be written is one line naming it, not a stack trace', () => {
    const r = runCli(['export', `claude/${ID}`, '-o', join(tmp.path, 'missing', 'x.md')], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`sivtr: cannot write ${join(tmp.path, 'missing', 'x.md')}: ENOENT — pick a path in a directory you can write to\n`);
  });
});

describe('terminal sessions', () => {
  let tmp: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    tmp = tempDir('sivtr-drill-');
    const data = join(tmp.path, 'data');
    const log = writeLog(data, 'term-1', SAMPLE);
    env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: data, SIVTR_SESSION_LOG: log });
  });
  afterAll(() => tmp.cleanup());

  it('overview counts records, commands and failures by exit code', () => {
    const o = JSON.parse(runCli(['overview', 'terminal/current', '--json'], { env }).stdout) as Overview;
    expect(o).toMatchObject({ unitKind: 'record', units: 4, commands: 4, failures: 1, parts: { prompt: 4, command: 4, output: 4 } });
    expect(runCli(['overview', 'terminal/current'], { env }).stdout).toContain('- **records**: 4 (4 finished)');
  });

  it('export shows each record as its command and output', () => {
    const md = runCli(['export', 'terminal/current'], { env }).stdout;
    expect(md).toContain('## #2 · finished');
    expect(md).toContain('make');
    expect(md).toContain('error: missing target');
    expect(md).not.toContain('me@box'); // the prompt says nothing a reader needs
  });

  it('turns gives each record a line; its status is its exit code', () => {
    const lines = runCli(['turns', 'terminal/current'], { env }).stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^T2 +finished .*▸ make .*\[exit code 2\]$/);
  });
});

describe('usage', () => {
  it('a ref without a session, or with a part, is a usage error that shows the fix', () => {
    const tmp = tempDir('sivtr-drill-');
    try {
      const env = cleanEnv(tmp.path);
      expect(runCli(['overview'], { env })).toMatchObject({ code: 2, stdout: '' });
      const r = runCli(['turns', 'claude'], { env });
      expect(r).toMatchObject({ code: 2, stderr: 'sivtr: "claude" is not a session ref — name one as source/session, e.g. `sivtr turns claude/current`\n' });
      const p = runCli(['overview', 'claude/abc/2/p3'], { env });
      expect(p.code).toBe(1); // no claude sessions here: the session is looked up first
    } finally {
      tmp.cleanup();
    }
  });
});
