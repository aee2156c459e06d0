// A genuine agent home from fixtures/real/, copied with the directory the conformance driver ran
// the agent in replaced by one that exists here, so the CLI can run in the sessions' workspace.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';

export function copyRealHome(set: string, recordedCwd: string, to: string, cwd: string): void {
  const walk = (from: string, dest: string): void => {
    mkdirSync(dest, { recursive: true });
    for (const e of readdirSync(from, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(from, e.name), join(dest, e.name));
      else writeFileSync(join(dest, e.name), readFileSync(join(from, e.name), 'utf8').replaceAll(recordedCwd, cwd));
    }
  };
  walk(join(ROOT, 'fixtures', 'real', set, 'home'), to);
}
