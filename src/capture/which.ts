// Finding a program the way a shell does, for the recorder (which shell to run) and for `init`
// (which `sivtr` the auto-start block should call).
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The file `name` runs: itself when it has a slash, else the first executable on PATH. */
export function findExecutable(name: string, env: NodeJS.ProcessEnv, cwd = process.cwd()): string | undefined {
  if (name.includes('/') || (process.platform === 'win32' && name.includes('\\'))) {
    const path = isAbsolute(name) ? name : resolve(cwd, name);
    return isExecutableFile(path) ? path : undefined;
  }
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue; // a relative PATH entry means something else in every directory
    for (const ext of exts) {
      const path = join(dir, name + ext);
      if (isExecutableFile(path)) return path;
    }
  }
  return undefined;
}
