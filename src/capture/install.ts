// `sivtr init`: marked, idempotent blocks in the user's rc file (or PowerShell profile). One block
// loads the hooks at the end of the rc; the optional auto-start block at the top re-runs the
// interactive shell under `sivtr shell`, guarded against recursion and non-interactive use.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { hookPath, psQuote, shQuote, type ShellKind } from './hooks.js';

type Env = NodeJS.ProcessEnv;

export const BLOCK = { hooks: 'sivtr', autoStart: 'sivtr auto-start' } as const;

const begin = (name: string): string => `# >>> ${name} >>>`;
const end = (name: string): string => `# <<< ${name} <<<`;

const home = (env: Env): string => env.HOME || env.USERPROFILE || homedir();

/** The rc file `init` edits: ~/.bashrc, $ZDOTDIR/.zshrc, or pwsh's CurrentUserCurrentHost profile. */
export function rcFile(kind: ShellKind, env: Env = process.env, platform = process.platform): string {
  if (kind === 'bash') return join(home(env), '.bashrc');
  if (kind === 'zsh') return join(env.ZDOTDIR || home(env), '.zshrc');
  if (platform === 'win32') return join(home(env), 'Documents', 'PowerShell', 'Microsoft.PowerShell_profile.ps1');
  return join(env.XDG_CONFIG_HOME || join(home(env), '.config'), 'powershell', 'Microsoft.PowerShell_profile.ps1');
}

/** The launcher of this installation, callable without sivtr on PATH. */
export function sivtrInvocation(): { node: string; bin: string } {
  const bin = resolve(dirname(hookPath('bash')), '..', 'bin', 'sivtr.js');
  return { node: process.execPath, bin };
}

/** What `eval "$(sivtr init bash --print)"` runs: load the hooks. */
export function hooksSnippet(kind: ShellKind, env: Env = process.env): string {
  const hook = hookPath(kind, env);
  if (kind === 'pwsh') return `if (Test-Path -LiteralPath ${psQuote(hook)}) { . ${psQuote(hook)} }`;
  return `[ -f ${shQuote(hook)} ] && . ${shQuote(hook)}`;
}

function autoStartSnippet(kind: ShellKind): string {
  const { node, bin } = sivtrInvocation();
  if (kind === 'pwsh') {
    return [
      '# Re-run this interactive PowerShell under `sivtr shell` (exit code 222: the recorder could not start).',
      `if (-not $env:SIVTR_PTY_PROXY -and -not $env:SIVTR_DISABLE -and [Environment]::UserInteractive -and -not [Console]::IsInputRedirected -and -not [Console]::IsOutputRedirected -and -not ([Environment]::GetCommandLineArgs() | Where-Object { $_ -match '^-(c|command|f|file|noni|noninteractive|enc|encodedcommand)' })) {`,
      `  & ${psQuote(node)} ${psQuote(bin)} shell pwsh --from-rc`,
      '  if ($LASTEXITCODE -ne 222) { exit $LASTEXITCODE }',
      '}',
    ].join('\n');
  }
  const interactive = kind === 'zsh' ? '[[ -o interactive ]]' : '[[ $- == *i* ]]';
  return [
    '# Re-run this interactive shell under `sivtr shell` (exit code 222: the recorder could not start).',
    `if ${interactive} && [[ -t 0 && -t 1 && -z \${SIVTR_PTY_PROXY-} && -z \${SIVTR_DISABLE-} && \${TERM-dumb} != dumb && -z \${SSH_ORIGINAL_COMMAND-} ]]; then`,
    `  ${shQuote(node)} ${shQuote(bin)} shell ${kind} --from-rc`,
    '  __sivtr_rc=$?',
    '  [[ $__sivtr_rc != 222 ]] && exit $__sivtr_rc',
    '  unset __sivtr_rc',
    'fi',
  ].join('\n');
}

function blockText(name: string, kind: ShellKind, body: string): string {
  return `${begin(name)}\n# Added by \`sivtr init ${kind}\`; remove with \`sivtr init ${kind} --uninstall\`.\n${body}\n${end(name)}\n`;
}

/** Removes a marked block; returns the text and whether one was there. */
function removeBlock(text: string, name: string): { text: string; found: boolean } {
  const start = text.indexOf(begin(name) + '\n');
  if (start < 0) return { text, found: false };
  const stop = text.indexOf(end(name), start);
  if (stop < 0) return { text, found: false }; // a damaged block: leave the user's file alone
  let after = stop + end(name).length;
  if (text[after] === '\n') after++;
  return { text: text.slice(0, start) + text.slice(after), found: true };
}

export type InitStatus = { rc: string; hooks: boolean; autoStart: boolean };

export function initStatus(kind: ShellKind, env: Env = process.env): InitStatus {
  const rc = rcFile(kind, env);
  const text = existsSync(rc) ? readFileSync(rc, 'utf8') : '';
  return { rc, hooks: text.includes(begin(BLOCK.hooks) + '\n'), autoStart: text.includes(begin(BLOCK.autoStart) + '\n') };
}

function writeRc(rc: string, text: string): void {
  mkdirSync(dirname(rc), { recursive: true });
  const mode = existsSync(rc) ? statSync(rc).mode & 0o777 : 0o644;
  const temp = `${rc}.sivtr-${process.pid}.tmp`;
  writeFileSync(temp, text, { mode });
  chmodSync(temp, mode);
  renameSync(temp, rc);
}

/**
 * Installs (or refreshes in place) the hooks block at the end and, if asked, auto-start at the top.
 * `autoStart` undefined keeps whatever was chosen before.
 */
export function install(kind: ShellKind, opts: { autoStart?: boolean }, env: Env = process.env): InitStatus {
  const rc = rcFile(kind, env);
  const original = existsSync(rc) ? readFileSync(rc, 'utf8') : '';
  let text = removeBlock(original, BLOCK.hooks).text;
  const hadAutoStart = removeBlock(text, BLOCK.autoStart);
  text = hadAutoStart.text;
  if (text !== '' && !text.endsWith('\n')) text += '\n';
  text += blockText(BLOCK.hooks, kind, hooksSnippet(kind, env));
  if (opts.autoStart ?? hadAutoStart.found) text = blockText(BLOCK.autoStart, kind, autoStartSnippet(kind)) + text;
  if (text !== original) writeRc(rc, text);
  return initStatus(kind, env);
}

export function uninstall(kind: ShellKind, env: Env = process.env): { rc: string; removed: boolean } {
  const rc = rcFile(kind, env);
  if (!existsSync(rc)) return { rc, removed: false };
  const original = readFileSync(rc, 'utf8');
  const a = removeBlock(original, BLOCK.hooks);
  const b = removeBlock(a.text, BLOCK.autoStart);
  if (a.found || b.found) writeRc(rc, b.text);
  return { rc, removed: a.found || b.found };
}
