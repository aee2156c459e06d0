#!/usr/bin/env node
// Writes a deterministic synthetic agent corpus in a HOME-like layout:
//   <outdir>/.claude/projects/<slug>/<uuid>.jsonl
//   <outdir>/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl
//   <outdir>/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl
// Usage: node bench/agents-corpus.mjs <outdir> [--sessions N] [--mb M]   (defaults: 1000 sessions, 1024 MB)
// Same arguments → byte-identical files and mtimes. Each turn carries a unique token
// `tok-<provider>-<session#>-<turn#>` so search benchmarks can look for known needles.
import { closeSync, mkdirSync, openSync, utimesSync, writeSync } from 'node:fs';
import { join } from 'node:path';

function parseArgs(argv) {
  const out = { dir: undefined, sessions: 1000, mb: 1024 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--sessions') out.sessions = Number(argv[++i]);
    else if (a === '--mb') out.mb = Number(argv[++i]);
    else if (!a.startsWith('-') && out.dir === undefined) out.dir = a;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!out.dir || !(out.sessions > 0) || !(out.mb > 0)) {
    process.stderr.write('usage: node bench/agents-corpus.mjs <outdir> [--sessions N] [--mb M]\n');
    process.exit(2);
  }
  return out;
}

// mulberry32: tiny, fast, seedable.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ('the build test parser config route handler cache index session token request response error warning '
  + 'module import export function class const return async await promise stream buffer file path directory git commit '
  + 'branch merge rebase diff patch lint format type check compile bundle deploy server client database query table row '
  + 'column schema migration user admin auth login logout password hash encrypt decrypt key value map set list array '
  + 'object string number boolean null undefined timeout retry backoff queue worker thread process signal exit code').split(' ');

/** A pool of realistic-looking text to slice tool outputs from (fast to produce 1 GB). */
function textPool(rand, bytes) {
  const lines = [];
  let size = 0;
  while (size < bytes) {
    const n = 4 + Math.floor(rand() * 12);
    const words = [];
    for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)]);
    const line = (rand() < 0.2 ? `src/${words[0]}/${words[1]}.ts:${Math.floor(rand() * 400)}: ` : '') + words.join(' ');
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

function uuid(rand, version = 4) {
  const hex = [];
  for (let i = 0; i < 32; i++) hex.push(Math.floor(rand() * 16).toString(16));
  hex[12] = String(version);
  hex[16] = ['8', '9', 'a', 'b'][Math.floor(rand() * 4)];
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

function sentence(rand, min, max) {
  const n = min + Math.floor(rand() * (max - min));
  const words = [];
  for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)]);
  const s = words.join(' ');
  return s[0].toUpperCase() + s.slice(1) + '.';
}

const BASE_MS = Date.parse('2026-01-05T08:00:00.000Z');
const iso = (ms) => new Date(ms).toISOString();
const stamp = (ms) => iso(ms).replace(/[:.]/g, '-');

/** The conversation every format renders: turns of prompt, thinking, tool calls + outputs, reply. */
function conversation(rand, pool, provider, index, targetBytes, startMs) {
  const turns = [];
  let bytes = 0;
  let t = startMs;
  for (let turn = 1; bytes < targetBytes || turn === 1; turn++) {
    const token = `tok-${provider}-${index}-${turn}`;
    const tools = [];
    const nTools = Math.floor(rand() * 4);
    for (let k = 0; k < nTools; k++) {
      const len = Math.min(pool.length - 1, Math.floor((targetBytes / 6) * rand()) + 200);
      const from = Math.floor(rand() * (pool.length - len));
      const output = pool.slice(from, from + len);
      tools.push({ id: `call_${index}_${turn}_${k}`, name: k % 2 ? 'read' : 'bash', args: { command: `npm run ${WORDS[Math.floor(rand() * WORDS.length)]}` }, output, isError: rand() < 0.1 });
      bytes += len;
    }
    // Every seventh turn asks in Chinese too, so that the benchmarks' two-character query (会话)
    // finds hits to rank and cut snippets from, as a CJK user's search would; taken from the turn
    // number rather than rand() so that the rest of the corpus is the same as without it.
    const cjk = turn % 7 === 3 ? ' 会话恢复后测试失败了' : '';
    const prompt = `${sentence(rand, 6, 20)}${cjk} (${token})`;
    const reply = `${sentence(rand, 10, 60)} ${token} done.`;
    turns.push({ prompt, thinking: sentence(rand, 5, 15), tools, reply, t });
    bytes += prompt.length + reply.length + 400;
    t += 60_000 + Math.floor(rand() * 600_000);
  }
  return turns;
}

function claudeLines(id, cwd, turns) {
  const out = [];
  let parent = null;
  let n = 0;
  const rec = (type, t, message, extra = {}) => {
    const uuid = `${id.slice(0, 8)}-${(n++).toString(16).padStart(6, '0')}`;
    out.push(JSON.stringify({ parentUuid: parent, isSidechain: false, userType: 'external', cwd, sessionId: id, version: '2.1.40', type, uuid, timestamp: iso(t), message, ...extra }));
    parent = uuid;
  };
  for (const turn of turns) {
    rec('user', turn.t, { role: 'user', content: turn.prompt });
    rec('assistant', turn.t + 1000, { id: `msg_${n}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'thinking', thinking: turn.thinking, signature: 'c2ln' }], stop_reason: null });
    for (const tool of turn.tools) {
      rec('assistant', turn.t + 2000, { id: `msg_${n}`, type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: tool.id, name: tool.name === 'bash' ? 'Bash' : 'Read', input: tool.args }], stop_reason: 'tool_use' });
      rec('user', turn.t + 3000, { role: 'user', content: [{ type: 'tool_result', tool_use_id: tool.id, content: tool.output, is_error: tool.isError }] });
    }
    rec('assistant', turn.t + 4000, { id: `msg_${n}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: turn.reply }], stop_reason: 'end_turn' });
    out.push(JSON.stringify({ type: 'system', subtype: 'turn_duration', uuid: `${id.slice(0, 8)}-d${n++}`, parentUuid: parent, durationMs: 4000, sessionId: id, timestamp: iso(turn.t + 4100), isSidechain: false, cwd }));
  }
  return out;
}

function codexLines(id, cwd, turns, startMs) {
  const out = [];
  const env = (t, type, payload) => out.push(JSON.stringify({ timestamp: iso(t), type, payload }));
  env(startMs, 'session_meta', { id, timestamp: iso(startMs), cwd, originator: 'codex_cli_rs', cli_version: '0.118.0', source: 'cli', instructions: 'You are a coding agent.' });
  env(startMs, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${cwd}</cwd>\n</environment_context>` }] });
  turns.forEach((turn, i) => {
    env(turn.t, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: turn.prompt }] });
    env(turn.t, 'event_msg', { type: 'user_message', message: turn.prompt, images: [] });
    env(turn.t, 'event_msg', { type: 'task_started', turn_id: `t${i}` });
    env(turn.t + 1000, 'response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: turn.thinking }], encrypted_content: 'gAAAA' });
    for (const tool of turn.tools) {
      env(turn.t + 2000, 'response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', tool.args.command] }), call_id: tool.id });
      env(turn.t + 3000, 'response_item', { type: 'function_call_output', call_id: tool.id, output: JSON.stringify({ output: tool.output, metadata: { exit_code: tool.isError ? 1 : 0 } }) });
    }
    env(turn.t + 4000, 'response_item', { type: 'message', role: 'assistant', phase: 'final_answer', content: [{ type: 'output_text', text: turn.reply }] });
    env(turn.t + 4000, 'event_msg', { type: 'agent_message', message: turn.reply });
    env(turn.t + 4100, 'event_msg', { type: 'task_complete', turn_id: `t${i}`, last_agent_message: turn.reply });
  });
  return out;
}

function piLines(id, cwd, turns, startMs) {
  const out = [JSON.stringify({ type: 'session', version: 3, id, timestamp: iso(startMs), cwd })];
  let parent = null;
  let n = 0;
  const entry = (t, message) => {
    const eid = (n++).toString(16).padStart(8, '0');
    out.push(JSON.stringify({ type: 'message', id: eid, parentId: parent, timestamp: iso(t), message: { ...message, timestamp: t } }));
    parent = eid;
  };
  for (const turn of turns) {
    entry(turn.t, { role: 'user', content: [{ type: 'text', text: turn.prompt }] });
    const calls = turn.tools.map((tool) => ({ type: 'toolCall', id: tool.id, name: tool.name, arguments: tool.args }));
    if (calls.length > 0) {
      entry(turn.t + 1000, { role: 'assistant', content: [{ type: 'thinking', thinking: turn.thinking }, ...calls], provider: 'anthropic', model: 'claude-sonnet-4-5', stopReason: 'toolUse' });
      for (const tool of turn.tools) entry(turn.t + 3000, { role: 'toolResult', toolCallId: tool.id, toolName: tool.name, content: [{ type: 'text', text: tool.output }], isError: tool.isError });
    }
    entry(turn.t + 4000, { role: 'assistant', content: [{ type: 'text', text: turn.reply }], provider: 'anthropic', model: 'claude-sonnet-4-5', stopReason: 'stop' });
  }
  return out;
}

export function generateCorpus(dir, { sessions = 1000, mb = 1024 } = {}) {
  const rand = rng(0x5171);
  const pool = textPool(rand, 4 * 1024 * 1024);
  const providers = ['claude', 'codex', 'pi'];
  const perSession = (mb * 1024 * 1024) / sessions;
  let written = 0;
  for (let i = 0; i < sessions; i++) {
    const provider = providers[i % 3];
    const r = rng(1000 + i);
    // Sizes skew small with a long tail (0.15×–2×), like real transcripts; a turn's tools may
    // overshoot the target, which brings the mean back to about the requested size.
    const target = perSession * 1.19 * (0.15 + 1.6 * r() * r() + 0.3 * r());
    const project = Math.floor(r() * 20);
    const cwd = `/home/bench/proj-${project}`;
    const startMs = BASE_MS + i * 3_600_000 + Math.floor(r() * 3_000_000);
    const id = uuid(r, provider === 'claude' ? 4 : 7);
    const turns = conversation(r, pool, provider, i, target, startMs);
    const endMs = turns.at(-1).t + 4100;
    let path;
    let lines;
    if (provider === 'claude') {
      const folder = join(dir, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
      mkdirSync(folder, { recursive: true });
      path = join(folder, `${id}.jsonl`);
      lines = claudeLines(id, cwd, turns);
    } else if (provider === 'codex') {
      const d = new Date(startMs);
      const folder = join(dir, '.codex', 'sessions', String(d.getUTCFullYear()), String(d.getUTCMonth() + 1).padStart(2, '0'), String(d.getUTCDate()).padStart(2, '0'));
      mkdirSync(folder, { recursive: true });
      path = join(folder, `rollout-${stamp(startMs).slice(0, 19)}-${id}.jsonl`);
      lines = codexLines(id, cwd, turns, startMs);
    } else {
      const folder = join(dir, '.pi', 'agent', 'sessions', `--${cwd.slice(1).replace(/[/\\:]/g, '-')}--`);
      mkdirSync(folder, { recursive: true });
      path = join(folder, `${stamp(startMs)}_${id}.jsonl`);
      lines = piLines(id, cwd, turns, startMs);
    }
    // Written in slices: one huge session would not fit in a single JS string.
    const fd = openSync(path, 'w');
    for (let k = 0; k < lines.length; k += 256) {
      const text = lines.slice(k, k + 256).join('\n') + '\n';
      writeSync(fd, text);
      written += Buffer.byteLength(text);
    }
    closeSync(fd);
    const end = new Date(endMs);
    utimesSync(path, end, end);
  }
  return { sessions, bytes: written };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const { sessions, bytes } = generateCorpus(args.dir, args);
  process.stderr.write(`wrote ${sessions} sessions, ${(bytes / 1048576).toFixed(1)} MB to ${args.dir} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
