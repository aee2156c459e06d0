// The files a patch names: Codex's `*** Begin Patch` format (Add/Update/Delete File, Move to)
// and unified diffs (`--- a/x` / `+++ b/x`, `/dev/null` for a created or deleted side).

const ENVELOPE = /^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$/;

export function patchedFiles(patch: string): string[] {
  const files: string[] = [];
  const add = (p: string): void => {
    if (p !== '' && !files.includes(p)) files.push(p);
  };
  const lines = patch.split('\n');
  let minus: string | undefined;
  for (const line of lines) {
    const env = ENVELOPE.exec(line);
    if (env) {
      add(env[1] ?? env[2]!);
      continue;
    }
    if (line.startsWith('--- ')) minus = diffPath(line.slice(4));
    else if (line.startsWith('+++ ') && minus !== undefined) {
      const plus = diffPath(line.slice(4));
      add(plus === '/dev/null' ? minus : plus);
      minus = undefined;
    }
  }
  return files.filter((f) => f !== '/dev/null');
}

/** `a/src/x.ts\t2024-…` → `src/x.ts`. */
function diffPath(text: string): string {
  const p = text.split('\t')[0]!.trim().replace(/^"(.*)"$/, '$1');
  return p === '/dev/null' ? p : p.replace(/^[ab]\//, '');
}
