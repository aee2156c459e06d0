// Every fixtures/real/<agent>-<version> set, written by the real agent CLI (npm run conformance),
// read through the sivtr CLI. What is expected comes from what the driver sent and from the
// mock model's fixed script (scripts/conformance/run-*.sh, mock-llm.cjs), never from sivtr.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';

const REAL = join(ROOT, 'fixtures', 'real');

// The prompts of scripts/conformance/lib.sh and the drivers.
const P1 = 'Please run `echo hello` in the shell and then read notes.txt, and tell me what you found.';
const P2 = 'Thanks. Now answer in plain text only: what is the capital of France?';
const FORK = 'Fork: please run `echo hello` once more.';
const BRANCH = 'Branch: tell me a plain fact instead.';
const NEXT = 'Next: run `echo hello` again.';
const THIRD = 'Third question, plain text please: what is 6 times 7?';
const SUBAGENT = 'Subagent: ask a subagent to say hello.';
const SUBAGENT_TASK = 'Please run `echo hello` in the shell and report what it printed.';
// the *-edits sets (run-<agent>-edits.sh): the mock writes greeting.txt, then runs a script
const P_CREATE = 'Please create greeting.txt with a short greeting.';
const P_CHANGE = 'Now change the greeting in greeting.txt.';
const P_SCRIPT = 'Last: run `sh make-banner.sh` in the shell.';

// The mock's answers: a plain answer echoes the prompt; after tools it quotes their results and
// adds a second message (one text with a blank line where the API has a single content string).
const plain = (prompt: string): string => `Plain text answer from the mock model. You said: "${prompt.trim().slice(0, 80)}".`;
const afterTools = (reads: boolean): RegExp =>
  new RegExp(`^Done\\. The tool results were: ".*hello.*"${reads ? ' and ".*banana.*"' : ''}\\. Final answer: the command printed hello\\.\\n\\nThat is everything the tools showed\\.$`, 's');
const COMMENTARY = ['I will run the command with the shell tool.', 'Now I will read notes.txt.', 'I will write greeting.txt.', 'I will run the banner script.'];
/** The reply after a tool that printed no `hello`: the mock quotes whatever it printed. */
const afterAnyTool = /^Done\. The tool results were: ".*"\. Final answer: the command printed hello\.\n\nThat is everything the tools showed\.$/s;

type Tool = { name: string; input: RegExp; output: RegExp };
type TurnX = { user: string; reply: string | RegExp; tools?: Tool[]; compaction?: boolean };
/** `id` '' = the one other session (a fork whose id the driver did not print); `agent-` = a subagent. */
type SessionX = { id: string; title: string; turns: TurnX[]; parent?: string };
type Run = { set: string; agent: string; version: string; ids: Record<string, string>; cwd: string };

const title = (prompt: string): string => (prompt.length > 80 ? prompt.slice(0, 79) + '…' : prompt);
const SHELL_OUT = /^hello$/;
const NOTES_OUT = /^These are my notes\. The secret word is banana\.$/;

/** The sessions each driver made, per provider (ids from run.json). */
function expected(run: Run): SessionX[] {
  const { main, fork } = run.ids;
  if (run.set.endsWith('-edits')) return expectedEdits(run);
  switch (run.agent) {
    case 'claude': {
      const bash: Tool = { name: 'Bash', input: /echo hello/, output: SHELL_OUT };
      const toolTurn: TurnX = { user: P1, reply: afterTools(true), tools: [bash, { name: 'Read', input: /notes\.txt/, output: /^1\tThese are my notes\. The secret word is banana\.\n2$/ }] };
      return [
        // --resume-session-at branched off after turn 1: turn 2 (P2) is no longer on the live chain;
        // /compact then compacted the branch.
        {
          id: main!,
          title: title(P1),
          turns: [
            toolTurn,
            { user: BRANCH, reply: plain(BRANCH), compaction: true },
            { user: NEXT, reply: afterTools(false), tools: [bash] },
            // 2.1.197 waits for the subagent; 2.1.33x runs it in the background and delivers its
            // result later as a <task-notification>, which the model answers: that is the reply
            { user: SUBAGENT, reply: /^Done\. The tool results were: ".*"\. Final answer: the command printed hello\.\n\nThat is everything the tools showed\.$/s, tools: [{ name: 'Agent', input: /echo hello/, output: /./ }] },
          ],
        },
        { id: fork!, title: title(P1), turns: [toolTurn, { user: P2, reply: plain(P2) }, { user: FORK, reply: afterTools(false), tools: [bash] }] },
        // the subagent's own transcript (<session>/subagents/agent-<id>.jsonl), titled by its task
        { id: 'agent-', title: 'Say hello', parent: main!, turns: [{ user: SUBAGENT_TASK, reply: afterTools(false), tools: [bash] }] },
      ];
    }
    case 'codex': {
      const shell: Tool = { name: 'exec_command', input: /echo hello/, output: SHELL_OUT };
      const toolTurn: TurnX = { user: P1, reply: afterTools(true), tools: [shell, { name: 'exec_command', input: /cat notes\.txt/, output: NOTES_OUT }] };
      return [
        // the tiny auto-compact limit compacts before turn 3's prompt is sent
        { id: main!, title: title(P1), turns: [toolTurn, { user: P2, reply: plain(P2), compaction: true }, { user: THIRD, reply: plain(THIRD) }] },
        { id: fork!, title: FORK, turns: [toolTurn, { user: P2, reply: plain(P2) }, { user: FORK, reply: afterTools(false), tools: [shell] }] },
      ];
    }
    case 'pi': {
      const bash: Tool = { name: 'bash', input: /echo hello/, output: SHELL_OUT };
      const toolTurn: TurnX = { user: P1, reply: afterTools(true), tools: [bash, { name: 'read', input: /notes\.txt/, output: NOTES_OUT }] };
      // navigateTree went back before P2 (which left the live path), compact() ran after BRANCH
      const turns: TurnX[] = [toolTurn, { user: BRANCH, reply: plain(BRANCH), compaction: true }, { user: NEXT, reply: afterTools(false), tools: [bash] }];
      return [
        { id: main!, title: title(P1), turns },
        // `pi --fork` copies the live path into a new file and continues there
        { id: '', title: title(P1), turns: [...turns, { user: FORK, reply: afterTools(false), tools: [bash] }] },
      ];
    }
    case 'gemini':
      return [
        {
          id: main!,
          title: title(P1),
          turns: [
            { user: P1, reply: afterTools(true), tools: [{ name: 'run_shell_command', input: /echo hello/, output: /hello/ }, { name: 'read_file', input: /notes\.txt/, output: NOTES_OUT }] },
            // compression runs when turn 3 is sent, after turn 2
            { user: P2, reply: plain(P2), compaction: true },
            { user: THIRD, reply: plain(THIRD) },
          ],
        },
      ];
    case 'opencode': {
      // `opencode run` stores (and sends) the prompt wrapped in double quotes
      const q = (s: string): string => `"${s}"`;
      const bash: Tool = { name: 'bash', input: /echo hello/, output: SHELL_OUT };
      // the read tool's <path>/<type>/<content> wrapper is not part of the output
    const toolTurn: TurnX = { user: q(P1), reply: afterTools(true), tools: [bash, { name: 'read', input: /notes\.txt/, output: /^1: These are my notes\. The secret word is banana\.$/ }] };
      const big = q(`${THIRD} [big-usage]`);
      return [
        // the 150k-token answer triggers auto-compaction inside turn 3; the answer to OpenCode's
        // own "Continue if you have next steps" message is not the reply to the user's prompt
        { id: main!, title: 'Mock session title', turns: [toolTurn, { user: q(P2), reply: plain(q(P2)) }, { user: big, reply: plain(big), compaction: true }] },
        { id: fork!, title: 'Mock session title (fork #1)', turns: [toolTurn, { user: q(P2), reply: plain(q(P2)) }, { user: q(FORK), reply: afterTools(false), tools: [bash] }] },
      ];
    }
    case 'qwen': {
      const shell: Tool = { name: 'run_shell_command', input: /echo hello/, output: SHELL_OUT };
      const toolTurn: TurnX = { user: P1, reply: afterTools(true), tools: [shell, { name: 'read_file', input: /notes\.txt/, output: NOTES_OUT }] };
      const big = `${THIRD} [big-usage]`;
      return [
        // `/compress` ran after the 150k-token turn 3; its summary is context, not a turn
        { id: main!, title: title(P1), turns: [toolTurn, { user: P2, reply: plain(P2) }, { user: big, reply: plain(big), compaction: true }, { user: NEXT, reply: afterTools(false), tools: [shell] }] },
        // --fork-session copied turns 1–2 (each record marked forkedFrom) and went on in a file of its own
        { id: fork!, title: title(P1), turns: [toolTurn, { user: P2, reply: plain(P2) }, { user: FORK, reply: afterTools(false), tools: [shell] }] },
      ];
    }
    case 'droid': {
      const shell: Tool = { name: 'Execute', input: /echo hello/, output: SHELL_OUT };
      const toolTurn: TurnX = { user: P1, reply: afterTools(true), tools: [shell, { name: 'Read', input: /notes\.txt/, output: NOTES_OUT }] };
      const big = `${THIRD} [big-usage]`;
      return [
        // the 150k-token answer of turn 3 made Droid compact in the same process
        { id: main!, title: P1, turns: [toolTurn, { user: P2, reply: plain(P2) }, { user: big, reply: plain(big), compaction: true }, { user: NEXT, reply: afterTools(false), tools: [shell] }] },
        { id: fork!, title: P1, turns: [toolTurn, { user: P2, reply: plain(P2) }, { user: FORK, reply: afterTools(false), tools: [shell] }] },
      ];
    }
    case 'continue': {
      const bash: Tool = { name: 'Bash', input: /echo hello/, output: SHELL_OUT };
      const toolTurn: TurnX = { user: P1, reply: afterTools(true), tools: [bash, { name: 'Read', input: /notes\.txt/, output: NOTES_OUT }] };
      const next: TurnX = { user: NEXT, reply: afterTools(false), tools: [bash] };
      // headless /compact persists nothing, and the title stays Continue's "Untitled Session"
      return [
        { id: main!, title: title(P1), turns: [toolTurn, { user: P2, reply: plain(P2) }, next] },
        // the fork (taken after turn 4) is a copy of the whole history plus its own turn
        { id: fork!, title: title(P1), turns: [toolTurn, { user: P2, reply: plain(P2) }, next, { user: FORK, reply: afterTools(false), tools: [bash] }] },
      ];
    }
    case 'copilot': {
      const bash: Tool = { name: 'bash', input: /echo hello/, output: SHELL_OUT };
      return [
        // `-p /compact` compacted after turn 2 and made no turn of its own; -p has no fork
        {
          id: main!,
          title: title(P1),
          turns: [
            { user: P1, reply: afterTools(true), tools: [bash, { name: 'view', input: /notes\.txt/, output: NOTES_OUT }] },
            { user: P2, reply: plain(P2), compaction: true },
            { user: NEXT, reply: afterTools(false), tools: [bash] },
          ],
        },
      ];
    }
    case 'kilo': {
      // `kilo run` stores the prompt in literal double quotes, like `opencode run`
      const q = (s: string): string => `"${s}"`;
      const bash: Tool = { name: 'bash', input: /echo hello/, output: SHELL_OUT };
      const toolTurn: TurnX = { user: q(P1), reply: afterTools(true), tools: [bash, { name: 'read', input: /notes\.txt/, output: /^1: These are my notes\. The secret word is banana\.$/ }] };
      const big = q(`${THIRD} [big-usage]`);
      return [
        // Kilo compacts when the next prompt arrives (turn 4), then answers a synthetic copy of it;
        // titles stay "New session - <time>", so the first prompt names the session
        { id: main!, title: title(q(P1)), turns: [toolTurn, { user: q(P2), reply: plain(q(P2)) }, { user: big, reply: plain(big) }, { user: q(NEXT), reply: afterTools(false), tools: [bash], compaction: true }] },
        { id: fork!, title: title(q(P1)), turns: [toolTurn, { user: q(P2), reply: plain(q(P2)) }, { user: q(FORK), reply: afterTools(false), tools: [bash] }] },
      ];
    }
    case 'auggie': {
      const shell: Tool = { name: 'launch-process', input: /echo hello/, output: SHELL_OUT };
      return [
        // `[server-compact]`: the backend asked for a summary before answering turn 3; no fork command
        {
          id: main!,
          title: title(P1),
          turns: [
            { user: P1, reply: afterTools(true), tools: [shell, { name: 'view', input: /notes\.txt/, output: /^\s*1\tThese are my notes\. The secret word is banana\.\n\s*2$/ }] },
            { user: P2, reply: plain(P2) },
            { user: `${THIRD} [server-compact]`, reply: plain(`${THIRD} [server-compact]`), compaction: true },
            { user: NEXT, reply: afterTools(false), tools: [shell] },
          ],
        },
      ];
    }
    default:
      return [];
  }
}

/** The *-edits sets: one session, greeting.txt created and changed with the agent's own tools. */
function expectedEdits(run: Run): SessionX[] {
  const main = run.ids.main!;
  const turn = (user: string, tool: Tool): TurnX => ({ user, reply: afterAnyTool, tools: [tool] });
  switch (run.agent) {
    case 'codex': {
      // no edit tool for an unknown model: apply_patch as a shell command, which Codex applies itself
      const patch = (output: RegExp): Tool => ({ name: 'exec_command', input: /apply_patch <<'EOF'/, output });
      return [{ id: main, title: P_CREATE, turns: [turn(P_CREATE, patch(/Success\. Updated the following files:\nA greeting\.txt/)), turn(P_CHANGE, patch(/M greeting\.txt/))] }];
    }
    case 'copilot':
      return [
        {
          id: main,
          title: P_CREATE,
          turns: [
            turn(P_CREATE, { name: 'create', input: /greeting\.txt/, output: /^Created file .*greeting\.txt/ }),
            turn(P_CHANGE, { name: 'edit', input: /Hello again from the mock model/, output: /greeting\.txt updated/ }),
            turn(P_SCRIPT, { name: 'bash', input: /sh make-banner\.sh/, output: /^(\(no output\))?$/ }),
          ],
        },
      ];
    case 'opencode': {
      const q = (s: string): string => `"${s}"`;
      return [
        {
          id: main,
          title: 'Mock session title',
          turns: [
            turn(q(P_CREATE), { name: 'write', input: /greeting\.txt/, output: /^Wrote file successfully\.$/ }),
            turn(q(P_CHANGE), { name: 'edit', input: /Hello again from the mock model/, output: /^Edit applied successfully\.$/ }),
            // OpenCode's bash tool records "(no output)" for a silent command
            turn(q(P_SCRIPT), { name: 'bash', input: /sh make-banner\.sh/, output: /^\(no output\)$/ }),
          ],
        },
      ];
    }
    default:
      return [];
  }
}

type Listed = { ref: string; source: string; id: string; cwd?: string; title?: string; turns?: number; parent?: string };
type ShownBlock = { part: number; kind: string; text: string; label?: string; callId?: string; commentary?: boolean };
type ShownTurn = { ref: string; turn: number; blocks: ShownBlock[] };

function hashTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p), createHash('sha256').update(readFileSync(p)).digest('hex'));
    }
  };
  walk(dir);
  return out;
}

/** The reply of a turn: every assistant text after the last tool activity that is not a progress note. */
function replyOf(blocks: ShownBlock[]): string {
  let lastTool = -1;
  blocks.forEach((b, i) => {
    if (b.kind === 'tool_call' || b.kind === 'tool_output') lastTool = i;
  });
  return blocks.slice(lastTool + 1).filter((b) => b.kind === 'assistant' && !b.commentary).map((b) => b.text).join('\n\n');
}

const sets = existsSync(REAL) ? readdirSync(REAL).filter((d) => existsSync(join(REAL, d, 'run.json'))) : [];

test('fixtures/real holds the five providers, Claude Code in two format generations', () => {
  const agents = sets.map((s) => s.replace(/-\d.*$/, ''));
  for (const a of ['claude', 'codex', 'pi', 'gemini', 'opencode']) expect(agents).toContain(a);
  expect(sets.filter((s) => s.startsWith('claude-')).length).toBeGreaterThanOrEqual(2);
});

for (const set of sets) {
  const run = JSON.parse(readFileSync(join(REAL, set, 'run.json'), 'utf8')) as Run;
  const sessions = expected(run);
  const readable = sessions.length > 0;

  describe(`real ${set}`, () => {
    let tmp: ReturnType<typeof tempDir>;
    let home: string;
    let before: Map<string, string>;
    const cli = (args: string[]): { code: number; stdout: string; stderr: string } => runCli(args, { env: cleanEnv(home) });

    beforeAll(() => {
      tmp = tempDir('sivtr-real-');
      home = join(tmp.path, 'home');
      if (existsSync(join(REAL, set, 'home'))) cpSync(join(REAL, set, 'home'), home, { recursive: true });
      else cpSync(join(REAL, set, 'sample'), join(home, 'sample'), { recursive: true });
      before = hashTree(home);
    });
    afterAll(() => tmp.cleanup());

    if (!readable) {
      test('an agent sivtr does not read yet lists nothing and fails on nothing', () => {
        const r = cli(['sessions', '--global', '--json']);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
      });
      return;
    }

    let listed: Listed[] = [];
    test('sessions: one per session the CLI made, with its title and cwd', () => {
      const r = cli(['sessions', run.agent, '--global', '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      listed = JSON.parse(r.stdout) as Listed[];
      expect(listed).toHaveLength(sessions.length);
      for (const s of sessions) {
        const found = listed.find(matches(s));
        expect(found, `session ${s.id || '(fork)'} listed`).toBeDefined();
        expect(found!.title).toBe(s.title);
        expect(found!.cwd).toBe(run.cwd);
        expect(found!.turns).toBe(s.turns.length);
        expect(found!.parent).toBe(s.parent);
        // a session run inside another is listed right under it
        if (s.parent) expect(listed[listed.indexOf(found!) - 1]!.id).toBe(s.parent);
      }
    });

    const matches =
      (s: SessionX) =>
      (l: Listed): boolean =>
        s.id === '' ? l.id !== run.ids.main && !l.id.startsWith('agent-') : s.id === 'agent-' ? l.id.startsWith('agent-') : l.id === s.id;

    sessions.forEach((s, si) => {
      const which = si === 0 ? 'main session' : s.parent ? 'subagent' : 'fork';
      const idOf = (): string => listed.find(matches(s))?.id ?? 'missing';

      test(`${which}: every turn in order, with its prompt, tool calls paired with outputs, and whole reply`, () => {
        const r = cli(['show', `${run.agent}/${idOf()}`, '--json']);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const turns = JSON.parse(r.stdout) as ShownTurn[];
        expect(turns.map((t) => t.blocks.find((b) => b.kind === 'user')?.text)).toEqual(s.turns.map((t) => t.user));
        s.turns.forEach((want, i) => {
          const blocks = turns[i]!.blocks;
          expect(blocks.filter((b) => b.kind === 'user'), `turn ${i + 1} has one user message`).toHaveLength(1);
          expect(replyOf(blocks)).toMatch(typeof want.reply === 'string' ? new RegExp(`^${want.reply.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : want.reply);
          const calls = blocks.filter((b) => b.kind === 'tool_call');
          expect(calls.map((c) => c.label), `turn ${i + 1} tool calls`).toEqual((want.tools ?? []).map((t) => t.name));
          calls.forEach((call, k) => {
            const tool = want.tools![k]!;
            expect(call.text).toMatch(tool.input);
            const output = blocks.find((b) => b.kind === 'tool_output' && b.callId !== undefined && b.callId === call.callId);
            expect(output, `output of ${call.label} ${call.callId}`).toBeDefined();
            expect(output!.text).toMatch(tool.output);
          });
          // every output answers a call of this turn (a background agent answers twice: launched, done)
          for (const out of blocks.filter((b) => b.kind === 'tool_output')) expect(calls.map((c) => c.callId)).toContain(out.callId);
          // the notes before a tool call are part of the turn, never of its reply
          for (const note of COMMENTARY) if (want.tools?.length) expect(replyOf(blocks)).not.toContain(note);
          expect(blocks.some((b) => b.kind === 'compaction'), `turn ${i + 1} compaction`).toBe(want.compaction === true);
        });
      });

      test(`${which}: copy out is the last turn's whole reply, copy is its prompt and reply`, () => {
        const last = s.turns.at(-1)!;
        const out = cli(['copy', run.agent, 'out', '--session', idOf(), '--print']);
        expect(out.code).toBe(0);
        expect(out.stdout.trimEnd()).toMatch(typeof last.reply === 'string' ? new RegExp(`^${last.reply.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : last.reply);
        const turn = cli(['copy', run.agent, '--session', idOf(), '--print']);
        expect(turn.code).toBe(0);
        expect(turn.stdout).toContain(last.user);
        const replyTexts = typeof last.reply === 'string' ? [last.reply] : ['Final answer: the command printed hello.', 'That is everything the tools showed.'];
        for (const t of replyTexts) expect(turn.stdout).toContain(t);
        for (const note of COMMENTARY) expect(turn.stdout).not.toContain(note);
      });
    });

    // forks replay their parent's turns with the parent's timestamps in these five
    test.runIf(['claude', 'codex', 'pi', 'gemini', 'opencode'].includes(run.agent) && !run.set.endsWith('-edits'))('search finds a turn a fork replays once, not once per session carrying it', () => {
      const r = cli(['search', run.agent, 'banana', '--format', 'refs', '--limit', '50']);
      expect(r.code).toBe(0);
      const refs = r.stdout.trim().split('\n').filter(Boolean);
      const firstPrompt = sessions[0]!.turns[0]!.user;
      const prompts = refs.map((ref) => (JSON.parse(cli(['show', ref, '--json']).stdout) as ShownTurn).blocks.find((b) => b.kind === 'user')?.text);
      expect(prompts.filter((p) => p === firstPrompt)).toHaveLength(1);
    });

    test('nothing sivtr reads is modified', () => {
      // search builds an index from every session: the heaviest read there is
      expect(cli(['search', run.agent, 'hello']).code).toBe(0);
      const after = hashTree(home);
      for (const [path, hash] of before) expect(after.get(path), path).toBe(hash);
    });
  });
}
