// The file ledger: which files a session wrote, each write with the rule that proves it and the
// ref of the part that is its evidence. A path enters only on proof: *observed* from a tool
// whose job is writing a file (Write, Edit, apply_patch, write_file, …, or a change the
// provider recorded), or *derived* from a shell command's syntax (shell-writes.ts). A tool call
// whose result the provider flagged as an error is no proof — it may have been refused before it
// ran — unless the result carries an exit code: then the command ran, and its redirections
// wrote even when it exited non-zero (`npm test > test.log`). `fileCounts` is the one count
// every view (overview, `files`, `--json`) prints.
import { posix } from 'node:path';
import { patchedFiles } from './patch-files.js';
import { partRef } from './ref.js';
import { shellCallOf, toolArgs } from './shell-calls.js';
import { shellWrites } from './shell-writes.js';
import type { Part, Unit } from './types.js';

export type FileWrite = {
  /** Absolute when the directory it was written from is known; as written otherwise. */
  path: string;
  /** The machine written on, when it is not this one. */
  host?: string;
  how: 'observed' | 'derived';
  /** The tool (`Write`, `apply_patch`) or the shell rule (`>`, `tee -a`, `sed -i`, `ssh …`). */
  rule: string;
  /** The part that proves it: `claude/3f2a9c1d/2/p4`. */
  ref: string;
  at?: string;
};

export type LedgerFile = {
  path: string;
  host?: string;
  writes: number;
  rules: string[];
  refs: string[];
  firstAt?: string;
  lastAt?: string;
};

export type Ledger = { files: LedgerFile[]; writes: number };

/** Tool names (lower-cased, `-`/`.` as `_`) whose call writes the file its arguments name. */
const WRITE_TOOLS = new Set([
  'write',
  'edit',
  'multiedit',
  'multi_edit',
  'notebookedit',
  'notebook_edit',
  'edit_notebook',
  'create',
  'create_file',
  'write_file',
  'writefile',
  'write_text_file',
  'fs_write',
  'replace',
  'edit_file',
  'editfile',
  'save_file',
  'str_replace',
  'str_replace_editor',
  'str_replace_based_edit_tool',
  'file_editor',
  'write_to_file',
  'replace_in_file',
  'insert_content',
  'search_and_replace',
  'search_replace',
  'insert_edit_into_file',
  'replace_string_in_file',
  'multi_replace_string_in_file',
  'strreplacefile',
  'str_replace_file',
  'text_editor',
]);
/** Tools whose input is a patch naming its files. */
const PATCH_TOOLS = new Set(['apply_patch', 'applypatch', 'patch', 'apply_diff']);
const PATH_FIELDS = ['file_path', 'filePath', 'filepath', 'path', 'target_file', 'targetFile', 'notebook_path', 'absolute_path', 'file', 'filename', 'target'];
const PATCH_FIELDS = ['input', 'patch', 'patch_text', 'patchText', 'diff'];
/** Editor tools that also read: their `command` says which. */
const READ_COMMANDS = new Set(['view', 'read', 'list']);
/** An ACP client's record of a file change (`[diff: path]`, see agents/grok.ts). */
const RECORDED_DIFF = /^\[diff: (.+)\]$/gm;

/** A tool's name as the sets list it; an MCP server's prefix (`developer__text_editor`) is dropped. */
const toolKey = (label: string): string => {
  const key = label.toLowerCase().replace(/[-.]/g, '_');
  const cut = key.lastIndexOf('__');
  return cut === -1 ? key : key.slice(cut + 2);
};

function resolvePath(path: string, cwd: string | undefined): string {
  if (path.startsWith('/') || path.startsWith('~') || /^[A-Za-z]:[\\/]/.test(path)) return path.startsWith('/') ? posix.normalize(path) : path;
  return cwd !== undefined && cwd.startsWith('/') ? posix.resolve(cwd, path) : path;
}

/** The calls whose result does not show that they ran: flagged as an error, without an exit code. */
function unprovenCalls(parts: readonly Part[]): Set<Part> {
  const failed = new Set<Part>();
  const calls = parts.filter((p) => p.kind === 'tool_call');
  const byId = new Map(calls.filter((c) => c.callId !== undefined).map((c) => [c.callId!, c]));
  let lastCall: Part | undefined;
  for (const p of parts) {
    if (p.kind === 'tool_call') lastCall = p;
    else if (p.kind === 'tool_output') {
      const call = (p.callId !== undefined ? byId.get(p.callId) : undefined) ?? lastCall;
      if (call && p.isError && p.exitCode === undefined) failed.add(call);
    }
  }
  return failed;
}

function observedWrites(part: Part, cwd: string | undefined): { path: string; rule: string }[] {
  const label = part.label ?? '';
  const key = toolKey(label);
  const args = toolArgs(part);
  if (PATCH_TOOLS.has(key)) {
    let patch = args === undefined ? part.text : undefined;
    if (args) for (const f of PATCH_FIELDS) if (typeof args[f] === 'string') patch ??= args[f] as string;
    const base = typeof args?.workdir === 'string' ? args.workdir : cwd;
    const files = patch !== undefined ? patchedFiles(patch) : [];
    if (files.length === 0 && args) {
      const single = PATH_FIELDS.map((f) => args[f]).find((v): v is string => typeof v === 'string' && v !== '');
      if (single) return [{ path: resolvePath(single, base), rule: label }];
    }
    return files.map((f) => ({ path: resolvePath(f, base), rule: label }));
  }
  if (!WRITE_TOOLS.has(key) || !args) return [];
  const command = typeof args.command === 'string' ? args.command : undefined;
  if (command !== undefined && READ_COMMANDS.has(command)) return [];
  for (const f of PATH_FIELDS) {
    const v = args[f];
    if (typeof v === 'string' && v !== '') return [{ path: resolvePath(v, cwd), rule: label }];
  }
  return [];
}

/**
 * The writes one unit (a turn or a terminal record) proves, in part order. A change the agent
 * recorded itself is one more observed write only where nothing before it in the unit proves
 * it: a call's record against that call's own writes, a record of several calls (a step's or a
 * process's summary) against every write of the turn before it. Deciding within the unit keeps
 * a turn's count the same whether it is counted alone or with its session.
 */
export function unitWrites(unit: Unit): FileWrite[] {
  const out: FileWrite[] = [];
  // read once: a terminal record's parts are built from its log line on every access
  const parts = unit.parts;
  const cwd = unit.cwd;
  const failed = unprovenCalls(parts);
  const byCall = new Map<string, Set<string>>();
  const inTurn = new Set<string>();
  for (const part of parts) {
    const ref = partRef(unit, part.n);
    const at = part.timestamp ?? unit.at;
    const add = (w: Omit<FileWrite, 'ref'>): void => {
      const full: FileWrite = { ...w, ref };
      if (at !== undefined) full.at = at;
      out.push(full);
      inTurn.add(fileKey(full));
      if (part.callId !== undefined) {
        let paths = byCall.get(part.callId);
        if (!paths) byCall.set(part.callId, (paths = new Set()));
        paths.add(fileKey(full));
      }
    };
    if (part.kind === 'tool_call' || part.kind === 'command' || part.kind === 'tool_output') {
      if (!failed.has(part)) proofsOf(part, cwd, add);
    }
    for (const change of part.changes ?? []) {
      const seen = change.scope === 'call' ? (part.callId !== undefined ? byCall.get(part.callId) : undefined) : inTurn;
      for (const file of change.files) {
        const path = resolvePath(file, cwd);
        if (seen?.has(fileKey({ path }))) continue;
        add({ path, how: 'observed', rule: change.record });
      }
    }
  }
  return out;
}

/** What one tool call, tool output or terminal command proves from its own text and arguments. */
function proofsOf(part: Part, cwd: string | undefined, add: (w: Omit<FileWrite, 'ref'>) => void): void {
  if (part.kind === 'tool_output') {
    for (const m of part.text.matchAll(RECORDED_DIFF)) add({ path: resolvePath(m[1]!, cwd), how: 'observed', rule: 'recorded diff' });
    return;
  }
  const shell = shellCallOf(part);
  if (shell) {
    const dir = shell.cwd ?? cwd;
    for (const w of shellWrites(shell.command, dir !== undefined && dir.startsWith('/') ? dir : undefined)) {
      add(w.host !== undefined ? { path: w.path, host: w.host, how: 'derived', rule: w.rule } : { path: w.path, how: 'derived', rule: w.rule });
    }
    return;
  }
  if (part.kind === 'tool_call') for (const w of observedWrites(part, cwd)) add({ path: w.path, how: 'observed', rule: w.rule });
}

/** Every write of these units. */
export function fileWrites(units: readonly Unit[]): FileWrite[] {
  return units.flatMap(unitWrites);
}

const fileKey = (w: { path: string; host?: string }): string => `${w.host ?? ''}\u0000${w.path}`;

/** The writes grouped by file (and host), files in the order they were first written. */
export function ledgerOf(writes: readonly FileWrite[]): Ledger {
  const byFile = new Map<string, LedgerFile>();
  for (const w of writes) {
    const key = fileKey(w);
    let f = byFile.get(key);
    if (!f) {
      f = { path: w.path, writes: 0, rules: [], refs: [] };
      if (w.host !== undefined) f.host = w.host;
      byFile.set(key, f);
    }
    f.writes++;
    const rule = `${w.how}:${w.rule}`;
    if (!f.rules.includes(rule)) f.rules.push(rule);
    if (!f.refs.includes(w.ref)) f.refs.push(w.ref);
    if (w.at !== undefined) {
      if (f.firstAt === undefined || w.at < f.firstAt) f.firstAt = w.at;
      if (f.lastAt === undefined || w.at > f.lastAt) f.lastAt = w.at;
    }
  }
  return { files: [...byFile.values()], writes: writes.length };
}

export function fileLedger(units: readonly Unit[]): Ledger {
  return ledgerOf(fileWrites(units));
}

/** Distinct files and write actions: the figures every view of the ledger prints. */
export function fileCounts(ledger: Ledger): { files: number; writes: number } {
  return { files: ledger.files.length, writes: ledger.writes };
}
