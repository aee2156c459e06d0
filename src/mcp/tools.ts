// What each MCP tool answers, as text an agent can quote: every hit, record, session and diff side
// is named by its ref, so the agent can cite it and hand it back to `show`. The tools call the
// same functions as the CLI commands (search, show, sessions, diff); nothing here writes to a
// source, so the server is read-only by construction (search keeps its index cache up to date).
import { isAbsolute, resolve } from 'node:path';
import { SivtrError } from '../errors.js';
import { maskSecrets } from '../text/secrets.js';
import { formatRef, partRef } from '../memory/ref.js';
import type { ListOptions, SessionInfo, Unit } from '../memory/types.js';
import type { Aspect } from '../memory/render.js';
import type { WarmSearch } from '../store/engine.js';
import type { Progress } from '../store/sync.js';

/** `warm`: the server's open index, kept between calls. */
export type ToolContext = { env: NodeJS.ProcessEnv; cwd: string; warm?: WarmSearch };

/** `global` (everywhere), `workspace` (the directory the server runs in) or a directory. */
export type Scope = string | undefined;

/** Nobody watches a progress bar drawn by an MCP server. */
export const QUIET: Progress = { total() {}, step() {}, done() {} };

type Scoped = { global: boolean; subtree?: string };

/** What a `scope` argument asks for, in the terms of the CLI's --global / --scope. */
function scopeOf(scope: Scope, ctx: ToolContext, fallback: 'global' | 'workspace'): Scoped {
  const word = scope === undefined || scope === '' ? fallback : scope;
  if (word === 'global') return { global: true };
  if (word === 'workspace') return { global: false };
  if (!isAbsolute(word)) throw new SivtrError(`scope "${word}" is not global, workspace or an absolute directory`, 'e.g. scope: "global" or "/home/me/project"');
  return { global: false, subtree: resolve(word) };
}

const scopeLabel = (s: Scoped, ctx: ToolContext): string => (s.global ? 'in every workspace' : s.subtree !== undefined ? `under ${s.subtree}` : `in the workspace of ${ctx.cwd}`);

/** The predicate over one cwd that the CLI's scope flags decide with (agents/workspace.ts). */
async function cwdMatcher(s: Scoped, ctx: ToolContext): Promise<(cwd: string | null | undefined) => boolean> {
  const { scopeMatcher } = await import('../agents/workspace.js');
  const matches = scopeMatcher({ cwd: ctx.cwd, global: s.global, subtree: s.subtree });
  return (cwd) => matches(cwd == null ? undefined : [cwd]);
}

const isoMinute = (iso: string | null | undefined): string => (iso ? iso.replace(/:\d\d(\.\d+)?Z$/, 'Z') : '(no time)');

// Masked before it is cut: half a token cut off by the ellipsis no longer matches its rule, so the
// server's final mask would let it through.
const oneLine = (text: string, max = 100): string => {
  const line = maskSecrets(text).text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

// ── search ──────────────────────────────────────────────────────────────────────────────────

type PartKind = 'user' | 'assistant' | 'tool_call' | 'tool_output' | 'thinking';
type Field = 'content' | 'command' | 'output' | 'input' | 'title';

export type SearchArgs = {
  query: string;
  target?: string;
  /** Part kinds, as the CLI's --kind; a field name here is the older spelling of `in`. */
  kind?: PartKind | Field | PartKind[];
  in?: Field;
  since?: string;
  until?: string;
  status?: 'success' | 'failure' | 'unknown';
  scope?: string;
  limit?: number;
};

/**
 * `kind` and `in` as the CLI's --kind and --in. Before the two were told apart, `kind` took the
 * field names; an agent configured then (and the skill's wording) still sends them, so a field
 * name in `kind` is read as `in`.
 */
function kindAndField(args: SearchArgs, fields: readonly string[]): { kinds?: string[]; field: Field } {
  const kind = args.kind;
  if (typeof kind === 'string' && fields.includes(kind)) {
    if (args.in !== undefined && args.in !== kind) throw new SivtrError(`kind "${kind}" (the older spelling of in) and in "${args.in}" disagree`, `give where to look as in: "${args.in}" alone, and part kinds (user, assistant, tool_call, tool_output, thinking) as kind`);
    return { field: kind as Field };
  }
  return { kinds: kind === undefined ? undefined : [...new Set(typeof kind === 'string' ? [kind] : kind)], field: args.in ?? 'content' };
}

export async function searchTool(args: SearchArgs, ctx: ToolContext): Promise<string> {
  const { searchFor, SEARCH_FIELDS, coverageWords, totalWords } = await import('../cli/commands/search.js');
  const { kinds, field } = kindAndField(args, SEARCH_FIELDS);
  const limit = args.limit ?? 10;
  const scoped = scopeOf(args.scope, ctx, 'global');
  const accepts = scoped.global ? undefined : await cwdMatcher(scoped, ctx);
  const target = args.target && args.target !== 'all' ? [args.target] : [];
  const words = args.query.trim() === '' ? [] : [args.query];
  const result = await searchFor({
    words: [...target, ...words],
    field,
    kinds,
    status: args.status,
    since: args.since,
    until: args.until,
    limit,
    includeSelf: false,
    noIndex: false,
    env: ctx.env,
    progress: QUIET,
    warm: ctx.warm,
    scope: accepts ? { key: `${scoped.subtree !== undefined ? 'scope' : 'cwd'}:${scoped.subtree ?? ctx.cwd}`, accepts } : undefined,
  });
  if (args.target && args.target !== 'all' && result.target !== args.target) {
    throw new SivtrError(`target "${args.target}" is not all, terminal, agent, history or a provider`, 'e.g. target: "claude" or "terminal"');
  }
  const hits = result.hits;
  const where = `${result.target === 'all' ? 'every source' : result.target}${scoped.global ? '' : ` ${scopeLabel(scoped, ctx)}`}`;
  const what = result.query ? ` for ${JSON.stringify(result.query)}` : '';
  if (hits.length === 0) return `no hits${what} in ${where}\n`;
  const lines = [`${hits.length} of ${totalWords(result)} hits${coverageWords(result)}${what} in ${where}, best first. Cite a hit by its ref; read one whole with the show tool.`];
  hits.forEach((h, i) => {
    const flags = [h.kind, h.status === 'failure' ? 'failed' : undefined, h.all_terms ? undefined : 'some words only'].filter(Boolean).join(', ');
    lines.push('');
    lines.push(`${i + 1}. ${h.fullRef}  ${isoMinute(h.at)}${flags ? `  (${flags})` : ''}${h.cwd ? `  cwd ${h.cwd}` : ''}`);
    if (h.title) lines.push(`   ${oneLine(h.title, 120)}`);
    if (h.snippet) lines.push(`   ${h.snippet}`);
  });
  return lines.join('\n') + '\n';
}

// ── show ────────────────────────────────────────────────────────────────────────────────────

export type ShowArgs = { ref: string; raw?: boolean };

export async function showTool(args: ShowArgs, ctx: ToolContext): Promise<string> {
  const [{ resolveRef }, { refText }, { rawRecordsOf }, { requireRefSource }, { heading }, { isTerminalUnit }] = await Promise.all([
    import('../memory/resolve.js'),
    import('../cli/ref-text.js'),
    import('../cli/raw-view.js'),
    import('../cli/source-name.js'),
    import('../cli/output.js'),
    import('../memory/render.js'),
  ]);
  if (!args.ref.includes('/')) throw new SivtrError(`"${args.ref}" is not a ref`, 'a ref looks like terminal/3f2a9c1d/4 or claude/3f2a9c1d/2/p3; search or recent_commands give them');
  requireRefSource(args.ref);
  const resolved = await resolveRef(args.ref, listOptions(ctx, true));
  const { units, part, parts } = resolved;
  if (units.length === 0) return `${args.ref} holds nothing yet\n`;
  if (args.raw) return withNewline(`══ ${args.ref} (raw records) ══\n${(await rawRecordsOf(resolved)).text}`);
  if (part || parts) {
    const unit = units[0]!;
    const named = part ? partRef(unit, part.n) : `${unit.ref}/p${parts!.map((p) => p.n).join(',')}`;
    return withNewline(`══ ${named} ══\n${refText(resolved)}`);
  }
  // Each record and turn under its own ref, so every one of them can be cited.
  return withNewline(units.map((u) => (isTerminalUnit(u) ? `${heading(u.ref)}\n${refText({ ...resolved, units: [u] })}` : refText({ ...resolved, units: [u] }))).join('\n\n'));
}

const withNewline = (text: string): string => (text.endsWith('\n') ? text : `${text}\n`);

// ── recent_commands ─────────────────────────────────────────────────────────────────────────

export type RecentArgs = { n?: number; status?: 'success' | 'failure' | 'unknown'; cwd?: string };

const timeOf = (iso: string | undefined): number => (iso ? Date.parse(iso) || 0 : 0);

export async function recentCommandsTool(args: RecentArgs, ctx: ToolContext): Promise<string> {
  const [{ terminalSource }, { isOwnCommand }, { statusOf }, { unitText }] = await Promise.all([
    import('../memory/terminal-source.js'),
    import('../memory/recent.js'),
    import('../store/docs.js'),
    import('../memory/render.js'),
  ]);
  const n = args.n ?? 5;
  const scoped = args.cwd === undefined || args.cwd === '' ? undefined : scopeOf(args.cwd, ctx, 'global');
  const inScope = scoped && !scoped.global ? await cwdMatcher(scoped, ctx) : undefined;
  const opts = listOptions(ctx, true);
  const logs = (await terminalSource.list(opts)).sort((a, b) => timeOf(b.updatedAt) - timeOf(a.updatedAt));
  const found: { unit: Unit; id: string; at: number }[] = [];
  for (const log of logs) {
    // A log last written before the n-th newest record found so far cannot hold a newer one.
    if (found.length >= n && timeOf(log.updatedAt) < found[n - 1]!.at) break;
    const { units } = await terminalSource.open(log.id, opts);
    // A log is written in the order commands end: walking back from its last record, its n
    // newest that pass are found without reading (or parsing) the records before them.
    let kept = 0;
    for (let i = units.length - 1; i >= 0 && kept < n; i--) {
      const unit = units[i]!;
      if (isOwnCommand(unit)) continue;
      if (args.status && statusOf(unit) !== args.status) continue;
      if (inScope && !inScope(unit.cwd)) continue;
      found.push({ unit, id: log.id, at: timeOf(unit.at) });
      kept++;
    }
    found.sort((a, b) => b.at - a.at);
    found.length = Math.min(found.length, n);
  }
  const picked = found;
  const filters = [args.status, scoped && !scoped.global ? scopeLabel(scoped, ctx) : undefined].filter(Boolean).join(', ');
  if (picked.length === 0) {
    return `no terminal records${filters ? ` (${filters})` : ''} — commands are recorded once the shell hooks are installed (\`sivtr init bash|zsh|pwsh\`) or under \`sivtr shell\`\n`;
  }
  const out = [`the ${picked.length} latest terminal records${filters ? ` (${filters})` : ''}, newest first. Cite one by its ref; diff two with the diff tool.`];
  for (const { unit, id } of picked) {
    const exit = unit.exitCode === undefined ? 'exit ?' : `exit ${unit.exitCode}`;
    out.push('');
    out.push(`══ ${formatRef('terminal', id, unit.index)}  ${isoMinute(unit.at)}  ${exit}${unit.cwd ? `  cwd ${unit.cwd}` : ''} ══`);
    out.push(unitText(unit, 'block'));
  }
  return out.join('\n') + '\n';
}

// ── sessions ────────────────────────────────────────────────────────────────────────────────

export type SessionsArgs = { provider?: string; scope?: string; limit?: number };

function listOptions(ctx: ToolContext, global: boolean, subtree?: string): ListOptions {
  return subtree === undefined ? { env: ctx.env, cwd: ctx.cwd, global } : { env: ctx.env, cwd: ctx.cwd, global: false, scope: subtree };
}

export async function sessionsTool(args: SessionsArgs, ctx: ToolContext): Promise<string> {
  const [{ listSessions }, { requireSourceName }] = await Promise.all([import('../cli/commands/sessions.js'), import('../cli/source-name.js')]);
  if (args.provider !== undefined) requireSourceName(args.provider);
  const scoped = scopeOf(args.scope, ctx, 'workspace');
  const limit = args.limit ?? 20;
  const sessions: SessionInfo[] = await listSessions(args.provider, listOptions(ctx, scoped.global, scoped.subtree), limit);
  const where = scopeLabel(scoped, ctx);
  const dir = !scoped.global;
  if (sessions.length === 0) return `no ${args.provider ?? ''}${args.provider ? ' ' : ''}sessions ${where}${dir ? ' — pass scope: "global" to see every workspace' : ''}\n`;
  const lines = [`${sessions.length} ${args.provider ?? ''}${args.provider ? ' ' : ''}sessions ${where}, newest first. Pass a ref to show (a whole session) or a provider to search as target.`];
  for (const s of sessions) {
    const units = s.units === undefined ? '' : `  ${s.units} ${s.source === 'terminal' ? 'records' : 'turns'}`;
    const parent = s.parent !== undefined ? `  (inside ${s.source}/${s.parent})` : '';
    lines.push(`${formatRef(s.source, s.id)}  ${isoMinute(s.updatedAt)}${units}${s.cwd ? `  cwd ${s.cwd}` : ''}${parent}${s.title ? `  ${oneLine(s.title, 80)}` : ''}`);
  }
  return lines.join('\n') + '\n';
}

// ── diff ────────────────────────────────────────────────────────────────────────────────────

export type DiffArgs = { left: string; right: string; aspect?: 'output' | 'block' | 'input' | 'command' };

export async function diffTool(args: DiffArgs, ctx: ToolContext): Promise<string> {
  const [{ diffText }, { requireRefSource }] = await Promise.all([import('../cli/commands/diff.js'), import('../cli/source-name.js')]);
  requireRefSource(args.left);
  requireRefSource(args.right);
  const aspect: Aspect = args.aspect ?? 'output';
  const { text } = await diffText(args.left, args.right, aspect, { ...listOptions(ctx, true), includeSelf: false }, { color: false, sideBySide: false, width: 100 });
  return text;
}

// ── files ───────────────────────────────────────────────────────────────────────────────────

export type FilesArgs = { session?: string; scope?: string };

export async function filesTool(args: FilesArgs, ctx: ToolContext): Promise<string> {
  const [{ filesScope, ledgerText }, { isSourceName }, { looksLikeRef }] = await Promise.all([
    import('../cli/commands/files.js'),
    import('../memory/sources.js'),
    import('../memory/ref.js'),
  ]);
  if (args.session !== undefined && !isSourceName(args.session) && !looksLikeRef(args.session)) {
    throw new SivtrError(`"${args.session}" is not a session ref`, 'e.g. session: "claude/3f2a9c1d", a turn "codex/01a2/3", or a provider for its current session');
  }
  const scoped = scopeOf(args.scope, ctx, 'workspace');
  const scope = await filesScope(args.session, listOptions(ctx, scoped.global, scoped.subtree));
  // Refs with full session ids, every one of them: an agent cites the evidence, it does not skim it.
  const text = ledgerText({ ...scope, units: scope.jsonUnits }, 1000);
  return text ?? `no file writes proven in ${scope.label}\n`;
}

// ── overview and turns ──────────────────────────────────────────────────────────────────────

export type SessionArgs = { session: string };

/** The session a drill-down tool reads, found in every workspace (a ref names it exactly). */
async function drillSession(tool: string, session: string, ctx: ToolContext) {
  const [{ resolveSessionRef }, { requireRefSource }] = await Promise.all([import('../cli/session-arg.js'), import('../cli/source-name.js')]);
  if (session.includes('/')) requireRefSource(session);
  return resolveSessionRef(tool, session, listOptions(ctx, true));
}

export async function overviewTool(args: SessionArgs, ctx: ToolContext): Promise<string> {
  const { overviewMarkdown } = await import('../cli/commands/overview.js');
  const resolved = await drillSession('overview', args.session, ctx);
  // The full id, not the short one a terminal shows: the agent hands it back to turns and show.
  return overviewMarkdown(resolved, formatRef(resolved.session.info.source, resolved.session.info.id));
}

export async function turnsTool(args: SessionArgs, ctx: ToolContext): Promise<string> {
  const [{ turnsText }, { turnFacts }] = await Promise.all([import('../cli/commands/turns.js'), import('../memory/overview.js')]);
  const resolved = await drillSession('turns', args.session, ctx);
  const turns = turnFacts(resolved.session, resolved.units);
  const base = formatRef(resolved.session.info.source, resolved.session.info.id);
  // Each line is preceded by the turn's full ref, so a turn is cited the way show reads it.
  const lines = turnsText(turns, 60, false).split('\n');
  return `${turns.map((t, i) => `${base}/${t.index}  ${lines[i] ?? ''}`).join('\n')}\n`;
}
