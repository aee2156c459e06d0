// The JSON shapes of records (terminal and history alike), parts and agent turns.
import type { OpenedSession, Part, Unit } from './types.js';
import { formatRef, partRef } from './ref.js';
import { isTerminalUnit } from './render.js';

/**
 * The session as JSON names it: the full id, never the short display id, so a ref read from
 * JSON still resolves when a later session shares the display prefix. Refs of another shape
 * (`history/12`) are already stable.
 */
export function jsonSession(unit: Unit, session: OpenedSession): string {
  return unit.ref === formatRef(unit.source, unit.session, unit.index) ? session.info.id : unit.session;
}

export function jsonRef(unit: Unit, session: OpenedSession, part?: number): string {
  if (unit.ref !== formatRef(unit.source, unit.session, unit.index)) return part === undefined ? unit.ref : partRef(unit, part);
  return formatRef(unit.source, session.info.id, unit.index, part);
}

export function recordJson(unit: Unit, session: OpenedSession, opts: { ansi?: boolean } = {}): Record<string, unknown> {
  const [prompt, command, output] = unit.parts;
  const json: Record<string, unknown> = {
    ref: jsonRef(unit, session),
    source: unit.source,
    session: jsonSession(unit, session),
    index: unit.index,
    prompt: prompt?.text ?? '',
    command: command?.text ?? '',
    output: output?.text ?? '',
  };
  if (opts.ansi) {
    if (prompt?.ansi !== undefined) json.prompt_ansi = prompt.ansi;
    if (output?.ansi !== undefined) json.output_ansi = output.ansi;
  }
  if (unit.cwd !== undefined) json.cwd = unit.cwd;
  if (unit.exitCode !== undefined) json.exit_code = unit.exitCode;
  if (unit.durationMs !== undefined) json.duration_ms = unit.durationMs;
  if (unit.at !== undefined) json.ended_at = unit.at;
  return json;
}

export function partJson(part: Part): Record<string, unknown> {
  const json: Record<string, unknown> = { part: part.n, kind: part.kind };
  if (part.label !== undefined) json.label = part.label;
  if (part.callId !== undefined) json.callId = part.callId;
  json.text = part.text;
  if (part.timestamp !== undefined) json.timestamp = part.timestamp;
  if (part.isError) json.isError = true;
  if (part.commentary) json.commentary = true;
  if (part.exitCode !== undefined) json.exitCode = part.exitCode;
  if (part.usage !== undefined) json.usage = part.usage;
  if (part.ended !== undefined) json.ended = part.ended;
  if (part.raw !== undefined) json.raw = part.raw;
  return json;
}

export function agentTurnJson(unit: Unit, session: OpenedSession): Record<string, unknown> {
  const s: Record<string, unknown> = { id: session.info.id };
  if (session.info.cwd !== undefined) s.cwd = session.info.cwd;
  if (session.info.title !== undefined) s.title = session.info.title;
  const json: Record<string, unknown> = { ref: jsonRef(unit, session), source: unit.source, session: s, turn: unit.index, blocks: unit.parts.map(partJson) };
  if (unit.complete === false) json.complete = false;
  if (unit.ended !== undefined) json.ended = unit.ended;
  return json;
}

export function unitJson(unit: Unit, session: OpenedSession, opts: { ansi?: boolean } = {}): Record<string, unknown> {
  return isTerminalUnit(unit) ? recordJson(unit, session, opts) : agentTurnJson(unit, session);
}
