// The files a shell command line writes, derived from its syntax alone: redirections (`>`,
// `>>`), `tee`, `cp`/`mv`/`scp` targets, `sed -i`/`perl -i`, `dd of=`, `apply_patch` fed a
// patch, and interpreter one-liners that open a file for writing. Commands that run elsewhere
// (`ssh host '…'`) are read again with the host attached; `bash -c '…'` and `eval` are read again
// as they are. Here-document bodies never count as commands.
import { basename, posix } from 'node:path';
import { parseCommandLine, writesThrough, type SimpleCommand, type Word } from './shell-words.js';
import { patchedFiles } from './patch-files.js';

export type DerivedWrite = {
  path: string;
  /** The rule that proved it: `>`, `>>`, `tee`, `tee -a`, `cp`, `mv`, `scp`, `sed -i`, … */
  rule: string;
  /** The machine written on, when it is not this one (`ssh host '…'`, `scp x host:y`). */
  host?: string;
};

/**
 * A name that is a file, not perhaps a directory: a real extension (`.ts`, `.json`), or a
 * dotfile (`.env`). A destination operand without one (`cp a.txt out`) may be a folder, so it
 * proves nothing and is not counted.
 */
export function looksLikeFile(path: string): boolean {
  if (path.endsWith('/')) return false;
  const name = basename(path);
  if (/^\.[\w.-]+$/.test(name) && name !== '.' && name !== '..') return true;
  return /^[^.].*\.[A-Za-z][A-Za-z0-9_-]{0,9}$/.test(name);
}

const PREFIX_COMMANDS = new Set(['sudo', 'doas', 'env', 'nice', 'nohup', 'time', 'command', 'exec', 'builtin', 'stdbuf', 'timeout', 'xargs']);
/** Options of the prefix commands that take a value (`sudo -u root`, `timeout -s KILL 5`). */
const PREFIX_VALUE_OPTS: Record<string, Set<string>> = {
  sudo: new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U']),
  doas: new Set(['-u', '-C']),
  env: new Set(['-u', '-C', '-S']),
  nice: new Set(['-n']),
  timeout: new Set(['-s', '-k']),
  xargs: new Set(['-I', '-n', '-P', '-d', '-L', '-s', '-E', '-a']),
};

/** The words after prefix commands and variable assignments: `sudo -u x env A=1 cmd …` → `cmd …`. */
function commandWords(words: Word[]): Word[] {
  let i = 0;
  while (i < words.length && /^[A-Za-z_]\w*=/.test(words[i]!.text)) i++;
  while (i < words.length && PREFIX_COMMANDS.has(words[i]!.text)) {
    const name = words[i++]!.text;
    const valued = PREFIX_VALUE_OPTS[name];
    while (i < words.length && words[i]!.text.startsWith('-') && words[i]!.text !== '--') {
      const opt = words[i++]!.text;
      if (valued?.has(opt)) i++;
    }
    if (words[i]?.text === '--') i++;
    while (i < words.length && /^[A-Za-z_]\w*=/.test(words[i]!.text)) i++;
    if (name === 'timeout' && i < words.length && /^\d/.test(words[i]!.text)) i++;
  }
  return words.slice(i);
}

const SSH_VALUE_OPTS = new Set('BbcDEeFIiJLlmOopQRSWw'.split('').map((c) => `-${c}`));
const SCP_VALUE_OPTS = new Set('cDFiJloPS'.split('').map((c) => `-${c}`));
const CP_VALUE_OPTS = new Set(['-S', '--suffix']);
const INSTALL_VALUE_OPTS = new Set(['-S', '--suffix', '-m', '--mode', '-o', '--owner', '-g', '--group']);

/** `user@host:path` → host and path; undefined for a local path (`./a:b`, `/x:y`). */
function remotePath(text: string): { host: string; path: string } | undefined {
  const m = /^(?:[^@/:]+@)?(\[[^\]]+\]|[^/:[\]]+):(.*)$/s.exec(text);
  if (!m || text.startsWith('/') || text.startsWith('.')) return undefined;
  return { host: m[1]!, path: m[2]! };
}

const hostOf = (destination: string): string => destination.replace(/^[^@]*@/, '');

function operands(args: Word[], valueOpts: Set<string>): { ops: Word[]; opts: string[] } {
  const ops: Word[] = [];
  const opts: string[] = [];
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (!ended && w.text === '--') {
      ended = true;
      continue;
    }
    if (!ended && w.text.startsWith('-') && w.text !== '-') {
      opts.push(w.text);
      if (valueOpts.has(w.text)) opts.push(args[++i]?.text ?? '');
      continue;
    }
    ops.push(w);
  }
  return { ops, opts };
}

/** Where `cp`/`mv`/`scp` put their sources: into a folder (several sources, `dir/`, `-t dir`) or onto a file. */
function copyTargets(sources: Word[], dest: string, intoDir: boolean): string[] {
  if (intoDir || dest === '.' || dest === '..' || dest.endsWith('/')) {
    const dir = dest.replace(/\/+$/, '') || '/';
    return sources.filter((s) => s.literal && looksLikeFile(s.text)).map((s) => (dir === '.' ? basename(s.text) : posix.join(dir, basename(s.text))));
  }
  return looksLikeFile(dest) ? [dest] : [];
}

/** Interpreter one-liners that open a file for writing: Python, Node, Ruby. */
const SCRIPT_WRITES: RegExp[] = [
  /\bopen\(\s*(['"])([^'"\n]+)\1\s*,\s*(?:mode\s*=\s*)?['"][^'"]*[wax+][^'"]*['"]/g,
  /\bPath\(\s*(['"])([^'"\n]+)\1\s*\)\s*\.\s*write_(?:text|bytes)\(/g,
  /\b(?:writeFileSync|appendFileSync|writeFile|appendFile|createWriteStream)\(\s*(['"`])([^'"`\n]+)\1/g,
  /\bFile\.(?:write|binwrite)\(\s*(['"])([^'"\n]+)\1/g,
  /\bFile\.open\(\s*(['"])([^'"\n]+)\1\s*,\s*['"][wa]/g,
];
const INTERPRETERS = /^(python[\d.]*|node|nodejs|bun|deno|ruby)$/;

export function scriptedWrites(code: string): string[] {
  const found: { at: number; path: string }[] = [];
  for (const re of SCRIPT_WRITES) for (const m of code.matchAll(re)) found.push({ at: m.index, path: m[2]! });
  return found.sort((a, b) => a.at - b.at).map((f) => f.path);
}

/** The machine a line runs on (undefined: this one), its directory as the line changes it, and nesting. */
type Context = { host?: string; dir?: string; depth: number };
/** A write on the line's own machine (`path` resolves against its directory), or on `elsewhere`. */
type Push = (path: string, rule: string, elsewhere?: string) => void;

function writesOfSimple(cmd: SimpleCommand, ctx: Context, push: Push, emit: (w: DerivedWrite) => void): void {
  // `[[ a > b ]]` compares strings: its `>` is no redirection
  if (cmd.words[0]?.text === '[[') return;
  for (const r of cmd.redirects) {
    if (!writesThrough(r) || !r.target.literal) continue;
    const t = r.target.text;
    if (t === '' || t.startsWith('/dev/')) continue;
    push(t, r.op === '>>' || r.op === '&>>' ? '>>' : '>');
  }
  const words = commandWords(cmd.words);
  if (words.length === 0) return;
  const name = basename(words[0]!.text);
  const args = words.slice(1);
  switch (name) {
    case 'tee': {
      const { ops, opts } = operands(args, new Set());
      const append = opts.some((o) => o === '--append' || /^-[a-z]*a/.test(o));
      for (const w of ops) if (w.literal && !w.text.startsWith('/dev/')) push(w.text, append ? 'tee -a' : 'tee');
      return;
    }
    case 'cp':
    case 'mv':
    case 'install': {
      const { ops, opts } = operands(args, name === 'install' ? INSTALL_VALUE_OPTS : CP_VALUE_OPTS);
      const t = opts.findIndex((o) => o === '-t' || o.startsWith('--target-directory'));
      if (t !== -1) {
        const dir = opts[t]!.includes('=') ? opts[t]!.split('=')[1]! : ops.shift()?.text;
        if (dir !== undefined) for (const p of copyTargets(ops, dir, true)) push(p, name);
        return;
      }
      if (ops.length < 2 || !ops.at(-1)!.literal) return;
      for (const p of copyTargets(ops.slice(0, -1), ops.at(-1)!.text, ops.length > 2)) push(p, name);
      return;
    }
    case 'scp': {
      const { ops } = operands(args, SCP_VALUE_OPTS);
      if (ops.length < 2 || !ops.at(-1)!.literal) return;
      const dest = ops.at(-1)!.text;
      const remote = remotePath(dest);
      const sources = ops.slice(0, -1).map((w) => ({ ...w, text: remotePath(w.text)?.path ?? w.text }));
      if (remote) {
        const where = remote.path === '' ? '.' : remote.path;
        for (const p of copyTargets(sources, where, sources.length > 1)) push(p, 'scp', hostOf(remote.host));
      } else {
        // a copy to the machine the line runs on is a write there, wherever the sources were
        for (const p of copyTargets(sources, dest, sources.length > 1)) push(p, 'scp');
      }
      return;
    }
    case 'sed':
    case 'perl': {
      let inPlace = false;
      let scriptGiven = false;
      const files: Word[] = [];
      for (let i = 0; i < args.length; i++) {
        const w = args[i]!.text;
        if (w === '--in-place' || w.startsWith('--in-place=')) inPlace = true;
        else if (w === '-e' || w === '-f' || w === '--expression' || w === '--file') {
          scriptGiven = true;
          i++;
        } else if (w.startsWith('--expression=') || w.startsWith('--file=')) scriptGiven = true;
        else if (/^-[A-Za-z]+/.test(w) && !w.startsWith('--')) {
          const flags = w.slice(1);
          const iAt = flags.indexOf('i');
          if (iAt !== -1) {
            inPlace = true;
            // `-i` takes the rest of its cluster as a backup suffix; BSD sed's `-i ''` takes the next word
            if (flags === 'i' && name === 'sed' && args[i + 1]?.text === '') i++;
          }
          const before = iAt === -1 ? flags : flags.slice(0, iAt);
          if (/[ef]/.test(before) || (iAt === -1 && /[ef]$/.test(flags))) {
            scriptGiven = true;
            i++;
          }
        } else if (!w.startsWith('-') || w === '-') {
          if (!scriptGiven) scriptGiven = true;
          else files.push(args[i]!);
        }
      }
      if (!inPlace) {
        if (name === 'perl') scriptWritesOf(args, push);
        return;
      }
      for (const f of files) if (f.literal) push(f.text, `${name} -i`);
      return;
    }
    case 'dd':
      for (const w of args) if (w.literal && w.text.startsWith('of=') && !w.text.startsWith('of=/dev/')) push(w.text.slice(3), 'dd of=');
      return;
    case 'apply_patch':
    case 'applypatch': {
      const patch = args.map((w) => w.text).join(' ') || cmd.heredocs.join('\n');
      for (const p of patchedFiles(patch)) push(p, 'apply_patch');
      return;
    }
    case 'ssh': {
      if (ctx.depth > 4) return;
      const { ops } = operands(args.filter((_, i) => i < args.length), SSH_VALUE_OPTS);
      const [dest, ...remote] = ops;
      if (dest === undefined || remote.length === 0) return;
      const host = hostOf(dest.text);
      const inner = remote.map((w) => w.text).join(' ');
      for (const w of writesOfLine(inner, { host, depth: ctx.depth + 1 })) emit({ ...w, rule: `ssh ${w.rule}` });
      return;
    }
    case 'bash':
    case 'sh':
    case 'zsh':
    case 'dash':
    case 'ksh':
    case 'eval': {
      if (ctx.depth > 4) return;
      let inner: string | undefined;
      if (name === 'eval') inner = args.map((w) => w.text).join(' ');
      else {
        const c = args.findIndex((w) => /^-[a-z]*c[a-z]*$/.test(w.text));
        if (c !== -1) inner = args[c + 1]?.text;
      }
      if (inner === undefined) return;
      for (const w of writesOfLine(inner, { ...ctx, depth: ctx.depth + 1 })) emit(w);
      return;
    }
    default:
      if (INTERPRETERS.test(name)) {
        scriptWritesOf(args, push);
        for (const body of cmd.heredocs) for (const p of scriptedWrites(body)) push(p, `${name} script`);
      }
  }

  function scriptWritesOf(argv: Word[], add: (path: string, rule: string) => void): void {
    const flag = argv.findIndex((w) => w.text === '-c' || w.text === '-e' || w.text === '--eval' || w.text === '-E');
    const code = flag === -1 ? undefined : argv[flag + 1]?.text;
    if (code !== undefined) for (const p of scriptedWrites(code)) add(p, `${name} ${argv[flag]!.text}`);
  }
}

/**
 * Every write a command line proves, in order. Relative paths resolve against `cwd` as the
 * line changes it (`cd build && make > log.txt` writes build/log.txt); a path on another host
 * resolves against the directory the line `cd`s to there, or stays as written.
 */
export function shellWrites(command: string, cwd?: string): DerivedWrite[] {
  return writesOfLine(command, { dir: cwd, depth: 0 });
}

function writesOfLine(command: string, start: Context): DerivedWrite[] {
  const out: DerivedWrite[] = [];
  const ctx: Context = { ...start };
  // the directory at each subshell depth: a `cd` inside `( … )` is undone by the `)`
  const dirs: (string | undefined)[] = [start.dir];
  for (const cmd of parseCommandLine(command)) {
    for (let d = 1; d <= cmd.subshell; d++) if (dirs.length <= d) dirs[d] = dirs[d - 1];
    dirs.length = cmd.subshell + 1;
    ctx.dir = dirs[cmd.subshell];
    const words = commandWords(cmd.words);
    if ((words[0]?.text === 'cd' || words[0]?.text === 'pushd') && cmd.redirects.length === 0) {
      const target = words[1];
      if (target === undefined || !target.literal || target.text === '-') ctx.dir = undefined;
      else if (target.text.startsWith('/')) ctx.dir = posix.normalize(target.text);
      else ctx.dir = ctx.dir !== undefined ? posix.resolve(ctx.dir, target.text) : undefined;
      dirs[cmd.subshell] = ctx.dir;
      continue;
    }
    const push: Push = (path, rule, elsewhere) => {
      if (elsewhere !== undefined) {
        out.push({ path, rule, host: elsewhere });
        return;
      }
      const resolved = ctx.dir === undefined || path.startsWith('/') || path.startsWith('~') ? path : posix.resolve(ctx.dir, path);
      const w: DerivedWrite = { path: resolved, rule };
      if (ctx.host !== undefined) w.host = ctx.host;
      out.push(w);
    };
    writesOfSimple(cmd, ctx, push, (w) => out.push(w));
  }
  return out;
}
