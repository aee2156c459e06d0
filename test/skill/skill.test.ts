// `sivtr skill install|status|uninstall` against a temp HOME laid out as each agent lays out its own.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const SOURCE = join(ROOT, 'skill', 'sivtr');
const SKILL = readFileSync(join(SOURCE, 'SKILL.md'), 'utf8');

let tmp: ReturnType<typeof tempDir>;
let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = tempDir();
  home = tmp.path;
  env = cleanEnv(home);
});
afterEach(() => tmp.cleanup());

const HOMES: Record<string, string> = { claude: '.claude', codex: '.codex', gemini: '.gemini', opencode: '.config/opencode', copilot: '.copilot', pi: '.pi/agent' };
const haveAgents = (...names: string[]): void => names.forEach((n) => mkdirSync(join(home, HOMES[n]!), { recursive: true }));
const skill = (...args: string[]) => runCli(['skill', ...args], { env });
const isLinkToSource = (path: string): boolean => lstatSync(path).isSymbolicLink() && realpathSync(path) === realpathSync(SOURCE);

describe('the SKILL.md', () => {
  it('has the front matter every loader asks for: a name matching its folder, a description within 1,024 characters', () => {
    const front = /^---\n([\s\S]*?)\n---\n/.exec(SKILL)?.[1];
    expect(front).toBeDefined();
    expect(front).toMatch(/^name: sivtr$/m);
    const description = /^description: (.+)$/m.exec(front!)?.[1] ?? '';
    expect(description.length).toBeGreaterThan(50);
    expect(description.length).toBeLessThanOrEqual(1024);
    expect(SKILL).toContain('recent_commands');
    expect(SKILL).toContain('sivtr search');
  });
});

describe('sivtr skill install', () => {
  it('links the skill folder into Claude Code\'s skills, and status reports it', () => {
    haveAgents('claude');
    const r = skill('install');
    expect(r.code).toBe(0);
    const path = join(home, '.claude', 'skills', 'sivtr');
    expect(isLinkToSource(path)).toBe(true);
    expect(readFileSync(join(path, 'SKILL.md'), 'utf8')).toBe(SKILL);
    expect(r.stdout).toMatch(/^claude\s+~\/\.claude\/skills\/sivtr: linked to /m);
    const st = skill('status');
    expect(st.stdout).toMatch(/^claude\s+~\/\.claude\/skills\/sivtr: linked \(upgrades reach it\)$/m);
    expect(st.stdout).toMatch(/^codex\s+not on this machine/m);
    expect(skill('install').stdout).toMatch(/already linked/);
  });

  it('every agent found gets it once: Codex\'s ~/.agents/skills serves Gemini, pi; ~/.claude/skills serves OpenCode and Copilot', () => {
    haveAgents('claude', 'codex', 'gemini', 'opencode', 'copilot', 'pi');
    expect(skill('install').code).toBe(0);
    expect(isLinkToSource(join(home, '.claude', 'skills', 'sivtr'))).toBe(true);
    expect(isLinkToSource(join(home, '.agents', 'skills', 'sivtr'))).toBe(true);
    for (const own of ['.gemini/skills', '.config/opencode/skills', '.copilot/skills', '.pi/agent/skills']) expect(existsSync(join(home, own, 'sivtr')), own).toBe(false);
    const st = skill('status').stdout;
    expect(st).toMatch(/^gemini\s+~\/\.agents\/skills\/sivtr: linked .*installed for codex/m);
    expect(st).toMatch(/^pi\s+~\/\.agents\/skills\/sivtr: linked .*installed for codex/m);
    expect(st).toMatch(/^opencode\s+~\/\.claude\/skills\/sivtr: linked .*installed for claude/m);
    expect(st).toMatch(/^copilot\s+~\/\.claude\/skills\/sivtr: linked .*installed for claude/m);
  });

  it('an agent alone gets its own folder; --agent picks, and the variables that move an agent are followed', () => {
    haveAgents('gemini');
    expect(skill('install').code).toBe(0);
    expect(isLinkToSource(join(home, '.gemini', 'skills', 'sivtr'))).toBe(true);
    const moved = cleanEnv(home, { CLAUDE_CONFIG_DIR: join(home, 'cc'), PI_CODING_AGENT_DIR: join(home, 'pi-dir') });
    expect(runCli(['skill', 'install', '--agent', 'claude,pi'], { env: moved }).code).toBe(0);
    expect(isLinkToSource(join(home, 'cc', 'skills', 'sivtr'))).toBe(true);
    expect(isLinkToSource(join(home, 'pi-dir', 'skills', 'sivtr'))).toBe(true);
    expect(existsSync(join(home, '.agents'))).toBe(false);
  });

  it('--copy writes a real folder; status marks it stale once it differs, and install --copy refreshes it', () => {
    haveAgents('codex');
    expect(skill('install', '--copy').code).toBe(0);
    const file = join(home, '.agents', 'skills', 'sivtr', 'SKILL.md');
    expect(lstatSync(join(home, '.agents', 'skills', 'sivtr')).isSymbolicLink()).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(SKILL);
    expect(skill('status').stdout).toMatch(/^codex\s+~\/\.agents\/skills\/sivtr: a current copy$/m);
    writeFileSync(file, SKILL.replace('# sivtr', '# sivtr (an older version)'));
    expect(skill('status').stdout).toMatch(/^codex\s+.*a stale copy — `sivtr skill install --copy` refreshes it/m);
    expect(skill('install', '--copy').stdout).toMatch(/copied from/);
    expect(readFileSync(file, 'utf8')).toBe(SKILL);
  });

  it('with --copy, an agent that would only find a link elsewhere gets a copy of its own', () => {
    haveAgents('codex', 'gemini');
    expect(skill('install').code).toBe(0);
    expect(skill('install', '--copy', '--agent', 'gemini').code).toBe(0);
    expect(readFileSync(join(home, '.gemini', 'skills', 'sivtr', 'SKILL.md'), 'utf8')).toBe(SKILL);
    expect(lstatSync(join(home, '.gemini', 'skills', 'sivtr')).isSymbolicLink()).toBe(false);
  });

  it('never overwrites a skill named sivtr that someone else wrote; --force moves it out of the skills folder first', () => {
    haveAgents('claude');
    const dir = join(home, '.claude', 'skills', 'sivtr');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'SKILL.md'), '---\nname: sivtr\ndescription: mine\n---\nmy own notes\n');
    const r = skill('install');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/left alone: a skill folder sivtr did not write is there — look at it, or add --force/);
    expect(readFileSync(join(dir, 'SKILL.md'), 'utf8')).toContain('my own notes');
    expect(skill('status').stdout).toMatch(/not sivtr's/);
    expect(skill('uninstall').stdout).toMatch(/left alone/);
    expect(readFileSync(join(dir, 'SKILL.md'), 'utf8')).toContain('my own notes');

    const forced = skill('install', '--force');
    expect(forced.code).toBe(0);
    expect(isLinkToSource(dir)).toBe(true);
    const aside = readdirSync(join(home, '.claude')).filter((n) => n.startsWith('.sivtr-skill-set-aside-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(home, '.claude', aside[0]!, 'SKILL.md'), 'utf8')).toContain('my own notes');
    expect(readdirSync(join(home, '.claude', 'skills'))).toEqual(['sivtr']);
  });

  it('--dry-run says what it would do and changes nothing', () => {
    haveAgents('claude', 'codex');
    const r = skill('install', '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^claude\s+~\/\.claude\/skills\/sivtr: would be linked to /m);
    expect(existsSync(join(home, '.claude', 'skills'))).toBe(false);
    expect(existsSync(join(home, '.agents'))).toBe(false);
  });

  it('with no agent here it says where it looked; an unknown agent or action is a usage error', () => {
    const none = skill('install');
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no agent that loads skills was found here .*--agent/);
    expect(skill('install', '--agent', 'claud')).toMatchObject({ code: 2 });
    expect(skill('install', '--agent', 'claud').stderr).toMatch(/unknown agent "claud".*claude/);
    expect(skill('instal').code).toBe(2);
  });
});

describe('sivtr skill uninstall', () => {
  it('removes links and copies it made, in every agent\'s folder, and nothing else', () => {
    haveAgents('claude', 'codex', 'gemini');
    expect(skill('install').code).toBe(0);
    expect(skill('install', '--copy', '--agent', 'gemini').code).toBe(0);
    mkdirSync(join(home, '.claude', 'skills', 'other'), { recursive: true });
    writeFileSync(join(home, '.claude', 'skills', 'other', 'SKILL.md'), 'x');
    const r = skill('uninstall');
    expect(r.code).toBe(0);
    expect(r.stdout.match(/: removed$/gm)).toHaveLength(3);
    for (const d of ['.claude/skills', '.agents/skills', '.gemini/skills']) expect(existsSync(join(home, d, 'sivtr')), d).toBe(false);
    expect(readdirSync(join(home, '.claude', 'skills'))).toEqual(['other']);
  });
});
