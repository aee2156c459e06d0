// `sivtr skill install|status|uninstall`: the one SKILL.md shipped in the package
// (skill/sivtr/SKILL.md) placed as `<skills dir>/sivtr` for every agent that loads skills. A
// symlink to the package's folder by default, so an upgrade reaches every agent at once; a copy
// with --copy, for a loader that does not follow links (status then says when a copy is stale).
// Ours is a link to our folder or a folder whose SKILL.md carries our `installed-by: sivtr`
// mark; anything else of that name is someone else's and is never overwritten: --force moves it
// aside, out of every skills folder (left inside one, it would load as a second skill).
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SivtrError } from '../errors.js';
import { SKILL_AGENTS, type SkillAgent } from './agents.js';

type Env = NodeJS.ProcessEnv;
export const SKILL_NAME = 'sivtr';
const MARK = /^\s+installed-by:\s*sivtr\s*$/m;

/** The package's skill folder (beside dist/ when bundled, beside src/ in a checkout). */
export function skillSource(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'skill', SKILL_NAME, 'SKILL.md')) && dirname(dir) !== dir) dir = dirname(dir);
  const source = join(dir, 'skill', SKILL_NAME);
  if (!existsSync(join(source, 'SKILL.md'))) throw new SivtrError('the skill file is missing from this install of sivtr', 'reinstall sivtr');
  return source;
}

export type SkillState =
  | { kind: 'missing' }
  | { kind: 'linked' }
  | { kind: 'copy'; stale: boolean }
  | { kind: 'broken-link'; target: string }
  | { kind: 'foreign'; what: string };

function readQuiet(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** A folder holding our SKILL.md: current when it reads as the package's does. */
function copyState(dir: string, source: string): SkillState | undefined {
  const text = readQuiet(join(dir, 'SKILL.md'));
  if (text === undefined || !MARK.test(text)) return undefined;
  return { kind: 'copy', stale: text !== readQuiet(join(source, 'SKILL.md')) };
}

/** What `<skills dir>/sivtr` is now. */
export function stateOf(path: string, source: string): SkillState {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return { kind: 'missing' };
  }
  if (st.isSymbolicLink()) {
    const target = resolve(dirname(path), readlinkSync(path));
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      // A link into an install that is gone is ours when it pointed at a sivtr skill folder.
      return /[/\\]skill[/\\]sivtr$/.test(target) ? { kind: 'broken-link', target } : { kind: 'foreign', what: `a link to ${target}` };
    }
    if (real === realpathSync(source)) return { kind: 'linked' };
    // A link into another install of sivtr (an older version elsewhere) holds our file too.
    return copyState(real, source) ?? { kind: 'foreign', what: `a link to ${target}` };
  }
  if (st.isDirectory()) return copyState(path, source) ?? { kind: 'foreign', what: 'a skill folder sivtr did not write' };
  return { kind: 'foreign', what: 'a file sivtr did not write' };
}

export const isOurs = (s: SkillState): boolean => s.kind === 'linked' || s.kind === 'copy' || s.kind === 'broken-link';

export type Mode = 'link' | 'copy';

export type AgentPlan = {
  agent: SkillAgent;
  /** On this machine (its folder exists), or named with --agent. */
  chosen: boolean;
  /** The agent's own `<skills dir>/sivtr`. */
  own: string;
  ownState: SkillState;
  /** A folder the agent also reads that holds (or will hold) ours, and for whom it does. */
  shared?: { path: string; state: SkillState; by: string };
};

/**
 * Which agents get the skill, and from which folder each one reads it. `installing`: as it will
 * be once installed in `mode` (a folder another agent's install fills counts; with `copy`, only a
 * copy does, since a link would not be followed); otherwise as it is now.
 */
export function planFor(env: Env, names: string[] | undefined, source: string, installing?: Mode): AgentPlan[] {
  const serving = new Map<string, string>(); // skills dir → the agent whose own folder it is
  return SKILL_AGENTS.filter((a) => names === undefined || names.includes(a.name)).map((agent) => {
    const chosen = names !== undefined || existsSync(agent.home(env));
    const own = join(agent.skillsDir(env), SKILL_NAME);
    const ownState = stateOf(own, source);
    const plan: AgentPlan = { agent, chosen, own, ownState };
    if (!chosen) return plan;
    if (!isOurs(ownState)) {
      for (const dir of agent.alsoReads(env)) {
        const path = join(dir, SKILL_NAME);
        const state = stateOf(path, source);
        const usable = isOurs(state) && (installing !== 'copy' || state.kind === 'copy');
        if ((installing !== undefined && serving.has(dir)) || usable) {
          plan.shared = { path, state, by: serving.get(dir) ?? 'an earlier install' };
          return plan;
        }
      }
    }
    serving.set(agent.skillsDir(env), agent.name);
    return plan;
  });
}

export type Action = { agent: string; path: string; did: string; problem?: boolean };

/** Where --force moves someone else's folder: beside the skills folder, hidden, never loaded. */
function setAside(path: string): string {
  const aside = join(dirname(dirname(path)), `.${SKILL_NAME}-skill-set-aside-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  renameSync(path, aside);
  return aside;
}

function place(path: string, source: string, mode: Mode): void {
  mkdirSync(dirname(path), { recursive: true });
  if (mode === 'link') symlinkSync(source, path, 'dir');
  else cpSync(source, path, { recursive: true });
}

export function install(plans: AgentPlan[], source: string, opts: { mode: Mode; force: boolean; dryRun: boolean }): Action[] {
  const actions: Action[] = [];
  const placed = new Set<string>();
  for (const plan of plans) {
    if (!plan.chosen) continue;
    const agent = plan.agent.name;
    if (plan.shared) {
      actions.push({ agent, path: plan.shared.path, did: `reads it there (${plan.shared.by === 'an earlier install' ? 'installed earlier' : `installed for ${plan.shared.by}`})` });
      continue;
    }
    const path = plan.own;
    if (placed.has(path)) continue;
    placed.add(path);
    const state = plan.ownState;
    if ((opts.mode === 'link' && state.kind === 'linked') || (opts.mode === 'copy' && state.kind === 'copy' && !state.stale)) {
      actions.push({ agent, path, did: opts.mode === 'link' ? 'already linked' : 'already a current copy' });
      continue;
    }
    if (state.kind === 'foreign' && !opts.force) {
      actions.push({ agent, path, did: `left alone: ${state.what} is there — look at it, or add --force to move it aside`, problem: true });
      continue;
    }
    let aside = '';
    if (opts.dryRun) {
      if (state.kind === 'foreign') aside = ` (${state.what} would be moved aside)`;
    } else {
      if (state.kind === 'foreign') aside = ` (${state.what} moved to ${setAside(path)})`;
      else if (state.kind !== 'missing') rmSync(path, { recursive: true, force: true });
      place(path, source, opts.mode);
    }
    const verb = opts.mode === 'link' ? `linked to ${source}` : `copied from ${source}`;
    actions.push({ agent, path, did: `${opts.dryRun ? 'would be ' : ''}${verb}${aside}` });
  }
  return actions;
}

/** Removes ours from each agent's own folder; what others wrote stays. */
export function uninstall(plans: AgentPlan[], opts: { dryRun: boolean }): Action[] {
  const actions: Action[] = [];
  const removed = new Set<string>();
  for (const plan of plans) {
    const agent = plan.agent.name;
    if (removed.has(plan.own)) continue;
    if (isOurs(plan.ownState)) {
      removed.add(plan.own);
      if (!opts.dryRun) rmSync(plan.own, { recursive: true, force: true });
      actions.push({ agent, path: plan.own, did: opts.dryRun ? 'would be removed' : 'removed' });
    } else if (plan.ownState.kind === 'foreign') {
      actions.push({ agent, path: plan.own, did: `left alone: ${plan.ownState.what}` });
    }
  }
  return actions;
}

export function describeState(state: SkillState): string {
  switch (state.kind) {
    case 'missing':
      return 'not installed';
    case 'linked':
      return 'linked (upgrades reach it)';
    case 'copy':
      return state.stale ? 'a stale copy — `sivtr skill install --copy` refreshes it' : 'a current copy';
    case 'broken-link':
      return `a link to ${state.target}, which is gone — \`sivtr skill install\` repairs it`;
    case 'foreign':
      return `${state.what}, not sivtr's`;
  }
}
