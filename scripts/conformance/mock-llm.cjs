#!/usr/bin/env node
// Scripted mock LLM server for driving real coding-agent CLIs offline.
// No dependencies. Listens on 127.0.0.1 only.
//
// Speaks (streaming and non-streaming):
//   Anthropic Messages       POST .../v1/messages            (SSE when stream:true)
//                            POST .../v1/messages/count_tokens
//   OpenAI Responses         POST .../responses              (SSE when stream:true)
//   OpenAI Chat Completions  POST .../chat/completions       (SSE when stream:true)
//   Gemini                   POST .../models/M:streamGenerateContent?alt=sse
//                            POST .../models/M:generateContent, :countTokens
//   Augment (Auggie CLI)     POST /get-models, POST /chat-stream (NDJSON chunks)
//   Model lists              GET  .../models
// Anything else: logged and answered 404. CONNECT (proxy tunnels) is logged
// and refused, so clients pointed at this server as HTTPS_PROXY never leave
// the machine.
//
// The "model" is a tiny script driven by the LAST real user message of the
// conversation in each request:
//   - contains "subagent"    -> call Claude Code's Agent/Task tool with a shell task
//   - contains "sivtr memory" -> call sivtr's MCP search tool (mcp__sivtr__search in Claude Code,
//     any tool named …sivtr…search) with the first "quoted" phrase as its query, after loading
//     it with ToolSearch where the client defers MCP tools; the final answer names the refs the
//     tool returned
//   - contains "echo hello"  -> call the client's shell tool with `echo hello`
//   - contains "notes.txt"   -> call the client's read-file tool on notes.txt
//   (both -> shell first, then read, one tool call per response)
//   - contains "make-banner.sh" -> call the shell tool with `sh make-banner.sh` (a script the
//     driver put in the project, which writes banner.txt: a write no command line shows)
//   - contains "greeting.txt" -> write MOCK_WORKDIR/greeting.txt with the client's own tool: a
//     create/write tool while the file does not exist, an edit tool once it does, apply_patch
//     where the client has one; Codex (no edit tool for an unknown model) gets `apply_patch` as a
//     shell command, which it runs as a patch and records as one
//   - after all planned tool results came back -> final text quoting them, then a second
//     text block where the API has separate blocks (Anthropic, Responses: two messages)
//   - mentions "summar" or "state_snapshot" (compaction prompts) -> a summary text
//   - contains "[big-usage]" -> plain answer reporting ~150k prompt tokens, so a
//     client with automatic compaction compacts once
//   - contains "[server-compact]" (Augment only) -> first answer summarize_and_retry
//   - otherwise -> a plain text answer
// Requests without tools (titles, summaries, ...) get a short plain answer.
//
// Usage: node mock-llm.js [port]
//   env MOCK_LOG=path     JSONL log of every request (default ./mock-requests.jsonl)
//   env MOCK_WORKDIR=dir  absolute project dir; read-tool calls use dir/notes.txt

'use strict';
const http = require('http');
const fs = require('fs');
const path = require('path');

const PORT = Number(process.argv[2] || process.env.MOCK_PORT || 4141);
const LOG = process.env.MOCK_LOG || path.join(process.cwd(), 'mock-requests.jsonl');
const WORKDIR = process.env.MOCK_WORKDIR || ''; // absolute dir holding notes.txt
let counter = 0;
const nextId = (p) => `${p}${Date.now().toString(36)}${(++counter).toString(36).padStart(4, '0')}`;

function log(obj) {
  fs.appendFileSync(LOG, JSON.stringify({ t: new Date().toISOString(), ...obj }) + '\n');
}

// ---------------------------------------------------------------- the script
// conv: neutral list of {kind:'user'|'tool_result'|'assistant', text}
// tools: [{name, schema}]
function plan(conv, tools) {
  const p = planInner(conv, tools);
  p.inTok = p.big ? 150000 : 120;
  return p;
}

// Drop leading tag blocks that clients put before the prompt in the same
// message (Copilot: "<current_datetime>…</current_datetime>\n\nPROMPT").
function stripLeadingTags(text) {
  let t = text, prev;
  do { prev = t; t = t.replace(/^\s*<([a-z_-]+)[^>]*>[\s\S]*?<\/\1>/i, ''); } while (t !== prev);
  return t;
}

function planInner(conv, tools) {
  let lastUser = -1;
  for (let i = conv.length - 1; i >= 0; i--) {
    const t = conv[i].kind === 'user' ? stripLeadingTags(conv[i].text) : '';
    if (t.trim() && !/^\s*</.test(t)) { lastUser = i; break; }
  }
  if (lastUser < 0) for (let i = conv.length - 1; i >= 0; i--) if (conv[i].kind === 'user') { lastUser = i; break; }
  const userText = lastUser >= 0 ? (stripLeadingTags(conv[lastUser].text).trim() ? stripLeadingTags(conv[lastUser].text) : conv[lastUser].text) : '';
  const results = conv.slice(lastUser + 1).filter((m) => m.kind === 'tool_result');
  // Compaction / branch-summary requests: answer with a summary, never a tool call.
  if (results.length === 0 && /summar|state_snapshot/i.test(userText)) {
    const summary = 'Summary (mock): the user asked to run `echo hello` (it printed hello) and to read notes.txt (it says the secret word is banana); later turns were plain questions.';
    return { text: /state_snapshot/.test(userText) ? `<state_snapshot>\n<overall_goal>${summary}</overall_goal>\n</state_snapshot>` : summary };
  }
  const steps = [];
  if (tools.length) {
    if (/subagent/i.test(userText)) steps.push('agent');
    if (/sivtr memory/i.test(userText)) {
      // Claude Code defers MCP tools: only their names are listed until ToolSearch loads them
      // (its result is a tool reference, no text), so where there is a ToolSearch it goes first.
      if (findTool(tools, ['ToolSearch'])) steps.push('sivtr-load');
      steps.push('sivtr');
    }
    if (/echo hello/i.test(userText)) steps.push('shell');
    if (/notes\.txt/i.test(userText)) steps.push('read');
    if (/greeting\.txt/i.test(userText)) steps.push('edit');
    if (/make-banner\.sh/i.test(userText)) steps.push('script');
  }
  if (results.length < steps.length) {
    const step = steps[results.length];
    const call = step === 'sivtr' ? sivtrSearchCall(tools, userText) : step === 'sivtr-load' ? { name: 'ToolSearch', args: { query: 'select:mcp__sivtr__search' } } : makeToolCall(step, tools);
    if (call) {
      return {
        text: step === 'shell' ? 'I will run the command with the shell tool.' : step === 'agent' ? 'I will ask a subagent.' : step === 'sivtr-load' ? 'I will load the sivtr search tool.' : step === 'sivtr' ? 'I will search the sivtr memory.' : step === 'edit' ? 'I will write greeting.txt.' : step === 'script' ? 'I will run the banner script.' : 'Now I will read notes.txt.',
        call,
      };
    }
  }
  if (steps.includes('sivtr') && results.length) {
    const answer = results[results.length - 1].text;
    const refs = [...new Set(answer.match(/\b[a-z]+\/[0-9A-Za-z_-]+\/\d+(?:\/p\d+)?/g) || [])];
    return { text: refs.length ? `sivtr found it in ${refs.join(', ')}.` : `sivtr found nothing: ${answer.trim().slice(0, 200)}` };
  }
  if (steps.length) {
    const outs = results.map((r) => r.text.trim().replace(/\s+/g, ' ').slice(0, 200));
    // Real models often answer in several messages after their last tool call; where the API
    // has separate output blocks (Anthropic, Responses) the final answer comes as two.
    return { text: `Done. The tool results were: ${outs.map((o) => JSON.stringify(o)).join(' and ')}. Final answer: the command printed hello.`, more: FINAL_MORE };
  }
  if (!tools.length) return { text: 'Mock session title' };
  // "[big-usage]" in the prompt: report ~150k prompt tokens for this answer, so
  // clients with automatic compaction see a full context window once.
  return { text: `Plain text answer from the mock model. You said: "${userText.trim().slice(0, 80)}".`, big: /\[big-usage\]/.test(userText) };
}

const FINAL_MORE = 'That is everything the tools showed.';

function findTool(tools, names) {
  for (const n of names) {
    const t = tools.find((x) => x.name.toLowerCase() === n.toLowerCase());
    if (t) return t;
  }
  return null;
}

function props(t) {
  const s = t.schema || {};
  return s.properties || (s.parameters && s.parameters.properties) || {};
}

// Required arguments the script did not set (e.g. Factory Droid's Execute wants
// summary, riskLevel, riskLevelReason): first enum value, or a short phrase.
function fillRequired(t, args, phrase) {
  const s = t.schema || {};
  const req = s.required || (s.parameters && s.parameters.required) || [];
  const p = props(t);
  for (const k of req) {
    if (k in args || !p[k]) continue;
    const d = p[k];
    const type = String(d.type || 'string').toLowerCase();
    if (d.enum) args[k] = d.enum[0];
    else if (type === 'string') args[k] = phrase;
    else if (type === 'number' || type === 'integer') args[k] = d.minimum !== undefined ? d.minimum : 1;
    else if (type === 'boolean') args[k] = false;
  }
  return args;
}

// sivtr's search over MCP, whatever prefix the client gives MCP tools (mcp__sivtr__search, …).
function sivtrSearchCall(tools, userText) {
  const t = tools.find((x) => /sivtr.*search$/i.test(x.name));
  const quoted = /"([^"]+)"/.exec(userText);
  return { name: t ? t.name : 'mcp__sivtr__search', args: { query: quoted ? quoted[1] : 'error' } };
}

const SHELL_TOOLS = ['Bash', 'bash', 'shell', 'shell_command', 'exec_command', 'run_shell_command', 'local_shell', 'Execute', 'launch-process'];

// The edit step's file: created on its first request, changed on any later one (the mock runs
// beside the client, so it sees the file the client wrote).
const GREETING = 'Hello from the mock model.';
const GREETING_NEW = 'Hello again from the mock model.';
function editCall(tools) {
  const file = WORKDIR ? path.join(WORKDIR, 'greeting.txt') : 'greeting.txt';
  const exists = WORKDIR !== '' && fs.existsSync(file);
  const patch = exists
    ? `*** Begin Patch\n*** Update File: greeting.txt\n@@\n-${GREETING}\n+${GREETING_NEW}\n*** End Patch\n`
    : `*** Begin Patch\n*** Add File: greeting.txt\n+${GREETING}\n*** End Patch\n`;
  const pick = (p, keys) => keys.find((k) => p[k]);
  const patchTool = findTool(tools, ['apply_patch']);
  if (patchTool) {
    const p = props(patchTool);
    const args = { [pick(p, ['input', 'patchText', 'patch_text', 'patch']) || 'input']: patch };
    if (p.workdir && WORKDIR) args.workdir = WORKDIR;
    return { name: patchTool.name, args: fillRequired(patchTool, args, 'Write greeting.txt') };
  }
  const t = exists
    ? findTool(tools, ['edit', 'Edit', 'str_replace', 'str_replace_editor', 'str_replace_based_edit_tool', 'replace'])
    : findTool(tools, ['create', 'write', 'Write', 'write_file', 'create_file', 'str_replace_editor', 'str_replace_based_edit_tool']);
  if (t) {
    const p = props(t);
    const args = {};
    args[pick(p, ['file_path', 'filePath', 'path', 'absolute_path', 'file']) || 'path'] = file;
    if (p.command && Array.isArray(p.command.enum)) args.command = exists ? 'str_replace' : 'create';
    if (exists) {
      args[pick(p, ['old_str', 'oldString', 'old_string', 'old_text']) || 'old_str'] = GREETING;
      args[pick(p, ['new_str', 'newString', 'new_string', 'new_text']) || 'new_str'] = GREETING_NEW;
    } else args[pick(p, ['file_text', 'content', 'contents', 'text']) || 'content'] = `${GREETING}\n`;
    return { name: t.name, args: fillRequired(t, args, 'Write greeting.txt') };
  }
  const sh = findTool(tools, SHELL_TOOLS);
  if (!sh) return null;
  const p = props(sh);
  const cmd = `apply_patch <<'EOF'\n${patch}EOF\n`;
  const args = {};
  if (p.command && p.command.type === 'array') args.command = ['apply_patch', patch];
  else if (p.cmd) args.cmd = cmd;
  else args.command = cmd;
  if (p.workdir && WORKDIR) args.workdir = WORKDIR;
  return { name: sh.name, args: fillRequired(sh, args, 'Write greeting.txt') };
}

function shellCall(tools, command, phrase) {
  const t = findTool(tools, SHELL_TOOLS);
  if (!t) return null;
  const p = props(t);
  const args = {};
  if (p.command && p.command.type === 'array') args.command = ['bash', '-lc', command];
  else if (p.cmd) args.cmd = command;
  else args.command = command;
  if (p.description) args.description = phrase;
  if (p.workdir && WORKDIR) args.workdir = WORKDIR;
  return { name: t.name, args: fillRequired(t, args, phrase) };
}

function makeToolCall(step, tools) {
  if (step === 'edit') return editCall(tools);
  if (step === 'script') return shellCall(tools, 'sh make-banner.sh', 'Run the banner script');
  if (step === 'shell') {
    const t = findTool(tools, SHELL_TOOLS);
    if (!t) return null;
    const p = props(t);
    const args = {};
    if (p.command && p.command.type === 'array') args.command = ['bash', '-lc', 'echo hello'];
    else if (p.cmd) args.cmd = 'echo hello';
    else args.command = 'echo hello';
    if (p.description) args.description = 'Print hello';
    if (p.workdir && WORKDIR) args.workdir = WORKDIR;
    // Auggie's launch-process: wait for the output, in the project directory
    if (p.wait) args.wait = true;
    if (p.max_wait_seconds) args.max_wait_seconds = 30;
    if (p.cwd && WORKDIR) args.cwd = WORKDIR;
    return { name: t.name, args: fillRequired(t, args, 'Print hello with echo') };
  }
  if (step === 'agent') {
    // Claude Code's subagent tool (Agent, formerly Task): the subagent gets a shell task
    const t = findTool(tools, ['Agent', 'Task']);
    if (!t) return null;
    const args = { description: 'Say hello', prompt: 'Please run `echo hello` in the shell and report what it printed.' };
    if (props(t).subagent_type) args.subagent_type = 'general-purpose';
    return { name: t.name, args: fillRequired(t, args, 'Say hello') };
  }
  if (step === 'read') {
    const t = findTool(tools, ['Read', 'read', 'read_file', 'view', 'view_file']);
    const file = WORKDIR ? path.join(WORKDIR, 'notes.txt') : 'notes.txt';
    if (!t) {
      // no read tool (e.g. Codex): read it through the shell instead
      const sh = findTool(tools, ['shell', 'shell_command', 'exec_command', 'Bash', 'bash', 'run_shell_command', 'Execute', 'launch-process']);
      if (!sh) return null;
      const p = props(sh);
      const args = {};
      if (p.command && p.command.type === 'array') args.command = ['bash', '-lc', 'cat notes.txt'];
      else if (p.cmd) args.cmd = 'cat notes.txt';
      else args.command = 'cat notes.txt';
      if (p.workdir && WORKDIR) args.workdir = WORKDIR;
      return { name: sh.name, args: fillRequired(sh, args, 'Show the notes file') };
    }
    const p = props(t);
    const args = {};
    const key = ['file_path', 'filePath', 'filepath', 'absolute_path', 'path', 'file'].find((k) => p[k]) || 'file_path';
    args[key] = file;
    return { name: t.name, args: fillRequired(t, args, 'Read the notes file') };
  }
  return null;
}

// ------------------------------------------------------------ helpers
function textOf(content) {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(textOf).join('\n');
  if (typeof content === 'object') {
    if (typeof content.text === 'string') return content.text;
    if (content.content !== undefined) return textOf(content.content);
    if (typeof content.output === 'string') return content.output;
  }
  return '';
}

function sse(res, event, data) {
  if (event) res.write(`event: ${event}\n`);
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

function sseHeaders(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

function json(res, code, obj) {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(obj));
}

// Split a string into a few chunks so streams have several deltas.
function chunks(s, n = 3) {
  if (s.length < 6) return [s];
  const size = Math.ceil(s.length / n);
  const out = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

// ------------------------------------------------------------ Anthropic
function anthropicConv(body) {
  const conv = [];
  for (const m of body.messages || []) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content || [];
    if (m.role === 'user') {
      const trs = blocks.filter((b) => b.type === 'tool_result');
      for (const tr of trs) conv.push({ kind: 'tool_result', text: textOf(tr.content) });
      if (!trs.length) {
        // The prompt is the LAST text block that is not a <system-reminder>:
        // clients merge consecutive user messages (e.g. a compaction summary
        // followed by the next prompt) into one message with several blocks.
        const texts = blocks.filter((b) => b.type === 'text' && b.text.trim() && !/^\s*<system-reminder>/.test(b.text)).map((b) => b.text);
        conv.push({ kind: 'user', text: texts.length ? texts[texts.length - 1] : textOf(blocks) });
      }
    } else conv.push({ kind: 'assistant', text: textOf(blocks) });
  }
  return conv;
}

function handleAnthropic(body, res) {
  const tools = (body.tools || []).filter((t) => t.name).map((t) => ({ name: t.name, schema: t.input_schema }));
  const p = plan(anthropicConv(body), tools);
  const id = nextId('msg_mock');
  const content = [];
  if (p.text) content.push({ type: 'text', text: p.text });
  if (p.more) content.push({ type: 'text', text: p.more });
  if (p.call) content.push({ type: 'tool_use', id: nextId('toolu_mock'), name: p.call.name, input: p.call.args });
  const usage = { input_tokens: p.inTok, output_tokens: 25, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const stop = p.call ? 'tool_use' : 'end_turn';
  if (!body.stream) {
    return json(res, 200, { id, type: 'message', role: 'assistant', model: body.model, content, stop_reason: stop, stop_sequence: null, usage });
  }
  sseHeaders(res);
  sse(res, 'message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
  content.forEach((b, index) => {
    if (b.type === 'text') {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const c of chunks(b.text)) sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: c } });
    } else {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      for (const c of chunks(JSON.stringify(b.input), 2)) sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: c } });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 25 } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

// ------------------------------------------------------------ OpenAI Responses
function responsesConv(body) {
  const conv = [];
  const input = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : body.input || [];
  for (const it of input) {
    const type = it.type || (it.role ? 'message' : '');
    if (type === 'message') {
      if (it.role === 'user') conv.push({ kind: 'user', text: textOf(it.content) });
      else if (it.role === 'assistant') conv.push({ kind: 'assistant', text: textOf(it.content) });
    } else if (/_call_output$/.test(type)) {
      conv.push({ kind: 'tool_result', text: typeof it.output === 'string' ? it.output : textOf(it.output) });
    } else if (/_call$/.test(type)) conv.push({ kind: 'assistant', text: '' });
  }
  return conv;
}

function handleResponses(body, res) {
  const tools = (body.tools || [])
    .map((t) => ({ name: t.name || (t.function && t.function.name) || t.type, schema: t.parameters || (t.function && t.function.parameters) || {} }))
    .filter((t) => t.name);
  const p = plan(responsesConv(body), tools);
  const respId = nextId('resp_mock');
  const created = Math.floor(Date.now() / 1000);
  const output = [];
  // phase as OpenAI's agentic models send it: a note before a tool call is commentary
  const message = (text, phase) => ({ id: nextId('msg_mock'), type: 'message', status: 'completed', role: 'assistant', phase, content: [{ type: 'output_text', text, annotations: [] }] });
  if (p.text) output.push(message(p.text, p.call ? 'commentary' : 'final_answer'));
  if (p.more) output.push(message(p.more, 'final_answer'));
  if (p.call) output.push({ id: nextId('fc_mock'), type: 'function_call', status: 'completed', call_id: nextId('call_mock'), name: p.call.name, arguments: JSON.stringify(p.call.args) });
  const usage = { input_tokens: p.inTok, input_tokens_details: { cached_tokens: 0 }, output_tokens: 25, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: p.inTok + 25 };
  const base = { id: respId, object: 'response', created_at: created, model: body.model, output: [], parallel_tool_calls: false, tool_choice: 'auto', tools: [] };
  if (!body.stream) return json(res, 200, { ...base, status: 'completed', output, usage });
  sseHeaders(res);
  let seq = 0;
  const ev = (type, o) => sse(res, type, { type, sequence_number: seq++, ...o });
  ev('response.created', { response: { ...base, status: 'in_progress' } });
  ev('response.in_progress', { response: { ...base, status: 'in_progress' } });
  output.forEach((/** @type {any} */ item, output_index) => {
    if (item.type === 'message') {
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      ev('response.content_part.added', { item_id: item.id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      const text = item.content[0].text;
      for (const c of chunks(text)) ev('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta: c });
      ev('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text });
      ev('response.content_part.done', { item_id: item.id, output_index, content_index: 0, part: item.content[0] });
      ev('response.output_item.done', { output_index, item });
    } else {
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const c of chunks(item.arguments, 2)) ev('response.function_call_arguments.delta', { item_id: item.id, output_index, delta: c });
      ev('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: item.arguments });
      ev('response.output_item.done', { output_index, item });
    }
  });
  ev('response.completed', { response: { ...base, status: 'completed', output, usage } });
  res.end();
}

// ------------------------------------------------------------ OpenAI Chat Completions
// The prompt of a user message: for content arrays, the last text part that is
// not wrapped in a tag such as <system-reminder> (Qwen Code puts reminders
// first) or <environment_details> (Kilo appends them after the prompt).
function promptText(content) {
  if (!Array.isArray(content)) return textOf(content);
  const texts = content.filter((b) => b && b.type === 'text' && typeof b.text === 'string' && b.text.trim() && !/^\s*<[a-z_-]+>/i.test(b.text)).map((b) => b.text);
  return texts.length ? texts[texts.length - 1] : textOf(content);
}

function chatConv(body) {
  const conv = [];
  for (const m of body.messages || []) {
    if (m.role === 'user') conv.push({ kind: 'user', text: promptText(m.content) });
    else if (m.role === 'tool') conv.push({ kind: 'tool_result', text: textOf(m.content) });
    else if (m.role === 'assistant') conv.push({ kind: 'assistant', text: textOf(m.content) });
  }
  return conv;
}

function handleChat(body, res) {
  const tools = (body.tools || []).map((t) => ({ name: t.function ? t.function.name : t.name, schema: t.function ? t.function.parameters : t.parameters })).filter((t) => t.name);
  const p = plan(chatConv(body), tools);
  const id = nextId('chatcmpl-mock');
  const created = Math.floor(Date.now() / 1000);
  const call = p.call ? { id: nextId('call_mock'), type: 'function', function: { name: p.call.name, arguments: JSON.stringify(p.call.args) } } : null;
  const finish = call ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: p.inTok, completion_tokens: 25, total_tokens: p.inTok + 25 };
  if (!body.stream) {
    const message = { role: 'assistant', content: (p.more ? `${p.text}\n\n${p.more}` : p.text) || null };
    if (call) message.tool_calls = [call];
    return json(res, 200, { id, object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message, finish_reason: finish }], usage });
  }
  sseHeaders(res);
  const chunk = (delta, finish_reason = null, extra = {}) =>
    sse(res, null, { id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason }], ...extra });
  chunk({ role: 'assistant', content: '' });
  const text = p.more ? `${p.text}\n\n${p.more}` : p.text;
  if (text) for (const c of chunks(text)) chunk({ content: c });
  if (call) {
    const parts = chunks(call.function.arguments, 2);
    chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: parts[0] } }] });
    for (const c of parts.slice(1)) chunk({ tool_calls: [{ index: 0, function: { arguments: c } }] });
  }
  chunk({}, finish);
  if (body.stream_options && body.stream_options.include_usage) sse(res, null, { id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage });
  sse(res, null, '[DONE]');
  res.end();
}

// ------------------------------------------------------------ Gemini
function geminiConv(body) {
  const conv = [];
  for (const c of body.contents || []) {
    const parts = c.parts || [];
    if (c.role === 'model') conv.push({ kind: 'assistant', text: parts.map((p) => p.text || '').join('') });
    else {
      const frs = parts.filter((p) => p.functionResponse);
      for (const fr of frs) conv.push({ kind: 'tool_result', text: JSON.stringify(fr.functionResponse.response) });
      if (!frs.length) conv.push({ kind: 'user', text: parts.map((p) => p.text || '').join('\n') });
    }
  }
  return conv;
}

function handleGemini(body, res, model, stream) {
  const tools = [];
  for (const t of body.tools || []) for (const f of t.functionDeclarations || []) tools.push({ name: f.name, schema: f.parameters || f.parametersJsonSchema || {} });
  const p = plan(geminiConv(body), tools);
  const parts = [];
  if (p.text) parts.push({ text: p.more ? `${p.text}\n\n${p.more}` : p.text });
  if (p.call) parts.push({ functionCall: { name: p.call.name, args: p.call.args } });
  const usageMetadata = { promptTokenCount: p.inTok, candidatesTokenCount: 25, totalTokenCount: p.inTok + 25 };
  const full = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: model, responseId: nextId('gem_mock') };
  // JSON-only requests (e.g. next-speaker / routing checks) want JSON text back.
  const gc = body.generationConfig || body.config || {};
  if (gc.responseMimeType === 'application/json' || gc.responseJsonSchema || gc.responseSchema) {
    const schema = gc.responseJsonSchema || gc.responseSchema || {};
    full.candidates[0].content.parts = [{ text: JSON.stringify(fakeJson(schema)) }];
  }
  if (!stream) return json(res, 200, full);
  sseHeaders(res);
  const ps = full.candidates[0].content.parts;
  // stream the text first, then the function call + finish reason
  const textParts = ps.filter((x) => x.text !== undefined);
  const other = ps.filter((x) => x.text === undefined);
  const textChunks = textParts.length ? chunks(textParts.map((x) => x.text).join('')) : [];
  textChunks.forEach((c, i) => {
    const last = i === textChunks.length - 1 && !other.length;
    sse(res, null, { candidates: [{ content: { role: 'model', parts: [{ text: c }] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }], ...(last ? { usageMetadata } : {}), modelVersion: model, responseId: full.responseId });
  });
  if (other.length || !textChunks.length) sse(res, null, { candidates: [{ content: { role: 'model', parts: other.length ? other : [{ text: '' }] }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: model, responseId: full.responseId });
  res.end();
}

function fakeJson(schema) {
  const s = schema || {};
  switch (s.type && String(s.type).toLowerCase()) {
    case 'object': {
      const o = {};
      for (const [k, v] of Object.entries(s.properties || {})) o[k] = fakeJson(v);
      // Gemini CLI's next-speaker check: let the user speak next.
      if ('next_speaker' in o) o.next_speaker = 'user';
      if ('reasoning' in o) o.reasoning = 'mock';
      return o;
    }
    case 'array': return [];
    case 'string': return s.enum ? s.enum[0] : 'mock';
    case 'number': case 'integer': return s.minimum !== undefined ? s.minimum : 1;
    case 'boolean': return false;
    default: return s.enum ? s.enum[0] : null;
  }
}

// ------------------------------------------------------------ Augment (Auggie CLI)
// Auggie talks to its "tenant URL" with Augment's own API: POST /get-models and
// POST /chat-stream (newline-delimited JSON chunks {text, nodes, stop_reason}).
// Request nodes: type 0 text_node, 1 tool_result_node, 4 ide_state_node; response
// nodes: type 0 raw text, 5 tool_use {tool_use_id, tool_name, input_json}.
function augmentConv(body) {
  const conv = [];
  const addNodes = (nodes) => {
    for (const n of nodes || []) {
      if (n.type === 1 && n.tool_result_node) conv.push({ kind: 'tool_result', text: String(n.tool_result_node.content || '') });
      else if (n.type === 0 && n.text_node) conv.push({ kind: 'user', text: String(n.text_node.content || '') });
    }
  };
  for (const h of body.chat_history || []) {
    if (h.request_message) conv.push({ kind: 'user', text: h.request_message });
    addNodes(h.request_nodes);
    conv.push({ kind: 'assistant', text: h.response_text || '' });
  }
  if (body.message) conv.push({ kind: 'user', text: body.message });
  addNodes(body.nodes);
  return conv;
}

// "[server-compact]" in the prompt: the first time per conversation, answer with
// summarize_and_retry (Augment's server-requested compaction); the client then
// summarizes its history (a chat-stream call with the summary prompt from
// /get-models' feature flag history_summary_params) and retries the prompt.
const augmentSummarized = new Set();

function handleAugmentChat(body, res) {
  const conv0 = augmentConv(body);
  const lastUser = [...conv0].reverse().find((m) => m.kind === 'user');
  const key = body.conversation_id || '';
  if (lastUser && /\[server-compact\]/.test(lastUser.text) && !augmentSummarized.has(key)) {
    augmentSummarized.add(key);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ text: '', nodes: [], summarize_and_retry: true }) + '\n');
    return;
  }
  const tools = (body.tool_definitions || []).map((t) => {
    let schema = {};
    try { schema = t.input_schema_json ? JSON.parse(t.input_schema_json) : t.input_schema || {}; } catch { /* keep {} */ }
    return { name: t.name, schema };
  }).filter((t) => t.name);
  const p = plan(conv0, tools);
  res.writeHead(200, { 'content-type': 'application/json' });
  const line = (o) => res.write(JSON.stringify(o) + '\n');
  const text = p.more ? `${p.text}\n\n${p.more}` : p.text || '';
  for (const c of chunks(text)) line({ text: c, nodes: [] });
  const nodes = [{ id: 0, type: 0, content: text }];
  if (p.call) nodes.push({ id: 1, type: 5, content: '', tool_use: { tool_use_id: nextId('toolu_mock'), tool_name: p.call.name, input_json: JSON.stringify(p.call.args) } });
  line({ text: '', nodes, stop_reason: p.call ? 3 : 1, unknown_blob_names: [], checkpoint_not_found: false, workspace_file_chunks: [] });
  res.end();
}

// ------------------------------------------------------------ server
const server = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (d) => (raw += d));
  req.on('end', () => {
    let body = {};
    try { body = raw ? JSON.parse(raw) : {}; } catch { body = { _unparsed: raw.slice(0, 2000) }; }
    const url = req.url;
    const pathname = url.split('?')[0];
    log({ method: req.method, url, headers: req.headers, body });
    try {
      if (req.method === 'POST' && /\/messages\/count_tokens$/.test(pathname)) return json(res, 200, { input_tokens: 120 });
      if (req.method === 'POST' && /\/messages$/.test(pathname)) return handleAnthropic(body, res);
      if (req.method === 'POST' && /\/responses$/.test(pathname)) return handleResponses(body, res);
      if (req.method === 'POST' && /\/chat\/completions$/.test(pathname)) return handleChat(body, res);
      let m;
      if (req.method === 'POST' && (m = pathname.match(/\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens|embedContent|batchEmbedContents)$/))) {
        if (m[2] === 'countTokens') return json(res, 200, { totalTokens: 120 });
        if (/embed/i.test(m[2])) return json(res, 200, { embedding: { values: [0, 0, 0] }, embeddings: [] });
        return handleGemini(body, res, m[1], m[2] === 'streamGenerateContent');
      }
      if (req.method === 'POST' && pathname === '/get-models') {
        // history_summary_params: what Augment's server sends so the client can
        // summarize (without a prompt and a tail size it never does)
        const history_summary_params = JSON.stringify({ trigger_on_total_tokens: 100000, history_tail_size_tokens_to_exclude: 1,
          prompt: 'Please summarize the conversation so far for a later continuation.' });
        return json(res, 200, { default_model: 'mock-model', models: [{ name: 'mock-model', suggested_prefix_char_count: 0, suggested_suffix_char_count: 0 }], languages: [], feature_flags: { history_summary_params } });
      }
      if (req.method === 'POST' && pathname === '/chat-stream') return handleAugmentChat(body, res);
      if (req.method === 'GET' && /\/models$/.test(pathname)) {
        return json(res, 200, { object: 'list', data: [{ id: 'mock-model', object: 'model', created: 0, owned_by: 'mock' }], models: [] });
      }
    } catch (e) {
      log({ error: String(e && e.stack) });
      return json(res, 500, { error: { message: String(e) } });
    }
    json(res, 404, { error: { message: `mock: no route for ${req.method} ${pathname}` } });
  });
});

server.on('connect', (req, socket) => {
  socket.on('error', () => {});
  log({ method: 'CONNECT', url: req.url, refused: true });
  socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
});
server.on('clientError', (err, socket) => {
  socket.on('error', () => {});
  if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
});
process.on('uncaughtException', (e) => log({ uncaught: String(e && e.stack) }));

server.listen(PORT, '127.0.0.1', () => {
  process.stdout.write(`mock-llm listening on http://127.0.0.1:${PORT} log=${LOG}\n`);
});
