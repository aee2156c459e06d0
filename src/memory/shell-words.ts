// A POSIX-shell reading just deep enough to see what a command line writes: simple commands
// split at ; & && || | and newlines, their words with quotes removed, their redirections, and
// here-documents cut out of the text (their bodies are data, never commands, but are kept for
// the program that reads them). No expansion is performed: a word that needs one (`$x`, `*`,
// `$(…)`) is marked as not literal, because its value cannot be known from the transcript.

export type Word = {
  /** The word with quotes and escapes removed. */
  text: string;
  /** False when the word's value depends on an expansion (variables, globs, substitutions, `~`). */
  literal: boolean;
};

export type Redirect = { op: string; fd?: number; target: Word };

export type SimpleCommand = {
  words: Word[];
  redirects: Redirect[];
  /** Bodies of the here-documents this command reads, in order. */
  heredocs: string[];
  /** How many `(` subshells it runs inside (a `cd` there does not outlive the `)`). */
  subshell: number;
};

const SEPARATORS = ['&&', '||', '|&', ';;', ';', '&', '|', '(', ')', '\n'];
const REDIRECTS = ['&>>', '&>', '>>', '>|', '>&', '<<<', '<<-', '<<', '<>', '<&', '>', '<'];

/** Reads one word starting at `i`; returns it and the index after it. */
function readWord(s: string, start: number): { word: Word; raw: string; end: number } {
  let i = start;
  let text = '';
  let literal = true;
  const at = (k: number): string => s[k] ?? '';
  while (i < s.length) {
    const c = s[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === ';' || c === '&' || c === '|' || c === '(' || c === ')' || c === '<' || c === '>') {
      // `$(` and `<(` / `>(` are part of a word; a bare `(` ends it.
      break;
    }
    if (c === '\\') {
      if (at(i + 1) === '\n') {
        i += 2;
        continue;
      }
      text += at(i + 1);
      i += 2;
      continue;
    }
    if (c === "'") {
      const close = s.indexOf("'", i + 1);
      const end = close === -1 ? s.length : close;
      text += s.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (c === '$' && at(i + 1) === "'") {
      // ANSI-C quoting: the escapes that matter for file names
      let j = i + 2;
      while (j < s.length && s[j] !== "'") {
        if (s[j] === '\\' && j + 1 < s.length) {
          const e = s[j + 1]!;
          text += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          j += 2;
        } else text += s[j++];
      }
      i = j + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') {
        if (s[j] === '\\' && j + 1 < s.length && '"\\$`\n'.includes(s[j + 1]!)) {
          if (s[j + 1] !== '\n') text += s[j + 1];
          j += 2;
          continue;
        }
        if (s[j] === '$' || s[j] === '`') {
          literal = false;
          const end = skipExpansion(s, j);
          text += s.slice(j, end);
          j = end;
          continue;
        }
        text += s[j++];
      }
      i = j + 1;
      continue;
    }
    if (c === '$' || c === '`') {
      literal = false;
      const end = skipExpansion(s, i);
      text += s.slice(i, end);
      i = end;
      continue;
    }
    // `~/x` stays as written: which home it names is the session's, not ours
    if (c === '*' || c === '?' || c === '[' || (c === '~' && i === start && !/^~(\/|$)/.test(s.slice(i, i + 2)))) literal = false;
    text += c;
    i++;
  }
  return { word: { text, literal }, raw: s.slice(start, i), end: i };
}

/** The end of `$(…)`, `${…}`, `` `…` `` or `$name` starting at `i`. */
function skipExpansion(s: string, i: number): number {
  if (s[i] === '`') {
    const close = s.indexOf('`', i + 1);
    return close === -1 ? s.length : close + 1;
  }
  const open = s[i + 1];
  if (open === '(' || open === '{') {
    const close = open === '(' ? ')' : '}';
    let depth = 0;
    for (let j = i + 1; j < s.length; j++) {
      const c = s[j]!;
      if (c === '\\') {
        j++;
        continue;
      }
      if (c === "'" && open === '(') {
        const q = s.indexOf("'", j + 1);
        j = q === -1 ? s.length : q;
        continue;
      }
      if (c === open) depth++;
      else if (c === close && --depth === 0) return j + 1;
    }
    return s.length;
  }
  let j = i + 1;
  if (j < s.length && /[@*#?$!0-9-]/.test(s[j]!)) return j + 1;
  while (j < s.length && /\w/.test(s[j]!)) j++;
  return j;
}

/** The here-document bodies that start after the newline at `i`, and where the text resumes. */
function cutHeredocs(s: string, i: number, pending: { delim: string; strip: boolean }[]): { bodies: string[]; end: number } {
  const bodies: string[] = [];
  let pos = i;
  for (const h of pending) {
    const lines: string[] = [];
    for (;;) {
      if (pos >= s.length) break;
      const nl = s.indexOf('\n', pos);
      const line = s.slice(pos, nl === -1 ? s.length : nl);
      pos = nl === -1 ? s.length : nl + 1;
      const cmp = h.strip ? line.replace(/^\t+/, '') : line;
      if (cmp === h.delim || cmp.trimEnd() === h.delim) break;
      lines.push(line);
    }
    bodies.push(lines.join('\n'));
  }
  return { bodies, end: pos };
}

/** The simple commands of a command line, here-document bodies removed from what is parsed. */
export function parseCommandLine(s: string): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let depth = 0;
  let current: SimpleCommand = { words: [], redirects: [], heredocs: [], subshell: 0 };
  let pending: { delim: string; strip: boolean; owner: SimpleCommand }[] = [];
  const finish = (): void => {
    if (current.words.length > 0 || current.redirects.length > 0) commands.push(current);
    current = { words: [], redirects: [], heredocs: [], subshell: depth };
  };
  let i = 0;
  let redir: { op: string; fd?: number } | undefined;
  while (i < s.length) {
    const c = s[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '\n' && pending.length > 0) {
      const { bodies, end } = cutHeredocs(s, i + 1, pending);
      pending.forEach((p, k) => p.owner.heredocs.push(bodies[k] ?? ''));
      pending = [];
      finish();
      i = end;
      continue;
    }
    if (c === '#' && (i === 0 || /[\s;&|()]/.test(s[i - 1]!))) {
      const nl = s.indexOf('\n', i);
      i = nl === -1 ? s.length : nl;
      continue;
    }
    if (c === '(' && s[i + 1] === '(') {
      // arithmetic `(( a > b ))`: a comparison, never a redirection
      const close = s.indexOf('))', i + 2);
      i = close === -1 ? s.length : close + 2;
      continue;
    }
    if ((c === '<' || c === '>') && s[i + 1] === '(') {
      // process substitution: a command's output as a file name, never a file on disk
      current.words.push({ text: s.slice(i, skipExpansion(s, i)), literal: false });
      i = skipExpansion(s, i);
      continue;
    }
    // an fd number glued to a redirection: 2> 1>> 2>&1
    const fdMatch = /^(\d+)(?=[<>])/.exec(s.slice(i, i + 4));
    const fd = fdMatch ? Number(fdMatch[1]) : undefined;
    const opAt = fdMatch ? i + fdMatch[1]!.length : i;
    const redirOp = REDIRECTS.find((op) => s.startsWith(op, opAt));
    if (redirOp && !(s[opAt + redirOp.length] === '(' && (redirOp === '<' || redirOp === '>'))) {
      redir = fd === undefined ? { op: redirOp } : { op: redirOp, fd };
      i = opAt + redirOp.length;
      continue;
    }
    const sep = SEPARATORS.find((op) => s.startsWith(op, i));
    if (sep && !(sep === '(' && i > 0 && s[i - 1] === '$')) {
      redir = undefined;
      finish();
      if (sep === '(') depth++;
      else if (sep === ')' && depth > 0) depth--;
      current.subshell = depth;
      i += sep.length;
      continue;
    }
    const { word, end } = readWord(s, i);
    i = end === i ? i + 1 : end;
    if (redir) {
      if (redir.op === '<<' || redir.op === '<<-') pending.push({ delim: word.text, strip: redir.op === '<<-', owner: current });
      else current.redirects.push({ ...redir, target: word });
      redir = undefined;
    } else current.words.push(word);
  }
  finish();
  return commands;
}

/** A redirection that writes a file: `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, with a file (not `&2`) as target. */
export function writesThrough(r: Redirect): boolean {
  if (r.op === '>&' || r.op === '<&') return !/^\d+$|^-$/.test(r.target.text) && r.fd === undefined && r.target.text !== '';
  return r.op === '>' || r.op === '>>' || r.op === '>|' || r.op === '&>' || r.op === '&>>' || r.op === '<>';
}
