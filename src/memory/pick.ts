// What `copy` picks: terminal records by recency, or agent messages by mode and recency.
import { SivtrError } from '../errors.js';
import { renderParts, unitText, unitsText, replyParts, type Aspect, type RenderOptions } from './render.js';
import { selectRecentRecords, type RecencyOptions } from './recent.js';
import { selectRecent, type Recency } from './selector.js';
import { restoreUnits } from './restore.js';
import type { Part, Unit } from './types.js';

/** `ref`: where the whole of what was picked can be shown again, when it is one record or part; `notes`: lines for stderr (a restored tool output). */
export type Picked = { text: string; plain: string; what: string; ref?: string; notes?: string[] };

export type TerminalMode = 'block' | 'in' | 'out' | 'cmd';
export const TERMINAL_MODES: Record<string, Aspect> = { in: 'input', out: 'output', cmd: 'command' };

function describe(units: Unit[]): string {
  const first = units[0]!;
  const last = units.at(-1)!;
  // Records of one session by their index (`#4`); records that are sessions of their own (history captures) by ref.
  const name = first.session === last.session ? (u: Unit) => `#${u.index}` : (u: Unit) => u.ref;
  const span = units.length === 1 ? name(first) : `${name(first)}–${name(last)}`;
  return units.length === 1 && first.title ? `${span} ${first.title}` : span;
}

/** How far back `copy out` looks for any output before calling a log metadata-only. */
const OUTPUT_PROBE = 50;

/** No record near the end of the log has output: the hooks wrote it, without the recorder. */
function metadataOnly(units: Unit[]): boolean {
  for (let i = units.length - 1; i >= Math.max(0, units.length - OUTPUT_PROBE); i--) {
    if (unitText(units[i]!, 'output') !== '') return false;
  }
  return true;
}

export function pickTerminal(units: Unit[], aspect: Aspect, recency: Recency, opts: RenderOptions & RecencyOptions): Picked {
  const chosen = selectRecentRecords(units, recency, opts);
  const text = unitsText(chosen, aspect, opts);
  if (aspect === 'output' && text === '' && metadataOnly(units)) {
    throw new SivtrError(
      `no output recorded for ${describe(chosen)}: without the recorder sivtr keeps commands only`,
      'record outputs with `sivtr shell`, or start it in every new terminal with `sivtr init bash --auto-start` (or zsh, pwsh)',
    );
  }
  const plain = opts.ansi ? unitsText(chosen, aspect, { ...opts, ansi: false }) : text;
  const suffix = aspect === 'output' ? '/p3' : aspect === 'command' ? '/p2' : '';
  return { text, plain, what: describe(chosen), ...(chosen.length === 1 ? { ref: chosen[0]!.ref + suffix } : {}) };
}

export type AgentMode = 'turn' | 'in' | 'out' | 'tool' | 'all';
export const AGENT_MODES = ['in', 'out', 'tool', 'all'] as const;

type Item = { unit: Unit; parts: Part[] };

function itemsFor(units: Unit[], mode: AgentMode): Item[] {
  switch (mode) {
    case 'turn':
      return units.filter((u) => u.complete !== false).map((u) => {
        return { unit: u, parts: [...u.parts.filter((p) => p.kind === 'user'), ...replyParts(u)] };
      });
    case 'in':
      return units.flatMap((u) => u.parts.filter((p) => p.kind === 'user').slice(0, 1).map((p) => ({ unit: u, parts: [p] })));
    case 'out':
      return units.filter((u) => u.complete !== false).flatMap((u) => {
        const reply = replyParts(u);
        return reply.length > 0 ? [{ unit: u, parts: reply }] : [];
      });
    case 'tool':
      return units.flatMap((u) => u.parts.filter((p) => p.kind === 'tool_output').map((p) => ({ unit: u, parts: [p] })));
    case 'all':
      return units.map((u) => ({ unit: u, parts: u.parts }));
  }
}

const NOUNS: Record<AgentMode, string> = { turn: 'completed turn', in: 'user message', out: 'reply', tool: 'tool output', all: 'turn' };

export function pickAgent(units: Unit[], mode: AgentMode, recency: Recency | undefined, sessionLabel: string): Picked {
  const items = itemsFor(units, mode);
  if (items.length === 0) throw new SivtrError(`no ${NOUNS[mode]} in ${sessionLabel} yet`, 'pick another session with --session N or ID');
  const picked = mode === 'all' && recency === undefined ? items : selectRecent(items, recency ?? { from: 1, to: 1 }, NOUNS[mode]);
  // Cut tool outputs among what was picked come back whole where the agent kept the full text.
  const notes: string[] = [];
  const chosen = picked.map((item) => {
    if (!item.parts.some((p) => p.truncated)) return item;
    const restored = restoreUnits([{ ...item.unit, parts: item.parts }]);
    notes.push(...restored.notes);
    return { unit: item.unit, parts: restored.units[0]!.parts };
  });
  const render = (item: Item): string =>
    mode === 'turn' || mode === 'all' ? renderParts(item.parts) : item.parts.map((p) => p.text).join('\n\n');
  const text = chosen.map(render).join('\n\n');
  const turns = [...new Set(chosen.map((i) => i.unit.index))];
  const what = `${sessionLabel} turn${turns.length === 1 ? '' : 's'} ${turns.length === 1 ? turns[0] : `${turns[0]}–${turns.at(-1)}`}`;
  const one = chosen.length === 1 ? chosen[0]! : undefined;
  const ref = one && (one.parts.length === 1 ? `${one.unit.ref}/p${one.parts[0]!.n}` : one.unit.ref);
  return { text, plain: text, what, ...(ref ? { ref } : {}), ...(notes.length > 0 ? { notes } : {}) };
}
