// The terminal as a source: each log is a session, each record a unit with fixed parts
// p1 prompt, p2 command, p3 output.
import { basename } from 'node:path';
import { SivtrError } from '../errors.js';
import { isRecord, type SessionEntry } from '../session/entry.js';
import { currentTerminalLog, listTerminalLogs, loadLog, type TerminalLogInfo } from '../session/log.js';
import { displayIds, matchId } from './display-id.js';
import { formatRef } from './ref.js';
import type { ListOptions, OpenedSession, SessionInfo, Source, Unit } from './types.js';

const logId = (path: string): string => basename(path).replace(/\.jsonl$/, '');

function firstLine(text: string): string {
  const nl = text.indexOf('\n');
  return nl === -1 ? text : text.slice(0, nl);
}

export function entryToUnit(entry: SessionEntry, index: number, session: string): Unit {
  const unit: Unit = {
    ref: formatRef('terminal', session, index),
    source: 'terminal',
    session,
    index,
    parts: [
      { n: 1, kind: 'prompt', text: entry.prompt, ansi: entry.prompt_ansi },
      { n: 2, kind: 'command', text: entry.command },
      { n: 3, kind: 'output', text: entry.output, ansi: entry.output_ansi },
    ],
    title: firstLine(entry.command.trim()) || firstLine(entry.output.trim()),
  };
  if (entry.ended_at !== undefined) unit.at = entry.ended_at;
  if (entry.cwd !== undefined) unit.cwd = entry.cwd;
  if (entry.exit_code !== undefined) unit.exitCode = entry.exit_code;
  if (entry.duration_ms !== undefined) unit.durationMs = entry.duration_ms;
  return unit;
}

/** Records of a log as units; non-record entries keep their position but are not units. */
export function entriesToUnits(entries: readonly SessionEntry[], session: string): Unit[] {
  const units: Unit[] = [];
  entries.forEach((entry, i) => {
    if (isRecord(entry)) units.push(entryToUnit(entry, i + 1, session));
  });
  return units;
}

function infoFor(log: { id: string; path: string; mtimeMs?: number }, displayId: string, units?: number): SessionInfo {
  const info: SessionInfo = { source: 'terminal', id: log.id, displayId, location: log.path };
  if (log.mtimeMs !== undefined) info.updatedAt = new Date(log.mtimeMs).toISOString();
  if (units !== undefined) info.units = units;
  return info;
}

export const terminalSource: Source = {
  name: 'terminal',

  async list(opts: ListOptions): Promise<SessionInfo[]> {
    const logs = listTerminalLogs(opts.env);
    const ids = displayIds(logs.map((l) => l.id));
    return logs.map((log) => infoFor(log, ids.get(log.id)!));
  },

  async open(key: string, opts: ListOptions): Promise<OpenedSession> {
    const logs = listTerminalLogs(opts.env);
    let log: Pick<TerminalLogInfo, 'id' | 'path'> & { mtimeMs?: number };
    if (key === 'current') {
      const path = currentTerminalLog(opts.env);
      log = logs.find((l) => l.path === path) ?? { id: logId(path), path };
    } else {
      const matches = matchId(logs, key);
      if (matches.length === 0) {
        throw new SivtrError(`no terminal session "${key}"`, 'list them with `sivtr sessions terminal --global`');
      }
      if (matches.length > 1) {
        const names = matches.slice(0, 10).map((m) => m.id).join(', ');
        throw new SivtrError(`terminal session "${key}" is ambiguous (${names})`, 'type more characters of the id');
      }
      log = matches[0]!;
    }
    const ids = displayIds([...logs.map((l) => l.id), log.id]);
    const displayId = ids.get(log.id)!;
    const { entries } = loadLog(log.path);
    const units = entriesToUnits(entries, displayId);
    return { info: infoFor(log, displayId, units.length), units };
  },
};
