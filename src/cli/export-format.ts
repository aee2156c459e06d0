// A whole session as one document for sharing or review: Markdown, or one self-contained HTML
// file (no network: no scripts, fonts or images from elsewhere; every text HTML-escaped; tool
// calls, tool outputs and thinking fold away in <details>; readable on a phone).
import type { SessionFacts, TurnFacts } from '../memory/overview.js';
import type { Part, Unit } from '../memory/types.js';
import { isTerminalRecord } from '../memory/unit-facts.js';
import { duration, localTime, shortPath } from './output.js';

/** `mask`: what each part's text becomes before it is escaped or fenced (secrets masked). */
export type ExportInput = { facts: SessionFacts; shownRef: string; units: readonly Unit[]; turns: readonly TurnFacts[]; mask?: (text: string) => string };

const FOLDED = new Set(['tool_call', 'tool_output', 'thinking', 'compaction', 'prompt']);

function partTitle(part: Part): string {
  switch (part.kind) {
    case 'user':
      return '▸ User';
    case 'assistant':
      return part.commentary ? '◂ Assistant (progress note)' : '◂ Assistant';
    case 'tool_call':
      return `Tool call${part.label ? `: ${part.label}` : ''}`;
    case 'tool_output':
      return `Tool output${part.label ? `: ${part.label}` : ''}${part.isError ? ' (error)' : ''}`;
    case 'thinking':
      return 'Thinking';
    case 'compaction':
      return 'Compaction summary';
    case 'command':
      return '$ Command';
    case 'output':
      return 'Output';
    default:
      return part.kind;
  }
}

/** A tool call's arguments on one line (`{ "cmd": "echo hello", … }`), cut to `max`. */
const firstLine = (text: string, max = 80): string => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
};

function turnHeading(turn: TurnFacts, record: boolean): string {
  const when = turn.start ?? turn.end;
  const pieces = [record ? `#${turn.index}` : `T${turn.index}`, turn.status.status];
  if (when) pieces.push(localTime(when));
  if (turn.durationMs !== undefined) pieces.push(duration(turn.durationMs));
  return pieces.join(' · ');
}

function aboutLines(input: ExportInput): string[] {
  const f = input.facts;
  const lines = [`Session: ${f.ref}`];
  if (f.cwd) lines.push(`Directory: ${shortPath(f.cwd)}`);
  lines.push(`${f.unitKind === 'record' ? 'Records' : 'Turns'}: ${f.units} · files changed: ${f.files.files} · commands run: ${f.commands} · failures: ${f.failures}`);
  if (f.firstActivity) lines.push(`Activity: ${localTime(f.firstActivity)} – ${localTime(f.lastActivity)}`);
  return lines;
}

/** A code fence longer than any run of backticks inside the text, so the text cannot close it. */
function fence(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

function mdPart(part: Part): string {
  const body = part.text;
  if (part.kind === 'user' || part.kind === 'assistant') return `**${partTitle(part)}**\n\n${body}\n`;
  const f = fence(body);
  const block = `${f}\n${body}\n${f}\n`;
  if (!FOLDED.has(part.kind)) return `**${partTitle(part)}**\n\n${block}`;
  const summary = `${partTitle(part)}${part.kind === 'tool_call' && firstLine(body) ? ` — ${firstLine(body, 60)}` : ''}`;
  return `<details><summary>${escapeHtml(summary)}</summary>\n\n${block}\n</details>\n`;
}

export function exportMarkdown(input: ExportInput): string {
  const record = input.facts.unitKind === 'record';
  const out = [`# ${input.facts.title ?? input.shownRef}`, '', ...aboutLines(input).map((l) => `- ${l}`), ''];
  input.units.forEach((unit, i) => {
    const turn = input.turns[i]!;
    out.push(`## ${turnHeading(turn, record)}`, '');
    for (const part of visibleParts(unit, input.mask)) out.push(mdPart(part));
  });
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

/** A terminal record's prompt says nothing a reader needs; its command and output do. */
function visibleParts(unit: Unit, mask: (text: string) => string = (t) => t): Part[] {
  const parts = isTerminalRecord(unit) ? unit.parts.filter((p) => p.kind !== 'prompt' && p.text !== '') : unit.parts;
  return parts.map((p) => ({ ...p, text: mask(p.text) }));
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fff; --muted: #6b6b70; --line: #d8d8dc; --user: #eef4ff; --code: #f5f5f7; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8e8ea; --bg: #161618; --muted: #9a9aa0; --line: #3a3a3e; --user: #1c2636; --code: #222226; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 52rem; padding: 1rem; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); overflow-wrap: anywhere; }
h1 { font-size: 1.3rem; margin: 0 0 .5rem; }
h2 { font-size: 1rem; margin: 1.5rem 0 .5rem; padding-top: .5rem; border-top: 1px solid var(--line); }
.about { color: var(--muted); font-size: .9rem; margin: 0; padding-left: 1.2rem; }
.part { margin: .5rem 0; }
.label { font-weight: 600; font-size: .85rem; color: var(--muted); }
.text { white-space: pre-wrap; }
.user .text { background: var(--user); padding: .5rem .75rem; border-radius: .5rem; }
pre { white-space: pre-wrap; background: var(--code); padding: .5rem .75rem; border-radius: .4rem; margin: .25rem 0; font: .85rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-x: auto; }
details { margin: .35rem 0; }
summary { cursor: pointer; color: var(--muted); font-size: .9rem; }
.error summary, .error .label { color: #c62828; }
`;

function htmlPart(part: Part): string {
  const cls = `part ${part.kind}${part.isError ? ' error' : ''}`;
  const text = escapeHtml(part.text);
  if (part.kind === 'user' || part.kind === 'assistant') return `<div class="${cls}"><div class="label">${escapeHtml(partTitle(part))}</div><div class="text">${text}</div></div>`;
  if (!FOLDED.has(part.kind)) return `<div class="${cls}"><div class="label">${escapeHtml(partTitle(part))}</div><pre>${text}</pre></div>`;
  const summary = `${partTitle(part)}${part.kind === 'tool_call' && firstLine(part.text) ? ` — ${firstLine(part.text, 60)}` : ''}`;
  return `<details class="${cls}"><summary>${escapeHtml(summary)}</summary><pre>${text}</pre></details>`;
}

export function exportHtml(input: ExportInput): string {
  const record = input.facts.unitKind === 'record';
  const title = input.facts.title ?? input.shownRef;
  const body = input.units.map((unit, i) => {
    const turn = input.turns[i]!;
    return `<section>\n<h2>${escapeHtml(turnHeading(turn, record))}</h2>\n${visibleParts(unit, input.mask).map(htmlPart).join('\n')}\n</section>`;
  });
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Nothing may load from elsewhere: the file is read offline and shared as it is.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    `<h1>${escapeHtml(title)}</h1>`,
    `<ul class="about">${aboutLines(input).map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>`,
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
