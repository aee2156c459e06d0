// A file given by path: a SessionEntry log, or any transcript a registered provider detects.
import { basename } from 'node:path';
import { allProviders } from '../agents/registry.js';
import { SivtrError } from '../errors.js';
import { isEntryShape } from '../session/entry.js';
import { firstRecord, readRange } from '../session/jsonl.js';
import { sessionUnits } from './agent-units.js';
import { displayIds } from './display-id.js';
import { logUnits } from './terminal-source.js';
import type { OpenedSession } from './types.js';

const HEAD_BYTES = 64 * 1024;

export async function importFile(path: string, env: NodeJS.ProcessEnv): Promise<OpenedSession> {
  const head = readRange(path, 0, HEAD_BYTES);
  if (isEntryShape(firstRecord(head))) {
    const id = basename(path).replace(/\.jsonl$/, '');
    const displayId = displayIds([id]).get(id)!;
    const units = logUnits(path, displayId, env);
    return { info: { source: 'terminal', id, displayId, location: path, units: units.length }, units };
  }
  for (const provider of allProviders()) {
    if (!provider.detect?.(head, path) || !provider.loadFile) continue;
    const session = await provider.loadFile(path, { env });
    const displayId = displayIds([session.id]).get(session.id)!;
    const units = sessionUnits(provider.name, displayId, session);
    const info = { source: provider.name, id: session.id, displayId, location: path, units: units.length, cwd: session.cwd, title: session.title, updatedAt: session.updatedAt };
    return { info, units };
  }
  throw new SivtrError(`${path} is not a format sivtr knows`, `supported: terminal logs and ${allProviders().map((p) => p.name).join(', ') || 'agent'} transcripts`);
}
