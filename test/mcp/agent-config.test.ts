// `sivtr mcp --print-config AGENT` and `sivtr init --mcp AGENT`: the entry lands in the agent's own
// file beside everything already there, a backup is kept, and what is not ours is left alone.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'smol-toml';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = tempDir();
  env = cleanEnv(tmp.path);
});
afterEach(() => tmp.cleanup());

const json = (path: string): Record<string, any> => JSON.parse(readFileSync(path, 'utf8'));

describe('sivtr mcp --print-config', () => {
  it('prints each agent\'s own shape and where it goes', () => {
    const claude = runCli(['mcp', '--print-config', 'claude'], { env });
    expect(claude.code).toBe(0);
    expect(claude.stdout).toContain(`merge this into ${join(tmp.path, '.claude.json')}`);
    expect(JSON.parse(claude.stdout.replace(/^#.*\n/gm, ''))).toEqual({ mcpServers: { sivtr: { type: 'stdio', command: 'sivtr', args: ['mcp'], env: {} } } });
    const codex = runCli(['mcp', '--print-config', 'codex'], { env });
    expect(parse(codex.stdout)).toEqual({ mcp_servers: { sivtr: { command: 'sivtr', args: ['mcp'] } } });
    const opencode = runCli(['mcp', '--print-config', 'opencode'], { env });
    expect(JSON.parse(opencode.stdout.replace(/^#.*\n/gm, ''))).toEqual({ mcp: { sivtr: { type: 'local', command: ['sivtr', 'mcp'], enabled: true } } });
    const gemini = runCli(['mcp', '--print-config', 'gemini'], { env: cleanEnv(tmp.path, { GEMINI_CLI_HOME: '/g' }) });
    expect(gemini.stdout).toContain('merge this into /g/.gemini/settings.json');
  });

  it('an unknown agent is a usage error naming the known ones', () => {
    const r = runCli(['mcp', '--print-config', 'clade'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown agent "clade".*claude/);
    expect(r.stdout).toBe('');
  });
});

describe('sivtr init --mcp', () => {
  it('merges into Claude Code\'s ~/.claude.json, keeping every other key and a backup', () => {
    const file = join(tmp.path, '.claude.json');
    const before = { numStartups: 3, projects: { '/p': { mcpServers: {} } }, mcpServers: { other: { command: 'x', args: [] } } };
    writeFileSync(file, JSON.stringify(before));
    const r = runCli(['init', '--mcp', 'claude'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`added the sivtr MCP server to ${file}`);
    expect(json(file)).toEqual({ ...before, mcpServers: { other: { command: 'x', args: [] }, sivtr: { type: 'stdio', command: 'sivtr', args: ['mcp'], env: {} } } });
    expect(json(`${file}.sivtr-backup`)).toEqual(before);
    const again = runCli(['init', '--mcp', 'claude'], { env });
    expect(again.stderr).toContain('already starts `sivtr mcp`');
  });

  it('appends a table to Codex\'s config.toml, comments and layout untouched, and --uninstall takes exactly it away', () => {
    const file = join(tmp.path, '.codex', 'config.toml');
    mkdirSync(join(tmp.path, '.codex'));
    const before = '# my settings\nmodel = "o3"   # aligned comment\n\n[mcp_servers.other]\ncommand = "x"\n';
    writeFileSync(file, before);
    expect(runCli(['init', '--mcp', 'codex'], { env }).code).toBe(0);
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(parse(after)).toEqual({ model: 'o3', mcp_servers: { other: { command: 'x' }, sivtr: { command: 'sivtr', args: ['mcp'] } } });
    expect(runCli(['init', '--mcp', 'codex', '--uninstall'], { env }).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('creates the file when the agent has none; opencode gets its own shape', () => {
    expect(runCli(['init', '--mcp', 'gemini,opencode'], { env }).code).toBe(0);
    expect(json(join(tmp.path, '.gemini', 'settings.json'))).toEqual({ mcpServers: { sivtr: { command: 'sivtr', args: ['mcp'] } } });
    expect(json(join(tmp.path, '.config', 'opencode', 'opencode.json'))).toEqual({ mcp: { sivtr: { type: 'local', command: ['sivtr', 'mcp'], enabled: true } } });
    expect(existsSync(join(tmp.path, '.gemini', 'settings.json.sivtr-backup'))).toBe(false);
  });

  it('leaves a foreign server named sivtr, and a file that is not JSON, alone unless --force', () => {
    const file = join(tmp.path, '.gemini', 'settings.json');
    mkdirSync(join(tmp.path, '.gemini'));
    writeFileSync(file, JSON.stringify({ mcpServers: { sivtr: { command: 'someone-else' } } }));
    const refused = runCli(['init', '--mcp', 'gemini'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already has an MCP server named "sivtr" that does not start `sivtr mcp`.*--force/);
    expect(json(file)).toEqual({ mcpServers: { sivtr: { command: 'someone-else' } } });
    expect(runCli(['init', '--mcp', 'gemini', '--force'], { env }).code).toBe(0);
    expect(json(file).mcpServers.sivtr).toEqual({ command: 'sivtr', args: ['mcp'] });
    expect(json(`${file}.sivtr-backup`)).toEqual({ mcpServers: { sivtr: { command: 'someone-else' } } });

    const claude = join(tmp.path, '.claude.json');
    writeFileSync(claude, '{ "trailing": 1, }');
    const bad = runCli(['init', '--mcp', 'claude', '--force'], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/is not plain JSON.*leaves it alone/);
    expect(readFileSync(claude, 'utf8')).toBe('{ "trailing": 1, }');
  });

  it('--uninstall removes only our entry', () => {
    const file = join(tmp.path, '.copilot', 'mcp-config.json');
    expect(runCli(['init', '--mcp', 'copilot'], { env }).code).toBe(0);
    const withOther = json(file);
    withOther.mcpServers.other = { command: 'y' };
    writeFileSync(file, JSON.stringify(withOther));
    expect(runCli(['init', '--mcp', 'copilot', '--uninstall'], { env }).stderr).toContain('removed the sivtr MCP server');
    expect(json(file)).toEqual({ mcpServers: { other: { command: 'y' } } });
    expect(runCli(['init', '--mcp', 'copilot', '--uninstall'], { env }).stderr).toContain('no sivtr MCP server');
  });

  it('an unknown agent or a shell beside --mcp is a usage error', () => {
    expect(runCli(['init', '--mcp', 'nope'], { env })).toMatchObject({ code: 2 });
    expect(runCli(['init', 'bash', '--mcp', 'claude'], { env })).toMatchObject({ code: 2 });
  });
});
