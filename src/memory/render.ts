// Text of a unit or part as copy, show and diff print it.
import { renderBlock, renderInput } from '../session/entry.js';
import { replyOf } from '../agents/turns.js';
import type { Part, Unit } from './types.js';

export type Aspect = 'block' | 'input' | 'output' | 'command';
export type RenderOptions = { ansi?: boolean; prompt?: string };

const partText = (part: Part | undefined, ansi?: boolean): string => (part ? (ansi && part.ansi !== undefined ? part.ansi : part.text) : '');

export function isTerminalUnit(unit: Unit): boolean {
  return unit.source === 'terminal' || unit.parts[0]?.kind === 'prompt';
}

function terminalText(unit: Unit, aspect: Aspect, opts: RenderOptions): string {
  const [prompt, command, output] = unit.parts;
  const promptText = opts.prompt ?? partText(prompt, opts.ansi);
  switch (aspect) {
    case 'command':
      return partText(command);
    case 'output':
      return partText(output, opts.ansi);
    case 'input':
      return renderInput(promptText, command?.shown ?? partText(command));
    case 'block':
      return renderBlock(renderInput(promptText, command?.shown ?? partText(command)), partText(output, opts.ansi));
  }
}

export function partHeading(part: Part): string {
  const what = part.label ? `${part.kind}: ${part.label}` : part.kind;
  return `── p${part.n} ${what}${part.isError ? ' (error)' : ''}${part.restored ? ' (restored)' : ''} ──`;
}

/** An agent turn (or any list of parts) with a heading line per part. */
export function renderParts(parts: readonly Part[], opts: RenderOptions = {}): string {
  return parts.map((p) => `${partHeading(p)}\n${partText(p, opts.ansi)}`).join('\n\n');
}

/** A turn's whole reply: every assistant text after its last tool activity (see agents/turns.ts). */
export function replyParts(unit: Unit): Part[] {
  return replyOf(unit.parts);
}

function agentText(unit: Unit, aspect: Aspect, opts: RenderOptions): string {
  switch (aspect) {
    case 'block':
      return renderParts(unit.parts, opts);
    case 'input':
      return unit.parts.filter((p) => p.kind === 'user').map((p) => p.text).join('\n\n');
    case 'output':
      return replyParts(unit).map((p) => partText(p)).join('\n\n');
    case 'command':
      return unit.parts.filter((p) => p.kind === 'tool_call').map((p) => (p.label ? `${p.label} ${p.text}` : p.text)).join('\n\n');
  }
}

/**
 * Text of several terminal records at once. Commands (with or without their prompts) paste as a
 * script: one after another, a multi-line command keeping its own lines. Blocks and outputs stay
 * apart with a blank line, so each one can still be told from the next.
 */
export function unitsText(units: readonly Unit[], aspect: Aspect, opts: RenderOptions = {}): string {
  const separator = aspect === 'command' || aspect === 'input' ? '\n' : '\n\n';
  return units.map((u) => unitText(u, aspect, opts)).join(separator);
}

export function unitText(unit: Unit, aspect: Aspect, opts: RenderOptions = {}): string {
  return isTerminalUnit(unit) ? terminalText(unit, aspect, opts) : agentText(unit, aspect, opts);
}

export function renderPart(part: Part, opts: RenderOptions = {}): string {
  return partText(part, opts.ansi);
}
