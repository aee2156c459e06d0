// One side of a diff: a single recency selector (terminal) or any ref (record, turn or part),
// labelled with its ref and, in this terminal, how many commands ago it ran; and the order that
// puts the older side first, so a `+` line is always what is newer.
import { SivtrError } from '../errors.js';
import { currentTerminalLog } from '../session/log.js';
import { recencyOf, selectRecentRecords, type RecencyOptions } from './recent.js';
import { looksLikeRef, partRef, partsRef } from './ref.js';
import { isTerminalUnit, renderPart, renderParts, unitText, type Aspect } from './render.js';
import { resolveRef } from './resolve.js';
import { selectRecentRuns, type ByFilter, type Run } from './runs.js';
import { parseRecency } from './selector.js';
import { getSource } from './sources.js';
import type { ListOptions, Part, Unit } from './types.js';
import { maskSecrets } from '../text/secrets.js';

export type Side = {
  /** The exact ref of the record, turn or part. */
  ref: string;
  /** How many commands ago (in this terminal) and what it is: `(last command) make test`. */
  about: string;
  text: string;
  /** Where the side sits in time: its session, its place there, and when it ended (ms). */
  place: { location: string; index: number; at?: number };
};

const TITLE_WIDTH = 60;

function shortTitle(text: string): string {
  let line = text.trim().split('\n')[0]!.trim();
  // masked before the cut: half a token no longer matches its rule when the title is printed
  if (line.length > TITLE_WIDTH) line = maskSecrets(line).text;
  const chars = [...line];
  return chars.length > TITLE_WIDTH ? chars.slice(0, TITLE_WIDTH - 1).join('') + '…' : line;
}

function ago(recency: number | undefined): string {
  if (recency === undefined) return '';
  return recency === 1 ? '(last command)' : `(${recency} commands ago)`;
}

function unitTitle(unit: Unit): string {
  if (isTerminalUnit(unit)) return shortTitle(unit.parts[1]?.text ?? unit.title);
  return shortTitle(unit.parts.find((p) => p.kind === 'user')?.text ?? '');
}

function partTitle(part: Part): string {
  return part.label ? `${part.kind}: ${shortTitle(part.label)}` : part.kind;
}

function timeOf(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
}

const about = (recency: number | undefined, title: string): string => [ago(recency), title].filter(Boolean).join(' ');

/** `ref (N commands ago) title`, as one header line. */
export function sideLabel(side: Side): string {
  return side.about ? `${side.ref} ${side.about}` : side.ref;
}

/** The current terminal's log, when there is one: records there are also named by recency. */
function currentLog(opts: ListOptions): string | undefined {
  try {
    return currentTerminalLog(opts.env);
  } catch {
    return undefined;
  }
}

/** A run of the runs stream as one side: named by its ref, ordered by when it ended. */
export function runSide(run: Run, aspect: Aspect, opts: { ansi?: boolean } = {}, recency?: number): Side {
  const who = run.by === 'me' ? '' : `${run.source}: `;
  const title = `${who}${shortTitle(run.command)}`;
  return { ref: run.ref, about: recency === undefined ? title : `(${recency === 1 ? 'last run' : `${recency} runs ago`}) ${title}`, text: unitText(run.unit, aspect, opts), place: { location: run.fullRef, index: 0, at: timeOf(run.endedAt ?? run.startedAt) } };
}

export async function resolveSide(spec: string, aspect: Aspect, opts: ListOptions & RecencyOptions & { ansi?: boolean; by?: ByFilter }): Promise<Side> {
  if (looksLikeRef(spec)) {
    const { units, part, parts, session } = await resolveRef(spec, opts);
    if (!parts && units.length !== 1) throw new SivtrError(`diff takes one record per side, "${spec}" names ${units.length}`, 'give a single index, e.g. terminal/current/3');
    const unit = units[0]!;
    const recency = isTerminalUnit(unit) && session.info.location === currentLog(opts) ? recencyOf(session.units, unit, opts) : undefined;
    const place = { location: session.info.location, index: unit.index, at: timeOf(part?.timestamp ?? unit.at) };
    if (part) return { ref: partRef(unit, part.n), about: about(recency, partTitle(part)), text: renderPart(part, opts), place };
    if (parts) {
      // Several parts of one unit: compared as show prints them, each under its heading.
      const n = parts.map((p) => p.n);
      return { ref: partsRef(unit, n), about: about(recency, `${parts.length} parts`), text: renderParts(parts, opts), place: { ...place, at: timeOf(parts.findLast((p) => p.timestamp)?.timestamp ?? unit.at) } };
    }
    return { ref: unit.ref, about: about(recency, unitTitle(unit)), text: unitText(unit, aspect, opts), place };
  }
  const recency = parseRecency(spec);
  if (recency.from !== recency.to) throw new SivtrError(`diff takes one record per side, not the range "${spec}"`, 'use N (1 = newest) or a ref');
  if (opts.by !== undefined) {
    const [run] = await selectRecentRuns({ by: opts.by, includeSelf: opts.includeSelf }, recency, opts);
    return runSide(run!, aspect, opts, recency.from);
  }
  const session = await getSource('terminal').open('current', opts);
  const [unit] = selectRecentRecords(session.units, recency, opts);
  const place = { location: session.info.location, index: unit!.index, at: timeOf(unit!.at) };
  return { ref: unit!.ref, about: about(recency.from, unitTitle(unit!)), text: unitText(unit!, aspect, opts), place };
}

/**
 * The two sides, older first: by place within one session, else by when they ended; sides with
 * no way to tell keep the order they were typed in.
 */
export function olderFirst(a: Side, b: Side): [Side, Side] {
  if (a.place.location === b.place.location) return a.place.index <= b.place.index ? [a, b] : [b, a];
  if (a.place.at !== undefined && b.place.at !== undefined) return a.place.at <= b.place.at ? [a, b] : [b, a];
  return [a, b];
}
