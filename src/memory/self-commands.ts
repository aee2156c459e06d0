// sivtr's own read-only commands, recognised from a recorded command line. They stay recorded,
// but recency selectors and search pass over them: after `sivtr show …`, `copy out 2` still
// means the output before the last thing the user ran, and a search does not find the `show`
// that printed its hit.
//
// Read-only: copy (c, ci, co, cc), show, diff, search, pick, sessions, runs, import, history (list, search,
// show), doctor, bare `sivtr`, and any `--help`/`--version`. Not read-only: run and pipe (the
// command is the user's), shell, demo, init.

const READ_ONLY = new Set(['copy', 'c', 'ci', 'co', 'cc', 'show', 'diff', 'search', 'pick', 'sessions', 'runs', 'import', 'history', 'doctor', 'help']);
const HELP_FLAGS = new Set(['--help', '-h', '--version', '-V', '-v']);
/** sivtr's options that come before the command and take a value. */
const VALUED_OPTIONS = new Set(['--color']);

/** Later stages of a pipeline that only look at what sivtr printed. */
const VIEWERS = new Set([
  'less', 'more', 'most', 'head', 'tail', 'grep', 'egrep', 'fgrep', 'rg', 'wc', 'cat', 'bat', 'batcat', 'sed', 'awk', 'jq',
  'sort', 'uniq', 'cut', 'column', 'tr', 'nl', 'fold', 'fmt', 'delta', 'diff-so-fancy', 'xclip', 'xsel', 'pbcopy', 'wl-copy',
  'clip.exe', 'out-host', 'select-string', 'sls', 'format-list', 'fl', 'out-string',
]);

type Stage = { words: string[]; redirects: string[] };

/**
 * Splits one command line into pipeline stages of shell words. Returns undefined for anything
 * more than a plain pipeline (`;`, `&&`, `||`, `&`, substitutions, several lines): such a line
 * ran more than sivtr.
 */
function pipeline(line: string): Stage[] | undefined {
  const stages: Stage[] = [{ words: [], redirects: [] }];
  let word = '';
  let inWord = false;
  const stage = (): Stage => stages.at(-1)!;
  const flush = (): void => {
    if (inWord) stage().words.push(word);
    word = '';
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'" || ch === '"') {
      const end = line.indexOf(ch, i + 1);
      if (end === -1) return undefined;
      const body = line.slice(i + 1, end);
      if (ch === '"' && /\$\(|`/.test(body)) return undefined;
      word += body;
      inWord = true;
      i = end;
    } else if (ch === '\\' && /[\s'"\\|;&<>$`]/.test(line[i + 1] ?? '')) {
      // A POSIX escape; before anything else a backslash is a Windows path separator.
      word += line[++i];
      inWord = true;
    } else if (ch === ' ' || ch === '\t') {
      flush();
    } else if (ch === '\n' || ch === ';' || ch === '`' || (ch === '$' && line[i + 1] === '(')) {
      return undefined;
    } else if (ch === '&') {
      // Only PowerShell's call operator, first on the line; any other `&` runs something else
      // or sends sivtr to the background (`2>&1` is read with its redirect below).
      if (line.slice(0, i).trim() !== '') return undefined;
    } else if (ch === '|') {
      if (line[i + 1] === '|') return undefined;
      if (line[i + 1] === '&') i++; // bash `|&`: stderr too
      flush();
      if (stage().words.length === 0) return undefined;
      stages.push({ words: [], redirects: [] });
    } else if (ch === '>' || ch === '<') {
      // A redirect: the operator and its target are one item, kept apart from the words.
      let op = inWord && /^\d+$/.test(word) ? word : '';
      if (op !== '') {
        word = '';
        inWord = false;
      } else flush();
      while (line[i] === '>' || line[i] === '<' || line[i] === '&') op += line[i++];
      while (line[i] === ' ') i++;
      let target = '';
      while (i < line.length && !/[\s|;&<>]/.test(line[i]!)) target += line[i++];
      i--;
      stage().redirects.push(op + target);
    } else {
      word += ch;
      inWord = true;
    }
  }
  flush();
  if (stages.some((s) => s.words.length === 0)) return undefined;
  return stages;
}

const basename = (path: string): string => path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1).toLowerCase();

/** Is this word sivtr itself: `sivtr`, `./bin/sivtr.js`, `dist/sivtr.cjs`, `sivtr.cmd`? */
function isSivtrProgram(word: string): boolean {
  return /^sivtr(\.js|\.cjs|\.mjs|\.cmd|\.ps1|\.exe)?$/.test(basename(word));
}

/** The words after the program, once env assignments, wrappers and launchers are peeled off. */
function sivtrArguments(words: string[]): string[] | undefined {
  let i = 0;
  const skipAssignments = (): void => {
    while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) i++;
  };
  skipAssignments();
  for (;;) {
    const w = words[i];
    if (w === 'env') {
      i++;
      while (words[i]?.startsWith('-')) i++;
      skipAssignments();
    } else if (w === 'command' || w === 'builtin' || w === 'time' || w === 'noglob' || w === 'nocorrect') i++;
    else break;
  }
  const program = words[i];
  if (program === undefined) return undefined;
  if (isSivtrProgram(program)) return words.slice(i + 1);
  const launcher = basename(program).replace(/\.exe$/, '');
  if (launcher === 'node' || launcher === 'bun' || launcher === 'deno') {
    // `node [node options] path/to/sivtr.js …`
    let j = i + 1;
    while (words[j]?.startsWith('-')) j++;
    if (launcher === 'deno' && words[j] === 'run') for (j++; words[j]?.startsWith('-'); j++);
    return words[j] !== undefined && isSivtrProgram(words[j]!) ? words.slice(j + 1) : undefined;
  }
  if (launcher === 'npx' || launcher === 'bunx' || launcher === 'pnpx') {
    let j = i + 1;
    while (words[j]?.startsWith('-')) j++;
    return words[j] !== undefined && isSivtrProgram(words[j]!) ? words.slice(j + 1).filter((w, k) => !(k === 0 && w === '--')) : undefined;
  }
  if (launcher === 'npm' || launcher === 'pnpm' || launcher === 'yarn') {
    let j = i + 1;
    if (words[j] === 'exec' || words[j] === 'x' || words[j] === 'dlx') j++;
    while (words[j]?.startsWith('-')) j++;
    if (words[j] === undefined || !isSivtrProgram(words[j]!)) return undefined;
    const rest = words.slice(j + 1);
    return rest[0] === '--' ? rest.slice(1) : rest;
  }
  return undefined;
}

/** Does this argument list (after `sivtr`) make sivtr only read and print? */
function readOnlyInvocation(args: string[]): boolean {
  let i = 0;
  while (args[i]?.startsWith('-')) {
    if (HELP_FLAGS.has(args[i]!)) return true;
    i += VALUED_OPTIONS.has(args[i]!) ? 2 : 1;
  }
  const command = args[i];
  if (command === undefined) return true; // bare `sivtr` at a prompt prints the help
  const rest = args.slice(i + 1);
  if (command === 'run' || command === 'pipe' || command === 'shell') return rest[0] !== undefined && HELP_FLAGS.has(rest[0]);
  if (READ_ONLY.has(command)) return true;
  const end = rest.indexOf('--');
  return (end === -1 ? rest : rest.slice(0, end)).some((w) => w === '--help' || w === '-h');
}

function harmless(redirect: string): boolean {
  return /^\d?>&\d$/.test(redirect) || /^(\d|&)?>>?\/dev\/null$/.test(redirect) || /^\d?>>?\$null$/i.test(redirect);
}

/** True when a recorded command line is one of sivtr's own read-only commands. */
export function isSivtrReadOnly(command: string): boolean {
  const line = command.trim();
  if (!/sivtr/i.test(line)) return false;
  const stages = pipeline(line);
  if (!stages) return false;
  if (stages.some((s) => !s.redirects.every(harmless))) return false;
  const args = sivtrArguments(stages[0]!.words);
  if (!args || !readOnlyInvocation(args)) return false;
  return stages.slice(1).every((s) => {
    const words = s.words;
    const program = words[0]!;
    return VIEWERS.has(basename(program)) && !(program === 'sed' && words.some((w) => w === '-i' || w.startsWith('-i')));
  });
}
