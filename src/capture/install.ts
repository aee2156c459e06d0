// `sivtr init`: marked, idempotent blocks in the user's rc file (or PowerShell profile). One block
// loads the hooks at the end of the rc; the optional auto-start block at the top re-runs the
// interactive shell under `sivtr shell`, guarded against recursion and non-interactive use.
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { home, writeFileAtomic } from '../files.js';
import { delimiter, dirname, join, resolve } from 'node:path';
import { hookPath, psQuote, shQuote, type ShellKind } from './hooks.js';
import { findExecutable } from './which.js';

type Env = NodeJS.ProcessEnv;

export const BLOCK = { hooks: 'sivtr', autoStart: 'sivtr auto-start', keys: 'sivtr keybinding' } as const;

/** The key binding files (Alt-O opens the picker), beside the hooks. */
export const KEYS_FILE: Record<ShellKind, string> = { bash: 'sivtr-keys.bash', zsh: 'sivtr-keys.zsh', pwsh: 'sivtr-keys.ps1' };

/** `sivtr shell --rc-status` prints `sivtr-ran CODE` once it ran the shell to its end; nothing else lets the block exit. */
export const RAN_LINE = 'sivtr-ran';

const begin = (name: string): string => `# >>> ${name} >>>`;
const end = (name: string): string => `# <<< ${name} <<<`;


/** The rc file `init` edits: ~/.bashrc, $ZDOTDIR/.zshrc, or pwsh's CurrentUserCurrentHost profile. */
export function rcFile(kind: ShellKind, env: Env = process.env, platform = process.platform): string {
  if (kind === 'bash') return join(home(env), '.bashrc');
  if (kind === 'zsh') return join(env.ZDOTDIR || home(env), '.zshrc');
  if (platform === 'win32') return join(home(env), 'Documents', 'PowerShell', 'Microsoft.PowerShell_profile.ps1');
  return join(env.XDG_CONFIG_HOME || join(home(env), '.config'), 'powershell', 'Microsoft.PowerShell_profile.ps1');
}

/** How the auto-start block runs sivtr: `node bin` when the launcher is our JS file, else `bin` itself. */
export type Launcher = { node: string; bin: string; viaNode: boolean };

/**
 * The `sivtr` an auto-start block calls: the one on PATH at init time, so that an upgrade in place
 * (npm install -g, git pull) keeps working; else this installation's bin/sivtr.js. npx caches and a
 * project's node_modules/.bin are on PATH only while npm runs something, so they do not count.
 * The node that runs `init` is kept too: the block runs at the top of the rc, before nvm and the
 * like have put a node on PATH.
 */
export function autoStartLauncher(env: Env = process.env, platform = process.platform): Launcher {
  const own = resolve(dirname(hookPath('bash', env)), '..', 'bin', 'sivtr.js');
  const node = process.execPath;
  if (platform === 'win32') return { node, bin: own, viaNode: true }; // PATH holds .cmd/.ps1 shims there
  const lasting = (env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !/[/\\]_npx[/\\]/.test(dir) && !/node_modules[/\\]\.bin[/\\]?$/.test(dir))
    .join(delimiter);
  const onPath = findExecutable('sivtr', { ...env, PATH: lasting });
  if (!onPath) return { node, bin: own, viaNode: true };
  let real = onPath;
  try {
    real = realpathSync(onPath);
  } catch {
    // keep the path as found
  }
  return { node, bin: onPath, viaNode: real.endsWith('.js') };
}

/** What `eval "$(sivtr init bash --print)"` runs: load the hooks. */
export function hooksSnippet(kind: ShellKind, env: Env = process.env): string {
  const hook = hookPath(kind, env);
  if (kind === 'pwsh') return `if (Test-Path -LiteralPath ${psQuote(hook)}) { . ${psQuote(hook)} }`;
  return `[ -f ${shQuote(hook)} ] && . ${shQuote(hook)}`;
}

/**
 * The key binding block: which sivtr the widget runs (the one of init time, as auto-start does),
 * then the binding file. Loading it runs nothing: the widget starts sivtr only when Alt-O is pressed.
 */
export function keysSnippet(kind: ShellKind, env: Env = process.env): string {
  const launcher = autoStartLauncher(env);
  const file = join(dirname(hookPath(kind, env)), KEYS_FILE[kind]);
  const node = launcher.viaNode ? launcher.node : '';
  if (kind === 'pwsh') {
    return [
      `$global:__SivtrPickNode = ${psQuote(node)}; $global:__SivtrPickBin = ${psQuote(launcher.bin)}`,
      `if (Test-Path -LiteralPath ${psQuote(file)}) { . ${psQuote(file)} }`,
    ].join('\n');
  }
  return [`__sivtr_pick_node=${shQuote(node)} __sivtr_pick_bin=${shQuote(launcher.bin)}`, `[ -f ${shQuote(file)} ] && . ${shQuote(file)}`].join('\n');
}

/** The line a shell prints when auto-start could not record it, around the reason: it then carries on as a plain shell. */
function offLine(kind: ShellKind, rc: string): [string, string] {
  return ['sivtr: recording is off in this shell (', `); reinstall sivtr and run 'sivtr init ${kind} --auto-start', or delete the sivtr auto-start block from ${rc}`];
}

/**
 * The auto-start block re-runs the interactive shell under `sivtr shell`. The rc exits only when the
 * recorder says, with a `sivtr-ran CODE` line on its stderr (kept in a private temp file), that it
 * ran the user's shell to its end. A missing launcher or node, a crash, a signal, anything else:
 * one line says recording is off and why, and this shell goes on as a plain one.
 */
function autoStartSnippet(kind: ShellKind, env: Env): string {
  const launcher = autoStartLauncher(env);
  const rc = rcFile(kind, env);
  const [before, after] = offLine(kind, rc);
  if (kind === 'pwsh') {
    const run = launcher.viaNode ? '& $__sivtr_node $__sivtr_bin' : '& $__sivtr_bin';
    return [
      '# Re-run this interactive PowerShell under `sivtr shell`; exit only when the recorder reports that it ran',
      '# the shell to its end (a `sivtr-ran CODE` line). Otherwise carry on unrecorded, saying so in one line.',
      `if (-not $env:SIVTR_PTY_PROXY -and -not $env:SIVTR_DISABLE -and [Environment]::UserInteractive -and -not [Console]::IsInputRedirected -and -not [Console]::IsOutputRedirected -and -not ([Environment]::GetCommandLineArgs() | Where-Object { $_ -match '^-(c|command|f|file|noni|noninteractive|enc|encodedcommand)' })) {`,
      `  $__sivtr_node = ${psQuote(launcher.node)}; $__sivtr_bin = ${psQuote(launcher.bin)}; $__sivtr_why = $null; $__sivtr_ran = $null`,
      launcher.viaNode
        ? "  if (-not (Test-Path -LiteralPath $__sivtr_node -PathType Leaf)) { $__sivtr_node = (Get-Command node -CommandType Application -ErrorAction Ignore | Select-Object -First 1).Source }"
        : '',
      '  if (-not (Test-Path -LiteralPath $__sivtr_bin -PathType Leaf)) { $__sivtr_why = "$__sivtr_bin is gone" }',
      launcher.viaNode ? "  elseif (-not $__sivtr_node) { $__sivtr_why = 'node is not on PATH' }" : '',
      '  else {',
      '    $__sivtr_st = Join-Path ([IO.Path]::GetTempPath()) "sivtr-rc-$PID-$([guid]::NewGuid().ToString(\'N\'))"',
      `    ${run} shell pwsh --from-rc --rc-status 2> $__sivtr_st`,
      '    $__sivtr_code = $LASTEXITCODE',
      '    foreach ($__sivtr_line in @(Get-Content -LiteralPath $__sivtr_st -ErrorAction Ignore)) {',
      `      if ($__sivtr_line -match '^${RAN_LINE} (\\d+)$') { $__sivtr_ran = [int]$Matches[1] }`,
      "      elseif (-not $__sivtr_why -and $__sivtr_line -match '^sivtr: (.*)') { $__sivtr_why = $Matches[1] }",
      "      elseif (-not $__sivtr_why -and $__sivtr_line -match 'Error:') { $__sivtr_why = \"$__sivtr_line\".Trim() }",
      '    }',
      '    Remove-Item -LiteralPath $__sivtr_st -Force -ErrorAction Ignore',
      // `exit` in a profile ends the profile script only; the shell itself must go.
      '    if ($null -ne $__sivtr_ran) { [Environment]::Exit($__sivtr_ran) }',
      '    if (-not $__sivtr_why) { $__sivtr_why = "the recorder stopped, exit code $__sivtr_code" }',
      '  }',
      `  [Console]::Error.WriteLine(${psQuote(before)} + $__sivtr_why + ${psQuote(after)})`,
      '  Remove-Variable -Name __sivtr_* -ErrorAction Ignore',
      '}',
    ]
      .filter((l) => l !== '')
      .join('\n');
  }
  const interactive = kind === 'zsh' ? '[[ -o interactive ]]' : '[[ $- == *i* ]]';
  let run = `${launcher.viaNode ? '"$__sivtr_node" "$__sivtr_bin"' : '"$__sivtr_bin"'} shell ${kind} --from-rc --rc-status`;
  // zsh reports a job killed by a signal on a line of its own; the one line below says it instead.
  if (kind === 'zsh') run = `() { setopt localoptions nomonitor; ${run} }`;
  return [
    '# Re-run this interactive shell under `sivtr shell`; exit only when the recorder reports that it ran the',
    '# shell to its end (a `sivtr-ran CODE` line). Otherwise carry on unrecorded, saying so in one line.',
    `if ${interactive} && [[ -t 0 && -t 1 && -z \${SIVTR_PTY_PROXY-} && -z \${SIVTR_DISABLE-} && \${TERM-dumb} != dumb && -z \${SSH_ORIGINAL_COMMAND-} ]]; then`,
    `  __sivtr_node=${shQuote(launcher.node)} __sivtr_bin=${shQuote(launcher.bin)} __sivtr_why= __sivtr_ran=`,
    launcher.viaNode ? '  [[ -x $__sivtr_node ]] || __sivtr_node=node' : '',
    '  if [[ ! -f $__sivtr_bin ]]; then',
    '    __sivtr_why="$__sivtr_bin is gone"',
    launcher.viaNode ? '  elif ! command -v "$__sivtr_node" >/dev/null 2>&1; then' : '',
    launcher.viaNode ? "    __sivtr_why='node is not on PATH'" : '',
    '  else',
    '    __sivtr_st=${XDG_RUNTIME_DIR-}',
    '    [[ -n $__sivtr_st && -d $__sivtr_st && -w $__sivtr_st ]] || __sivtr_st=${TMPDIR:-/tmp}',
    '    __sivtr_st=$__sivtr_st/sivtr-rc-$$-$RANDOM$RANDOM$RANDOM',
    // A recorder killed outright cannot take the terminal out of raw mode: the shell does it then.
    '    __sivtr_tty=$(command stty -g 2>/dev/null)',
    `    ${run} 2>"$__sivtr_st"`,
    '    __sivtr_code=$?',
    '    while IFS= read -r __sivtr_line || [[ -n $__sivtr_line ]]; do',
    '      case $__sivtr_line in',
    `        '${RAN_LINE} '*) __sivtr_ran=\${__sivtr_line#${RAN_LINE} } ;;`,
    "        'sivtr: '*) [[ -n $__sivtr_why ]] || __sivtr_why=${__sivtr_line#sivtr: } ;;",
    '        *Error:*) [[ -n $__sivtr_why ]] || __sivtr_why=$__sivtr_line ;;',
    '      esac',
    '    done < "$__sivtr_st"',
    '    command rm -f -- "$__sivtr_st"',
    '    [[ $__sivtr_ran =~ ^[0-9]+$ ]] && exit "$__sivtr_ran"',
    '    [[ -n $__sivtr_tty ]] && command stty "$__sivtr_tty" 2>/dev/null',
    '    [[ -n $__sivtr_why ]] || __sivtr_why="the recorder stopped, exit code $__sivtr_code"',
    '  fi',
    `  printf '%s%s%s\\n' ${shQuote(before)} "$__sivtr_why" ${shQuote(after)} >&2`,
    '  unset __sivtr_node __sivtr_bin __sivtr_why __sivtr_ran __sivtr_st __sivtr_code __sivtr_line __sivtr_tty',
    'fi',
  ]
    .filter((l) => l !== '')
    .join('\n');
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

/** `autoStartProblem`: why an installed auto-start block does not record new terminals, or can close them. */
export type InitStatus = { rc: string; hooks: boolean; autoStart: boolean; autoStartProblem?: { what: string; fix: string }; keybinding?: boolean };

export function initStatus(kind: ShellKind, env: Env = process.env): InitStatus {
  const rc = rcFile(kind, env);
  const text = existsSync(rc) ? readFileSync(rc, 'utf8') : '';
  const hooks = text.includes(begin(BLOCK.hooks) + '\n');
  const keybinding = text.includes(begin(BLOCK.keys) + '\n');
  const start = text.indexOf(begin(BLOCK.autoStart) + '\n');
  if (start < 0) return { rc, hooks, autoStart: false, keybinding };
  const block = text.slice(start, text.indexOf(end(BLOCK.autoStart), start));
  return { rc, hooks, autoStart: true, autoStartProblem: autoStartProblem(kind, block), keybinding };
}

function autoStartProblem(kind: ShellKind, block: string): InitStatus['autoStartProblem'] {
  if (!block.includes('--rc-status')) {
    return { what: 'its block comes from an older sivtr and closes new terminals when sivtr moves', fix: `run \`sivtr init ${kind}\` to refresh it` };
  }
  // The launcher as the block quotes it: '…' with ' written '\'' (sh) or '' (pwsh).
  const quoted = kind === 'pwsh' ? /\$__sivtr_bin = '((?:[^']|'')*)'/.exec(block) : /__sivtr_bin='((?:[^']|'\\'')*)'/.exec(block);
  if (!quoted) return undefined;
  const launcher = kind === 'pwsh' ? quoted[1]!.replace(/''/g, "'") : quoted[1]!.replace(/'\\''/g, "'");
  if (existsSync(launcher)) return undefined;
  return { what: `its launcher ${launcher} is gone, so new terminals are not recorded`, fix: `run \`sivtr init ${kind} --auto-start\` with the sivtr you use now` };
}

function writeRc(rc: string, text: string): void {
  mkdirSync(dirname(rc), { recursive: true });
  const mode = existsSync(rc) ? statSync(rc).mode & 0o777 : 0o644;
  writeFileAtomic(rc, text, { mode });
}

/**
 * Installs (or refreshes in place) the hooks block at the end and, if asked, auto-start at the top.
 * `autoStart` undefined keeps whatever was chosen before.
 */
export function install(kind: ShellKind, opts: { autoStart?: boolean; keybinding?: boolean }, env: Env = process.env): InitStatus {
  const rc = rcFile(kind, env);
  const original = existsSync(rc) ? readFileSync(rc, 'utf8') : '';
  let text = removeBlock(original, BLOCK.hooks).text;
  const hadAutoStart = removeBlock(text, BLOCK.autoStart);
  text = hadAutoStart.text;
  const hadKeys = removeBlock(text, BLOCK.keys);
  text = hadKeys.text;
  if (text !== '' && !text.endsWith('\n')) text += '\n';
  text += blockText(BLOCK.hooks, kind, hooksSnippet(kind, env));
  // The binding comes after the user's rc, so the user's own bindings made there do not undo it.
  if (opts.keybinding ?? hadKeys.found) text += blockText(BLOCK.keys, kind, keysSnippet(kind, env));
  if (opts.autoStart ?? hadAutoStart.found) text = blockText(BLOCK.autoStart, kind, autoStartSnippet(kind, env)) + text;
  if (text !== original) writeRc(rc, text);
  return initStatus(kind, env);
}

export function uninstall(kind: ShellKind, env: Env = process.env): { rc: string; removed: boolean } {
  const rc = rcFile(kind, env);
  if (!existsSync(rc)) return { rc, removed: false };
  const original = readFileSync(rc, 'utf8');
  const a = removeBlock(original, BLOCK.hooks);
  const b = removeBlock(a.text, BLOCK.autoStart);
  const c = removeBlock(b.text, BLOCK.keys);
  if (a.found || b.found || c.found) writeRc(rc, c.text);
  return { rc, removed: a.found || b.found || c.found };
}
