// Reading one part or a range of a genuine transcript: part ranges in refs (show, copy, diff),
// paged reads with a cursor that refuses a changed source, and --raw.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRef, partsSpec } from '../../src/memory/ref.js';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';

const SET = join(ROOT, 'fixtures', 'real', 'claude-2.1.332');
const MAIN = '3e5c5f9d-9680-4358-ab70-67ffa64d4abe';
const FILE = join('.claude', 'projects', '-tmp-sivtr-conformance-claude-proj', `${MAIN}.jsonl`);

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
const cli = (args: string[]) => runCli(args, { env });
type PartJ = { part: number; kind: string; text: string; label?: string };
/** A page on a terminal ends its line (JSON gives the exact text). */
const lineEnded = (t: string): string => (t.endsWith('\n') ? t : t + '\n');
type Paged = { ref: string; text: string; offset: number; total: number; totalChars: number; nextCursor?: string };

beforeAll(() => {
  tmp = tempDir('sivtr-parts-');
  cpSync(join(SET, 'home'), tmp.path, { recursive: true });
  env = cleanEnv(tmp.path);
});
afterAll(() => tmp.cleanup());

describe('part ranges in refs', () => {
  it('parse as ranges and lists, in the order written, each part once', () => {
    expect(parseRef('claude/abc/3/p2-4').parts).toEqual([2, 3, 4]);
    expect(parseRef('claude/abc/3/p5,7').parts).toEqual([5, 7]);
    expect(parseRef('claude/abc/3/p2-p4,p7').parts).toEqual([2, 3, 4, 7]);
    expect(parseRef('claude/abc/3/p2,2').parts).toEqual([2]);
    expect(parseRef('claude/abc/3/P2').parts).toEqual([2]);
    for (const bad of ['claude/abc/3/p', 'claude/abc/3/p0', 'claude/abc/3/p2-', 'claude/abc/3/px', 'claude/abc/3/2', 'claude/abc/3-4/p2']) {
      expect(() => parseRef(bad), bad).toThrow(/invalid ref/);
    }
    expect(partsSpec([2, 3, 4, 7, 9, 10])).toBe('p2-4,7,9-10');
  });

  it('refuse a range written backwards with one line naming the fix, exit 2 (p4-2 is not p2-4)', () => {
    expect(() => parseRef('claude/abc/3/p4-2')).toThrow(/p4-2 runs backwards — write it p2-4$/);
    expect(() => parseRef('claude/abc/5-3')).toThrow(/5-3 runs backwards — write it 3-5$/);
    for (const [ref, fix] of [[`claude/${MAIN}/1/p4-2`, 'p2-4'], [`claude/${MAIN}/1/p2,6-p5`, 'p5-6']] as const) {
      for (const command of ['show', 'copy']) {
        const r = cli([command, ref, ...(command === 'copy' ? ['--print'] : [])]);
        expect(r.code, `${command} ${ref}`).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(new RegExp(`^sivtr: invalid ref "[^"]+": .* runs backwards — write it ${fix}\\n$`));
      }
    }
  });

  it('show prints each part of a range under its heading; JSON lists the parts with a full-id ref', () => {
    const r = cli(['show', `claude/${MAIN.slice(0, 8)}/1/p2-4`]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      '── p2 assistant ──\nI will run the command with the shell tool.\n\n── p3 tool_call: Bash ──\n{\n  "command": "echo hello",\n  "description": "Print hello"\n}\n\n── p4 tool_output: Bash ──\nhello\n',
    );
    const j = JSON.parse(cli(['show', `claude/${MAIN.slice(0, 8)}/1/p5,3`, '--json']).stdout) as { ref: string; parts: PartJ[] };
    expect(j.ref).toBe(`claude/${MAIN}/1/p5,3`);
    expect(j.parts.map((p) => [p.part, p.kind])).toEqual([[5, 'assistant'], [3, 'tool_call']]);
    expect(j.parts[0]!.text).toBe('Now I will read notes.txt.');
  });

  it('copy takes the same ref and copies what show prints', () => {
    const shown = cli(['show', `claude/${MAIN}/1/p3-4`]);
    const copied = cli(['copy', `claude/${MAIN}/1/p3-4`, '--print']);
    expect(copied.code).toBe(0);
    expect(copied.stdout).toBe(shown.stdout);
    expect(cli(['copy', `claude/${MAIN}/1/p4`, '--print']).stdout).toBe('hello\n');
  });

  it('diff compares a part range with another', () => {
    const r = cli(['diff', `claude/${MAIN}/1/p3-4`, `claude/${MAIN}/3/p2-3`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`--- claude/${MAIN.slice(0, 8)}/1/p3-4`);
    expect(r.stdout).toContain(`+++ claude/${MAIN.slice(0, 8)}/3/p2-3`);
  });

  it('a part past the end names the parts there are', () => {
    const r = cli(['show', `claude/${MAIN}/1/p2-40`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^sivtr: claude\/3e5c5f9d\/1 has no part p\d+ \(it has p1–p\d+\) — use p1–p\d+\n$/);
  });
});

describe('paged reads', () => {
  const ref = `claude/${MAIN}/1`;

  it('pages add up to the whole text, each saying where it stopped; JSON gives offset, total and the cursor', () => {
    const whole = cli(['show', ref, '--max-chars', '0', '--json']);
    const all = (JSON.parse(whole.stdout) as Paged).text;
    expect(all.length).toBeGreaterThan(300);
    let text = '';
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = cli(['show', ref, '--max-chars', '250', '--json', ...(cursor ? ['--cursor', cursor] : [])]);
      expect(r.code).toBe(0);
      const page = JSON.parse(r.stdout) as Paged;
      expect(page.offset).toBe(text.length);
      expect(page.total).toBe(all.length);
      expect(page.totalChars).toBe(all.length);
      expect(page.text.length).toBeLessThanOrEqual(250);
      text += page.text;
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(text).toBe(all);
    expect(pages).toBe(Math.ceil(all.length / 250));
  });

  it('a long text is never cut silently: stderr gives the exact command that continues it', () => {
    const r = cli(['show', ref, '--max-chars', '100']);
    expect(r.code).toBe(0);
    const m = /^sivtr: printed characters 1–100 of (\d+); continue with: (sivtr show .*)\n$/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    const next = m![2]!.split(' ').slice(1);
    const r2 = cli(next);
    expect(r2.code).toBe(0);
    const full = cli(['show', ref]).stdout;
    expect(r.stdout.slice(0, -1) + r2.stdout.slice(0, 100)).toBe(full.slice(0, 200));
    // the cursor alone names what it continues
    const alone = cli(['show', '--cursor', next.at(-1)!, '--max-chars', '100']);
    expect(alone.stdout).toBe(r2.stdout);
  });

  it('the default page is 32,000 characters (a tool output of 70,000)', () => {
    const dir = tempDir('sivtr-parts-');
    try {
      cpSync(join(SET, 'home'), dir.path, { recursive: true });
      const file = join(dir.path, FILE);
      const long = Array.from({ length: 7000 }, (_, i) => `line ${String(i).padStart(4, '0')}`).join('\n'); // 69,999 characters
      const original = readFileSync(file, 'utf8');
      const changed = original.replace('"content":"hello","is_error":false', `"content":${JSON.stringify(long)},"is_error":false`);
      expect(changed).not.toBe(original);
      writeFileSync(file, changed);
      const e = cleanEnv(dir.path);
      const r = runCli(['show', `claude/${MAIN}/1/p4`], { env: e });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(lineEnded(long.slice(0, 32_000)));
      expect(r.stderr).toMatch(/^sivtr: printed characters 1–32000 of 69999; continue with: sivtr show claude\/3e5c5f9d-9680-4358-ab70-67ffa64d4abe\/1\/p4 --cursor \S+\n$/);
      const next = r.stderr.trimEnd().split(' ').slice(-1)[0]!;
      const r2 = runCli(['show', '--cursor', next], { env: e });
      expect(r2.stdout).toBe(lineEnded(long.slice(32_000, 64_000)));
      const last = runCli(['show', '--cursor', r2.stderr.trimEnd().split(' ').slice(-1)[0]!], { env: e });
      expect(last.stdout).toBe(lineEnded(long.slice(64_000)));
      expect(last.stderr).toBe('sivtr: printed characters 64001–69999 of 69999 (the end)\n');
    } finally {
      dir.cleanup();
    }
  });

  it('a secret across a page boundary is masked on both pages (the whole text is masked before paging)', () => {
    const dir = tempDir('sivtr-parts-');
    try {
      cpSync(join(SET, 'home'), dir.path, { recursive: true });
      const file = join(dir.path, FILE);
      const SECRET = 'ghp_sRkDcjJ2C9EnSeKN8dHIq7CH9aD99Y9SzGmI'; // a well-formed fake (fixtures/secrets)
      const text = `${'x'.repeat(90)} ${SECRET} end`;
      writeFileSync(file, readFileSync(file, 'utf8').replace('"content":"hello","is_error":false', `"content":${JSON.stringify(text)},"is_error":false`));
      const e = cleanEnv(dir.path);
      const first = JSON.parse(runCli(['show', `claude/${MAIN}/1/p4`, '--max-chars', '100', '--json'], { env: e }).stdout) as Paged;
      const second = JSON.parse(runCli(['show', '--cursor', first.nextCursor!, '--max-chars', '100', '--json'], { env: e }).stdout) as Paged;
      expect(first.text + second.text).not.toContain('ghp_');
      expect(first.text + second.text).toMatch(/^x{90} .+ end$/);
    } finally {
      dir.cleanup();
    }
  });

  it('a cursor refuses to continue when the transcript changed underneath it', () => {
    const dir = tempDir('sivtr-parts-');
    try {
      cpSync(join(SET, 'home'), dir.path, { recursive: true });
      const e = cleanEnv(dir.path);
      const first = JSON.parse(runCli(['show', ref, '--max-chars', '80', '--json'], { env: e }).stdout) as Paged;
      const file = join(dir.path, FILE);
      writeFileSync(file, readFileSync(file, 'utf8').replace('I will run the command with the shell tool.', 'I will run the command with the shell tool, twice.'));
      const r = runCli(['show', ref, '--max-chars', '80', '--cursor', first.nextCursor!], { env: e });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`sivtr: ${ref} changed since this cursor was made — start again without --cursor: \`sivtr show ${ref}\`\n`);
    } finally {
      dir.cleanup();
    }
  });

  it('a cursor for one ref is refused for another; a mangled cursor is a usage error', () => {
    const page = JSON.parse(cli(['show', ref, '--max-chars', '80', '--json']).stdout) as Paged;
    const other = cli(['show', `claude/${MAIN}/2`, '--cursor', page.nextCursor!]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^sivtr: this cursor continues claude\/3e5c5f9d-[0-9a-f-]+\/1, not claude\/3e5c5f9d-[0-9a-f-]+\/2 — /);
    const bad = cli(['show', ref, '--cursor', 'nonsense']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('sivtr: --cursor is not a cursor sivtr printed — copy the whole --cursor value from the "continue with" line\n');
  });
});

describe('show --raw', () => {
  const fileLines = (): string[] => readFileSync(join(tmp.path, FILE), 'utf8').split('\n');

  it('prints the record behind a part byte for byte as the agent wrote it', () => {
    const r = cli(['show', `claude/${MAIN}/1/p4`, '--raw']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const printed = r.stdout.trimEnd().split('\n');
    expect(printed).toHaveLength(1);
    expect(fileLines()).toContain(printed[0]);
    const rec = JSON.parse(printed[0]!) as { type: string; message: { content: { type: string; tool_use_id?: string; content?: string }[] } };
    expect(rec.type).toBe('user');
    expect(rec.message.content[0]).toMatchObject({ type: 'tool_result', content: 'hello' });
  });

  it('a part range gives each record once, in order; --json names where each came from', () => {
    const r = cli(['show', `claude/${MAIN}/1/p3-4`, '--raw', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { ref: string; locators: { file: string; lines: number[] }[]; records: string[] };
    expect(j.ref).toBe(`claude/${MAIN}/1/p3-4`);
    const lines = fileLines();
    expect(j.records.length).toBeGreaterThanOrEqual(2);
    for (const [i, rec] of j.records.entries()) expect(rec).toBe(lines[j.locators.flatMap((l) => l.lines)[i]! - 1]);
    expect(JSON.parse(j.records[0]!).message.content[0].type).toBe('tool_use');
  });

  it('a whole turn brings its end-of-turn record; paging works on raw text too', () => {
    const whole = cli(['show', `claude/${MAIN}/1`, '--raw', '--max-chars', '0']);
    expect(whole.code).toBe(0);
    const records = whole.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; message?: { stop_reason?: string } });
    expect(records.some((x) => x.type === 'assistant' && x.message?.stop_reason === 'end_turn')).toBe(true);
    const page = JSON.parse(cli(['show', `claude/${MAIN}/1`, '--raw', '--max-chars', '500', '--json']).stdout) as Paged;
    expect(page.total).toBe(whole.stdout.length);
    const plain = cli(['show', `claude/${MAIN}/1`, '--cursor', page.nextCursor!]);
    expect(plain.code).toBe(2); // a cursor of the raw form does not continue the text form
    expect(plain.stderr).toMatch(/^sivtr: this cursor pages the raw form of .*, not the text form — /);
  });

  it('a source that does not locate its records says so in one line (a terminal log)', () => {
    const dir = tempDir('sivtr-parts-');
    try {
      mkdirSync(join(dir.path, 'data', 'terminals'), { recursive: true });
      writeFileSync(join(dir.path, 'data', 'terminals', 'abc.jsonl'), JSON.stringify({ prompt: '$ ', command: 'make', output: 'ok', cwd: dir.path, ended_at: '2026-05-02T09:00:00Z', exit_code: 0 }) + '\n');
      const r = runCli(['show', 'terminal/abc/1/p3', '--raw'], { env: cleanEnv(dir.path, { SIVTR_DATA_DIR: join(dir.path, 'data') }), cwd: dir.path });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('sivtr: terminal does not record where this part came from, so there is no raw record to show — use `sivtr show` without --raw\n');
    } finally {
      dir.cleanup();
    }
  });

});
