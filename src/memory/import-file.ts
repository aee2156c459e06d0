// A file given by path: a SessionEntry log, or any transcript a registered provider detects.
import { closeSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { allProviders } from '../agents/registry.js';
import { SivtrError } from '../errors.js';
import { parseEntryLine } from '../session/entry.js';
import { sessionUnits } from './agent-units.js';
import { displayIds } from './display-id.js';
import { logUnits } from './terminal-source.js';
import type { OpenedSession } from './types.js';

function readHead(path: string, bytes = 64 * 1024): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.toString('utf8', 0, n);
  } finally {
    closeSync(fd);
  }
}

function isEntryLog(head: string): boolean {
  const first = head.split('\n').find((l) => l.trim() !== '');
  return first !== undefined && parseEntryLine(first) !== undefined;
}

export async function importFile(path: string, env: NodeJS.ProcessEnv): Promise<OpenedSession> {
  const head = readHead(path);
  if (isEntryLog(head)) {
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
