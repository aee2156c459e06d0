// sivtr files [REF | --workspace] [--json] — the file ledger: every file a session (or every
// session and `sivtr run` capture of this workspace) wrote, with how many writes, the rules that
// prove them and the refs of the parts that are their evidence.
import { SivtrError } from '../../errors.js';
import { fileCounts, fileLedger, type Ledger, type LedgerFile } from '../../memory/file-ledger.js';
import { formatRef, looksLikeRef } from '../../memory/ref.js';
import { resolveRef } from '../../memory/resolve.js';
import { allProviders } from '../../agents/registry.js';
import { scopedSessions } from '../../memory/agent-source.js';
import { getSource, isSourceName } from '../../memory/sources.js';
import { terminalSource } from '../../memory/terminal-source.js';
import { historyUnit } from '../../memory/history-source.js';
import { HistoryStore } from '../../session/history-db.js';
import type { ListOptions, OpenedSession, Unit } from '../../memory/types.js';
import { scopeMatcher } from '../../agents/workspace.js';
import { count } from '../../plural.js';
import { note, outJson, shortPath, table, warn } from '../output.js';
import { requireRefSource } from '../source-name.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { listOptions, SCOPE_FLAGS } from './common.js';

export const spec: CommandSpec = {
  name: 'files',
  usage: '[session]',
  describe: 'the files a session wrote, each with the rule and the ref that prove it',
  positionals: [{ name: 'session', describe: 'a session or turn ref (claude/3f2a9c1d, codex/01a2/3) or a source for its current session; this workspace when omitted' }],
  flags: {
    workspace: { type: 'boolean', alias: 'w', describe: 'every session of the workspace (the default without a session; see --cwd, --scope, --global)' },
    json: { type: 'boolean', describe: 'print JSON' },
    ...SCOPE_FLAGS,
  },
  examples: [
    ['sivtr files claude/3f2a9c1d', 'what that Claude Code session wrote'],
    ['sivtr files --workspace --json', 'every write any session made in this repository'],
  ],
};

/** Refs in JSON name the full session id, so they still resolve when display prefixes grow. */
function withFullIds(units: Unit[], session: OpenedSession): Unit[] {
  // fields copied by name, not spread: a terminal record's fields are getters on a lazy unit
  return units.map((u) => {
    if (u.ref !== formatRef(u.source, u.session, u.index)) return u;
    const full: Unit = { ref: formatRef(u.source, session.info.id, u.index), source: u.source, session: session.info.id, index: u.index, parts: u.parts, title: u.title };
    const { at, cwd } = u;
    if (at !== undefined) full.at = at;
    if (cwd !== undefined) full.cwd = cwd;
    return full;
  });
}

export type Scope = { label: string; units: Unit[]; jsonUnits: Unit[]; base?: string };

async function sessionScope(key: string, opts: ListOptions): Promise<Scope> {
  if (isSourceName(key)) {
    const session = await getSource(key).open('current', opts);
    return { label: `${key}/${session.info.displayId}`, units: session.units, jsonUnits: withFullIds(session.units, session), base: session.info.cwd };
  }
  requireRefSource(key);
  const { session, units, part } = await resolveRef(key, opts);
  if (part) throw new SivtrError(`${key} names one part`, `give the turn or the session: \`sivtr files ${key.split('/').slice(0, -1).join('/')}\``, 2);
  return { label: key, units, jsonUnits: withFullIds(units, session), base: session.info.cwd };
}

/** Every session of the scope (terminal logs, `run` captures, then each agent's); records count where they ran. */
async function workspaceScope(opts: ListOptions): Promise<Scope> {
  const units: Unit[] = [];
  const jsonUnits: Unit[] = [];
  const inWorkspace = scopeMatcher({ cwd: opts.cwd, subtree: opts.scope });
  const why = (error: unknown): string => (error instanceof Error ? error.message : String(error));
  for (const info of await terminalSource.list(opts)) {
    let session: OpenedSession;
    try {
      session = await terminalSource.open(info.id, opts);
    } catch (error) {
      warn(`cannot read terminal/${info.displayId}: ${why(error)}`);
      continue;
    }
    // a terminal session wanders between directories: its records count where they ran
    const kept = opts.global ? session.units : session.units.filter((u) => u.cwd !== undefined && inWorkspace([u.cwd]));
    units.push(...kept);
    jsonUnits.push(...withFullIds(kept, session));
  }
  // `sivtr run` captures are commands with their output like terminal records (a piped
  // capture ran no command of its own); each counts where it ran.
  const store = HistoryStore.openForRead(opts.env);
  if (store) {
    try {
      for (const entry of store.since(0)) {
        if (entry.kind !== 'run' || entry.command === '') continue;
        if (!opts.global && (entry.cwd === undefined || !inWorkspace([entry.cwd]))) continue;
        const unit = historyUnit(entry);
        units.push(unit);
        jsonUnits.push(unit);
      }
    } finally {
      store.close();
    }
  }
  for (const provider of allProviders()) {
    try {
      for await (const opened of scopedSessions(provider, opts, (info, error) => warn(`cannot read ${provider.name}/${info.displayId}: ${why(error)}`))) {
        units.push(...opened.units);
        jsonUnits.push(...withFullIds(opened.units, opened));
      }
    } catch (error) {
      warn(`cannot list ${provider.name} sessions: ${why(error)}`);
    }
  }
  const where = opts.scope ?? opts.cwd;
  return { label: opts.global ? 'every workspace' : shortPath(where), units, jsonUnits, base: opts.global ? undefined : where };
}

function shownPath(f: LedgerFile, base: string | undefined): string {
  let p = f.path;
  if (f.host === undefined && base !== undefined && p.startsWith(base.endsWith('/') ? base : base + '/')) p = p.slice(base.length).replace(/^\/+/, '');
  else if (f.host === undefined) p = shortPath(p);
  return f.host !== undefined ? `${f.host}:${p}` : p;
}

function evidence(refs: string[], max = 3): string {
  return refs.length <= max ? refs.join(' ') : `${refs.slice(0, max).join(' ')} +${refs.length - max} more`;
}

export function ledgerJson(scope: string, ledger: Ledger): Record<string, unknown> {
  const counts = fileCounts(ledger);
  return {
    scope,
    files: counts.files,
    writes: counts.writes,
    items: ledger.files.map((f) => ({
      path: f.path,
      host: f.host ?? null,
      writes: f.writes,
      rules: f.rules,
      refs: f.refs,
      first_at: f.firstAt ?? null,
      last_at: f.lastAt ?? null,
    })),
  };
}

/** The ledger of a session, a turn or a workspace (every session when `key` is undefined). */
export async function filesScope(key: string | undefined, opts: ListOptions): Promise<Scope> {
  return key === undefined ? workspaceScope(opts) : sessionScope(key, opts);
}

/** What `sivtr files` prints: a count line and a table with the evidence refs; undefined when nothing was written. */
export function ledgerText(scope: Scope, evidenceRefs = 3): string | undefined {
  const ledger = fileLedger(scope.units);
  const { files, writes } = fileCounts(ledger);
  if (files === 0) return undefined;
  const rows = [['FILE', 'WRITES', 'RULES', 'EVIDENCE']];
  for (const f of ledger.files) rows.push([shownPath(f, scope.base), String(f.writes), f.rules.join(','), evidence(f.refs, evidenceRefs)]);
  return `${scope.label}: ${count(files, 'file')}, ${count(writes, 'write')}\n${table(rows)}`;
}

export async function run(args: ParsedArgs): Promise<number> {
  const key = args._[0];
  const opts = listOptions(args);
  if (key !== undefined && args.workspace) throw new SivtrError('give a session or --workspace, not both', 'e.g. `sivtr files claude/3f2a9c1d` or `sivtr files --workspace`', 2);
  if (key !== undefined && !isSourceName(key) && !looksLikeRef(key)) throw new SivtrError(`"${key}" is not a session ref`, 'e.g. `sivtr files claude/3f2a9c1d` or `sivtr files codex`', 2);
  const scope = await filesScope(key, opts);
  if (args.json) {
    outJson(ledgerJson(scope.label, fileLedger(scope.jsonUnits)));
    return 0;
  }
  const text = ledgerText(scope);
  if (text === undefined) {
    note(`no file writes proven in ${scope.label}`);
    return 0;
  }
  process.stdout.write(text);
  return 0;
}
