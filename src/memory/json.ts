// The JSON shapes of records (terminal and history alike), parts and agent turns.
import type { OpenedSession, Part, Unit } from './types.js';
import { isTerminalUnit } from './render.js';

export function recordJson(unit: Unit, opts: { ansi?: boolean } = {}): Record<string, unknown> {
  const [prompt, command, output] = unit.parts;
  const json: Record<string, unknown> = {
    ref: unit.ref,
    source: unit.source,
    session: unit.session,
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
  return json;
}

export function agentTurnJson(unit: Unit, session: OpenedSession): Record<string, unknown> {
  const s: Record<string, unknown> = { id: session.info.id };
  if (session.info.cwd !== undefined) s.cwd = session.info.cwd;
  if (session.info.title !== undefined) s.title = session.info.title;
  const json: Record<string, unknown> = { ref: unit.ref, source: unit.source, session: s, turn: unit.index, blocks: unit.parts.map(partJson) };
  if (unit.complete === false) json.complete = false;
  return json;
}

export function unitJson(unit: Unit, session: OpenedSession, opts: { ansi?: boolean } = {}): Record<string, unknown> {
  return isTerminalUnit(unit) ? recordJson(unit, opts) : agentTurnJson(unit, session);
}
