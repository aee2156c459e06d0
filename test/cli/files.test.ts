// `sivtr files` as a user runs it: hand-made sessions whose writes are known, and the genuine
// transcripts of fixtures/real (which only run `echo hello` and read notes.txt: nothing written;
// the *-edits sets, where the CLI wrote greeting.txt and banner.txt, hold the agents' own records
// of those changes).
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { writeClaudeSession } from '../helpers/sessions.js';
import { writeLog } from '../helpers/terminal-log.js';

const SID = '5a1c0de0-1111-4222-8333-944445555666';
const CWD = '/srv/ledger-proj';

/** A Claude Code transcript: one record per line, each the child of the one before. */
function claudeSession(home: string, turns: { prompt: string; calls: { name: string; input: unknown; result: string; error?: boolean }[]; reply: string }[]): void {
  const dir = join(home, '.claude', 'projects', '-srv-ledger-proj');
  mkdirSync(dir, { recursive: true });
  const lines: unknown[] = [];
  let parent: string | null = null;
  let n = 0;
  const push = (rec: Record<string, unknown>): void => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    lines.push({ parentUuid: parent, isSidechain: false, uuid, sessionId: SID, cwd: CWD, timestamp: `2026-11-30T10:${String(n).padStart(2, '0')}:00.000Z`, version: '2.1.332', ...rec });
    parent = uuid;
  };
  turns.forEach((t, ti) => {
    push({ type: 'user', message: { role: 'user', content: t.prompt } });
    t.calls.forEach((c, ci) => {
      const id = `toolu_${ti}_${ci}`;
      push({ type: 'assistant', message: { id: `msg_${ti}_${ci}`, role: 'assistant', content: [{ type: 'tool_use', id, name: c.name, input: c.input }] } });
      push({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: c.result, is_error: c.error === true }] } });
    });
    push({ type: 'assistant', message: { id: `msg_${ti}_end`, role: 'assistant', content: [{ type: 'text', text: t.reply }] } });
  });
  writeFileSync(join(dir, `${SID}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

describe('sivtr files on a hand-made session', () => {
  let home: string;
  let cleanup: () => void;
  const cli = (args: string[]) => runCli(args, { env: cleanEnv(home) });
  beforeAll(() => {
    ({ path: home, cleanup } = tempDir());
    claudeSession(home, [
      {
        prompt: 'write the notes',
        calls: [
          { name: 'Write', input: { file_path: `${CWD}/notes.md`, content: 'a > b.txt' }, result: 'File created' },
          { name: 'Bash', input: { command: "cat <<'EOF' > plan.txt\nstep > skipped.txt\nEOF" }, result: '' },
          { name: 'Edit', input: { file_path: `${CWD}/missing.ts`, old_string: 'x', new_string: 'y' }, result: 'File does not exist.', error: true },
        ],
        reply: 'Wrote them.',
      },
      {
        prompt: 'deploy it',
        calls: [
          { name: 'Bash', input: { command: "ssh web1 'echo on > /etc/app.flag' && scp web1:/var/log/app.log . && echo done | tee -a notes.md" }, result: 'done' },
          { name: 'Bash', input: { command: "sed -i 's/a/b/' notes.md && cp notes.md backup" }, result: '' },
        ],
        reply: 'Deployed.',
      },
    ]);
  });
  afterAll(() => cleanup());

  it('lists each file once, with its write count, rules and evidence refs', () => {
    const r = cli(['files', `claude/${SID.slice(0, 8)}`]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('claude/5a1c0de0: 4 files, 6 writes');
    expect(lines[1]).toMatch(/^FILE\s+WRITES\s+RULES\s+EVIDENCE$/);
    const rows = lines.slice(2).map((l) => l.split(/\s{2,}/));
    expect(rows).toEqual([
      ['notes.md', '3', 'observed:Write,derived:tee -a,derived:sed -i', 'claude/5a1c0de0/1/p2 claude/5a1c0de0/2/p2 claude/5a1c0de0/2/p4'],
      ['plan.txt', '1', 'derived:>', 'claude/5a1c0de0/1/p4'],
      ['web1:/etc/app.flag', '1', 'derived:ssh >', 'claude/5a1c0de0/2/p2'],
      ['app.log', '1', 'derived:scp', 'claude/5a1c0de0/2/p2'],
    ]);
  });

  it('gives the same counts as JSON, with full-id refs that open the evidence', () => {
    const r = cli(['files', `claude/${SID.slice(0, 8)}`, '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as { files: number; writes: number; items: { path: string; host: string | null; writes: number; rules: string[]; refs: string[] }[] };
    expect([json.files, json.writes]).toEqual([4, 6]);
    expect(json.items.reduce((a, f) => a + f.writes, 0)).toBe(json.writes);
    expect(json.items.map((f) => [f.host, f.path])).toEqual([
      [null, `${CWD}/notes.md`],
      [null, `${CWD}/plan.txt`],
      ['web1', '/etc/app.flag'],
      [null, `${CWD}/app.log`],
    ]);
    expect(json.items[0]!.refs[0]).toBe(`claude/${SID}/1/p2`);
    const shown = cli(['show', json.items[2]!.refs[0]!]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("ssh web1 'echo on > /etc/app.flag'");
  });

  it('narrows to one turn, and refuses a part or a non-ref with one line and exit 2', () => {
    const one = JSON.parse(cli(['files', `claude/${SID.slice(0, 8)}/2`, '--json']).stdout) as { files: number; writes: number };
    expect([one.files, one.writes]).toEqual([3, 4]);
    const part = cli(['files', `claude/${SID.slice(0, 8)}/2/p2`]);
    expect(part.code).toBe(2);
    expect(part.stderr.trim().split('\n')).toHaveLength(1);
    const word = cli(['files', 'notes']);
    expect(word.code).toBe(2);
    expect(word.stderr).toMatch(/not a session ref/);
  });
});

describe('sivtr files on the genuine transcripts', () => {
  const REAL = join(ROOT, 'fixtures', 'real');
  const sets = readdirSync(REAL).filter((s) => existsSync(join(REAL, s, 'home')) && !s.endsWith('-edits'));
  it.each(sets)('%s: reads and `echo hello` prove no write', (set) => {
    const { path: home, cleanup } = tempDir();
    try {
      cpSync(join(REAL, set, 'home'), home, { recursive: true });
      const env = cleanEnv(home);
      const sessions = JSON.parse(runCli(['sessions', '--global', '--json'], { env }).stdout) as { ref: string }[];
      expect(sessions.length).toBeGreaterThan(0);
      for (const s of sessions) {
        const r = runCli(['files', s.ref, '--json'], { env });
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout)).toMatchObject({ files: 0, writes: 0, items: [] });
      }
    } finally {
      cleanup();
    }
  });
});

type LedgerJson = { files: number; writes: number; items: { path: string; writes: number; rules: string[]; refs: string[] }[] };

/**
 * A *-edits set of fixtures/real in a temp HOME, its recorded project directory kept; `edit`
 * may rewrite each JSON record of a JSONL file (return undefined to keep it as it is).
 */
function editsHome(set: string, edit?: (rec: Record<string, unknown>) => Record<string, unknown> | undefined): { env: NodeJS.ProcessEnv; cwd: string; id: string; cleanup: () => void } {
  const REAL = join(ROOT, 'fixtures', 'real', set);
  const run = JSON.parse(readFileSync(join(REAL, 'run.json'), 'utf8')) as { cwd: string; ids: { main: string } };
  const { path: home, cleanup } = tempDir();
  cpSync(join(REAL, 'home'), home, { recursive: true });
  if (edit) {
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.jsonl')) {
          const lines = readFileSync(p, 'utf8').split('\n').map((l) => (l.trim() === '' ? l : JSON.stringify(edit(JSON.parse(l) as Record<string, unknown>) ?? JSON.parse(l))));
          writeFileSync(p, lines.join('\n'));
        }
      }
    };
    walk(home);
  }
  return { env: cleanEnv(home), cwd: run.cwd, id: run.ids.main, cleanup };
}

const ledger = (env: NodeJS.ProcessEnv, ref: string): LedgerJson => {
  const r = runCli(['files', ref, '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as LedgerJson;
};
const rows = (l: LedgerJson): string[][] => l.items.map((f) => [f.path, String(f.writes), f.rules.join(), f.refs.join(' ')]);

describe('sivtr files: changes the agents recorded themselves (genuine *-edits sets)', () => {
  it('OpenCode: a patch part proves the file a shell script wrote; the write and edit tools are not counted twice', () => {
    const h = editsHome('opencode-1.18.33-edits');
    try {
      const ref = `opencode/${h.id}`;
      const l = ledger(h.env, ref);
      const short = `opencode/${h.id}`;
      expect(rows(l)).toEqual([
        [`${h.cwd}/greeting.txt`, '2', 'observed:write,observed:edit', `${short}/1/p3 ${short}/2/p3`],
        [`${h.cwd}/banner.txt`, '1', 'observed:patch', `${short}/3/p4`],
      ]);
      expect([l.files, l.writes]).toEqual([2, 3]);
      // overview and the text view count the same ledger
      const overview = JSON.parse(runCli(['overview', ref, '--json'], { env: h.env }).stdout) as { files: { files: number; writes: number }; turns: { files: { writes: number } }[] };
      expect(overview.files).toEqual({ files: 2, writes: 3 });
      expect(runCli(['files', ref], { env: h.env }).stdout.split('\n')[0]).toBe(`${ref}: 2 files, 3 writes`);
    } finally {
      h.cleanup();
    }
  });

  it('Copilot: create and edit count once each although fileEdits and session.shutdown record them again', () => {
    const h = editsHome('copilot-1.0.102-edits');
    try {
      const l = ledger(h.env, `copilot/${h.id}`);
      const short = `copilot/${h.id}`;
      expect(rows(l)).toEqual([[`${h.cwd}/greeting.txt`, '2', 'observed:create,observed:edit', `${short}/1/p3 ${short}/2/p3`]]);
    } finally {
      h.cleanup();
    }
  });

  it('Copilot: with the tool arguments blanked (edited copy), fileEdits is the proof; without it, the first shutdown that lists the file', () => {
    const blank = (data: Record<string, unknown>): void => {
      if (data.arguments) data.arguments = {};
      if (Array.isArray(data.toolRequests)) for (const t of data.toolRequests as Record<string, unknown>[]) t.arguments = {};
    };
    const noArgs = editsHome('copilot-1.0.102-edits', (rec) => {
      if (rec.data && typeof rec.data === 'object') blank(rec.data as Record<string, unknown>);
      return rec;
    });
    try {
      const short = `copilot/${noArgs.id}`;
      expect(rows(ledger(noArgs.env, `copilot/${noArgs.id}`))).toEqual([[`${noArgs.cwd}/greeting.txt`, '2', 'observed:fileEdits', `${short}/1/p4 ${short}/2/p4`]]);
    } finally {
      noArgs.cleanup();
    }
    const onlyShutdown = editsHome('copilot-1.0.102-edits', (rec) => {
      if (rec.data && typeof rec.data === 'object') {
        blank(rec.data as Record<string, unknown>);
        delete (rec.data as Record<string, unknown>).fileEdits;
      }
      return rec;
    });
    try {
      const short = `copilot/${onlyShutdown.id}`;
      // codeChanges is cumulative: the later shutdowns list the same file again and add nothing
      expect(rows(ledger(onlyShutdown.env, `copilot/${onlyShutdown.id}`))).toEqual([[`${onlyShutdown.cwd}/greeting.txt`, '1', 'observed:codeChanges.filesModified', `${short}/1/p5`]]);
    } finally {
      onlyShutdown.cleanup();
    }
  });

  it('Codex: the FileChange item of each apply_patch is the same write the command shows; with the command blanked (edited copy) it alone proves it', () => {
    const genuine = editsHome('codex-0.171.0-edits');
    const short = `codex/${genuine.id}`;
    try {
      expect(rows(ledger(genuine.env, `codex/${genuine.id}`))).toEqual([[`${genuine.cwd}/greeting.txt`, '2', 'derived:apply_patch', `${short}/1/p3 ${short}/2/p3`]]);
    } finally {
      genuine.cleanup();
    }
    const blanked = editsHome('codex-0.171.0-edits', (rec) => {
      const p = rec.payload as Record<string, unknown> | undefined;
      if (p?.type === 'function_call') p.arguments = JSON.stringify({ cmd: 'true' });
      return rec;
    });
    try {
      expect(rows(ledger(blanked.env, `codex/${blanked.id}`))).toEqual([[`${blanked.cwd}/greeting.txt`, '2', 'observed:FileChange', `${short}/1/p4 ${short}/2/p4`]]);
    } finally {
      blanked.cleanup();
    }
  });
});

/** `sivtr files --json` of one hand-made Codex rollout: a session_meta, then these records. */
function filesOfCodexRollout(id: string, cliVersion: string, records: [type: string, payload: unknown][]): LedgerJson {
  const { path: home, cleanup } = tempDir();
  try {
    const dir = join(home, '.codex', 'sessions', '2026', '11', '30');
    mkdirSync(dir, { recursive: true });
    const at = '2026-11-30T10:00:00.000Z';
    const meta: [string, unknown] = ['session_meta', { id, timestamp: at, cwd: '/srv/api', originator: 'codex_cli_rs', cli_version: cliVersion, source: 'cli' }];
    const lines = [meta, ...records].map(([type, payload]) => JSON.stringify({ timestamp: at, type, payload }));
    writeFileSync(join(dir, `rollout-2026-11-30T10-00-00-${id}.jsonl`), lines.join('\n') + '\n');
    const r = runCli(['files', `codex/${id}`, '--json'], { env: cleanEnv(home) });
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as LedgerJson;
  } finally {
    cleanup();
  }
}

describe('sivtr files on a Codex rollout', () => {
  it('reads apply_patch file headers and exec_command writes as Codex records them', () => {
    const id = '0199b0d4-5555-7c3d-9f00-aabbccddeeff';
    const json = filesOfCodexRollout(id, '0.171.0', [
      ['response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'add a /health route' }] }],
      ['response_item', { type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch', status: 'completed', input: '*** Begin Patch\n*** Add File: src/health.ts\n+export const ok = 1;\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** End Patch' }],
      ['response_item', { type: 'custom_tool_call_output', call_id: 'c1', output: 'Success. Updated: A src/health.ts M src/app.ts' }],
      ['response_item', { type: 'function_call', call_id: 'c2', name: 'exec_command', arguments: JSON.stringify({ cmd: "cat > notes.md <<'EOF'\nx > not-a-file.txt\nEOF", workdir: '/srv/api/docs' }) }],
      ['response_item', { type: 'function_call_output', call_id: 'c2', output: 'Process exited with code 0' }],
      ['response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Added it.' }], phase: 'final_answer' }],
      ['event_msg', { type: 'task_complete', turn_id: 't1' }],
    ]);
    expect(json.items.map((f) => [f.path, f.rules.join(), f.refs.join()])).toEqual([
      ['/srv/api/src/health.ts', 'observed:apply_patch', `codex/${id}/1/p2`],
      ['/srv/api/src/app.ts', 'observed:apply_patch', `codex/${id}/1/p2`],
      ['/srv/api/docs/notes.md', 'derived:>', `codex/${id}/1/p4`],
    ]);
  });
});

describe('sivtr files: Codex patch_apply_end (hand-made, the event as the format documents it; 0.171 writes FileChange items instead)', () => {
  it('counts the changes of a patch that applied, with a move writing both paths, and nothing of one that failed', () => {
    const id = '0199b0d4-6666-7c3d-9f00-aabbccddeeff';
    // the calls run a program whose writes no command line shows; only Codex's records name them
    const json = filesOfCodexRollout(id, '0.120.0', [
      ['response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'rename the module' }] }],
      ['response_item', { type: 'function_call', call_id: 'c1', name: 'shell', arguments: JSON.stringify({ command: ['codegen'] }) }],
      ['event_msg', { type: 'patch_apply_end', call_id: 'c1', stdout: 'Success.', stderr: '', success: true, changes: { '/srv/api/old.ts': { type: 'update', unified_diff: '', move_path: '/srv/api/new.ts' }, '/srv/api/index.ts': { type: 'add', content: 'x' } } }],
      ['response_item', { type: 'function_call_output', call_id: 'c1', output: 'done' }],
      ['response_item', { type: 'function_call', call_id: 'c2', name: 'shell', arguments: JSON.stringify({ command: ['codegen', '--again'] }) }],
      ['event_msg', { type: 'patch_apply_end', call_id: 'c2', stdout: '', stderr: 'context mismatch', success: false, changes: { '/srv/api/broken.ts': { type: 'update', unified_diff: '' } } }],
      ['response_item', { type: 'function_call_output', call_id: 'c2', output: 'failed' }],
      ['response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Renamed.' }], phase: 'final_answer' }],
      ['event_msg', { type: 'task_complete', turn_id: 't1' }],
    ]);
    expect(rows(json)).toEqual([
      ['/srv/api/old.ts', '1', 'observed:patch_apply_end', `codex/${id}/1/p3`],
      ['/srv/api/new.ts', '1', 'observed:patch_apply_end', `codex/${id}/1/p3`],
      ['/srv/api/index.ts', '1', 'observed:patch_apply_end', `codex/${id}/1/p3`],
    ]);
  });
});

describe('sivtr files --workspace', () => {
  it('includes `sivtr run` captures that ran in the workspace, with refs that open their command', () => {
    const { path: home, cleanup } = tempDir();
    try {
      const proj = join(home, 'proj');
      const elsewhere = join(home, 'elsewhere');
      mkdirSync(proj);
      mkdirSync(elsewhere);
      const env = cleanEnv(home, { SIVTR_DATA_DIR: join(home, 'data') });
      expect(runCli(['run', '--', 'sh', '-c', 'echo built > build.log'], { env, cwd: proj }).code).toBe(0);
      expect(runCli(['run', '--', 'sh', '-c', 'echo far > far.log'], { env, cwd: elsewhere }).code).toBe(0);
      // a piped capture ran no command of its own: nothing to derive from
      expect(runCli(['pipe'], { env, cwd: proj, input: 'echo x > not-written.txt\n' }).code).toBe(0);
      expect(existsSync(join(proj, 'build.log'))).toBe(true);
      const here = JSON.parse(runCli(['files', '--workspace', '--json'], { env, cwd: proj }).stdout) as { files: number; writes: number; items: { path: string; rules: string[]; refs: string[] }[] };
      expect(here.items).toEqual([expect.objectContaining({ path: join(proj, 'build.log'), rules: ['derived:>'], refs: ['history/1/1/p2'] })]);
      expect(runCli(['show', 'history/1/1/p2'], { env, cwd: proj }).stdout.trim()).toBe("sh -c 'echo built > build.log'");
      expect(runCli(['files'], { env, cwd: proj }).stdout.split('\n')[0]).toBe(`${proj.replace(home, '~')}: 1 file, 1 write`);
      const all = JSON.parse(runCli(['files', '--global', '--json'], { env, cwd: proj }).stdout) as { items: { path: string }[] };
      expect(all.items.map((f) => f.path).sort()).toEqual([join(elsewhere, 'far.log'), join(proj, 'build.log')]);
    } finally {
      cleanup();
    }
  });

  it('gathers agent sessions and terminal records that ran in the workspace, and nothing from elsewhere', () => {
    const { path: home, cleanup } = tempDir();
    try {
      const proj = join(home, 'proj');
      const elsewhere = join(home, 'elsewhere');
      mkdirSync(proj);
      mkdirSync(elsewhere);
      writeClaudeSession(home, { id: '00000000-0000-4000-8000-0000000000c1', cwd: proj, turns: [{ prompt: 'go', calls: [{ name: 'Write', input: { file_path: join(proj, 'a.ts') }, result: 'ok' }], reply: 'done' }] });
      writeClaudeSession(home, { id: '00000000-0000-4000-8000-0000000000c2', cwd: elsewhere, turns: [{ prompt: 'go', calls: [{ name: 'Write', input: { file_path: join(elsewhere, 'b.ts') }, result: 'ok' }], reply: 'done' }] });
      writeLog(join(home, 'data'), 'term1', [
        { prompt: '$ ', command: 'npm test > test.log', output: '', cwd: proj, ended_at: '2026-11-30T12:00:00Z', exit_code: 1 },
        { prompt: '$ ', command: 'echo x > far.txt', output: '', cwd: elsewhere, ended_at: '2026-11-30T12:01:00Z', exit_code: 0 },
      ]);
      const env = cleanEnv(home, { SIVTR_DATA_DIR: join(home, 'data') });
      const here = runCli(['files', '--json'], { env, cwd: proj });
      expect(here.code, here.stderr).toBe(0);
      const json = JSON.parse(here.stdout) as { files: number; writes: number; items: { path: string; refs: string[] }[] };
      expect(json.items.map((f) => f.path).sort()).toEqual([join(proj, 'a.ts'), join(proj, 'test.log')]);
      expect(json.items.find((f) => f.path.endsWith('test.log'))!.refs[0]).toMatch(/^terminal\/term1\/1\/p2$/);
      const text = runCli(['files', '--workspace'], { env, cwd: proj });
      expect(text.stdout.split('\n')[0]).toBe(`${proj.replace(home, '~')}: 2 files, 2 writes`);
      const all = JSON.parse(runCli(['files', '--global', '--json'], { env, cwd: proj }).stdout) as { files: number };
      expect(all.files).toBe(4);
    } finally {
      cleanup();
    }
  });
});
