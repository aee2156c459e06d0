// `sivtr brief`: a context pack to paste into the next agent. What the workspace's agent sessions
// were asked and what they concluded, the commands that failed (and whether a later run of the
// same command passed), and the files written — each item with its ref. Within the budget the
// newest requests are kept whole and older ones cut to a line; a turn's tool activity is listed
// as a footprint (`Bash ×4, Edit ×2`), never quoted inside the prose.
import { fileLedger } from './file-ledger.js';
import { collectRuns, runStatus, type Run } from './runs.js';
import { replyParts } from './render.js';
import { allSources } from './sources.js';
import type { ListOptions, Unit } from './types.js';
import { fitToBudget, type Budget } from './budget.js';

/**
 * `mask`: the text as it may leave sivtr (secrets masked unless revealed), applied before any cut:
 * a token cut in half by an ellipsis no longer matches its rule.
 */
export type BriefQuery = { since: number; budget: Budget; now: number; label: string; mask?: (text: string) => string };

type Request = { unit: Unit; at: number; asked: string; answer: string; open: boolean; tools: string };

const ms = (iso: string | undefined): number | undefined => {
  if (iso === undefined) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
};

const flat = (text: string, max: number): string => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? one.slice(0, max - 1) + '…' : one;
};

function footprint(unit: Unit): string {
  const counts = new Map<string, number>();
  for (const p of unit.parts) if (p.kind === 'tool_call') counts.set(p.label ?? 'tool', (counts.get(p.label ?? 'tool') ?? 0) + 1);
  return [...counts].map(([name, n]) => (n === 1 ? name : `${name} ×${n}`)).join(', ');
}

/** Agent turns of the workspace since `since`, newest first. */
async function recentTurns(opts: ListOptions, since: number): Promise<Unit[]> {
  const turns: { unit: Unit; at: number }[] = [];
  for (const source of allSources()) {
    if (source.unitKind !== 'turn') continue;
    let sessions;
    try {
      sessions = await source.list(opts);
    } catch {
      continue; // a provider whose data cannot be read leaves nothing out but itself
    }
    for (const info of sessions) {
      const updated = ms(info.updatedAt);
      if (updated !== undefined && updated < since) continue;
      let units: Unit[];
      try {
        units = (await source.open(info.id, opts)).units;
      } catch {
        continue;
      }
      for (const unit of units) {
        const at = ms(unit.at) ?? updated;
        if (at !== undefined && at >= since) turns.push({ unit, at });
      }
    }
  }
  return turns.sort((a, b) => b.at - a.at).map((t) => t.unit);
}

function requestOf(unit: Unit, now: number, mask: (text: string) => string): Request {
  const asked = mask(unit.parts.filter((p) => p.kind === 'user').map((p) => p.text).join('\n\n'));
  const answer = mask(replyParts(unit).map((p) => p.text).join('\n\n'));
  return { unit, at: ms(unit.at) ?? now, asked, answer, open: unit.complete === false, tools: footprint(unit) };
}

/** `2026-11-29 10:02`, local time. */
function clock(t: number): string {
  const d = new Date(t);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

function requestLine(r: Request): string {
  const outcome = r.open ? '(still running)' : r.answer ? flat(r.answer, 140) : '(no reply)';
  return `- ${r.unit.ref} · ${clock(r.at)} · ${flat(r.asked, 100)} → ${outcome}${r.tools ? ` [tools: ${r.tools}]` : ''}`;
}

function requestWhole(r: Request, cap: number): string {
  const cut = (text: string): string => fitToBudget(text, { chars: cap, label: `${cap} characters` }, r.unit.ref).text;
  const lines = [`### ${r.unit.ref} · ${clock(r.at)}`, `Asked: ${cut(r.asked)}`];
  lines.push(r.open ? 'Outcome: (still running)' : `Outcome: ${r.answer ? cut(r.answer) : '(no reply)'}`);
  if (r.tools) lines.push(`Tools: ${r.tools}`);
  return lines.join('\n');
}

const normalised = (command: string): string => command.replace(/\s+/g, ' ').trim();

/** Failed runs, newest first, each with the later run of the same command (in the same directory) that passed, if any. */
function failures(runs: readonly Run[], mask: (text: string) => string): string[] {
  const out: string[] = [];
  const reported = new Set<string>();
  runs.forEach((run, i) => {
    if (runStatus(run) !== 'failure') return;
    const key = `${run.cwd ?? ''}\0${normalised(run.command)}`;
    if (reported.has(key)) return; // the newest failure of a command speaks for the older ones
    reported.add(key);
    const later = runs.slice(0, i).filter((r) => `${r.cwd ?? ''}\0${normalised(r.command)}` === key);
    const fixed = later.find((r) => runStatus(r) === 'success');
    const exit = run.exitCode !== undefined ? `exit ${run.exitCode}` : 'flagged as an error';
    const by = run.by === 'me' ? 'you' : run.source;
    const verdict = fixed ? `passed later: ${fixed.ref}` : later.length > 0 ? `still failing (last run ${later[0]!.ref})` : 'not run again';
    out.push(`- \`${flat(mask(run.command), 120)}\` · ${exit} · by ${by} · ${run.ref} — ${verdict}`);
  });
  return out;
}

export async function buildBrief(opts: ListOptions, q: BriefQuery): Promise<string> {
  const mask = q.mask ?? ((text: string) => text);
  const turns = await recentTurns(opts, q.since);
  const requests = turns.filter((u) => u.parts.some((p) => p.kind === 'user')).map((u) => requestOf(u, q.now, mask));
  const runs = (await collectRuns({ by: 'all' }, opts)).filter((r) => (ms(r.endedAt) ?? ms(r.startedAt) ?? q.now) >= q.since);
  const failed = failures(runs, mask);
  const ledger = fileLedger(turns);
  const files = ledger.files.map((f) => `- ${f.host ? `${f.host}:` : ''}${f.path} — ${f.rules.join(', ')}${f.writes > 1 ? ` ×${f.writes}` : ''} · ${f.refs.at(-1)}`);

  const head = `# Context from sivtr — ${q.label}`;
  const sections = (requestBlocks: string[], dropped: number): string => {
    const parts = [head];
    parts.push(
      ['## What the agents were asked (newest first)', ...(requestBlocks.length > 0 ? requestBlocks : ['(no agent session in this workspace in that time)']), ...(dropped > 0 ? [`(${dropped} older requests left out for the budget)`] : [])].join('\n\n'),
    );
    parts.push(['## Commands that failed', ...(failed.length > 0 ? failed : ['(none)'])].join('\n'));
    parts.push(['## Files written by the agents', ...(files.length > 0 ? files : ['(none recorded)'])].join('\n'));
    return parts.join('\n\n') + '\n';
  };
  // Every request as one line; then the newest ones whole while the budget allows; then, if even
  // the lines do not fit, the oldest lines go.
  let whole = 0;
  let kept = requests.length;
  const render = (): string => {
    const blocks = requests.slice(0, kept).map((r, i) => (i < whole ? requestWhole(r, Math.max(400, Math.floor(q.budget.chars / 4))) : requestLine(r)));
    return sections(blocks, requests.length - kept);
  };
  let text = render();
  while (text.length > q.budget.chars && kept > 0) {
    kept--;
    text = render();
  }
  while (whole < kept) {
    whole++;
    const next = render();
    if (next.length > q.budget.chars) {
      whole--;
      break;
    }
    text = next;
  }
  if (text.length > q.budget.chars) text = fitToBudget(text, q.budget, undefined).text;
  return text;
}
