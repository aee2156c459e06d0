// Unified (3 context lines) and side-by-side renderings of a line diff, coloured on request.
// The caller passes the older side first: `-`/left is older, `+`/right is newer.
import { sideLabel, type Side } from '../memory/side.js';

const RED = '\x1b[31m';
const GREEN = '\x1b[32m';
const CYAN = '\x1b[36m';
const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';

const withNewline = (s: string): string => (s === '' || s.endsWith('\n') ? s : s + '\n');

export async function unifiedDiff(left: Side, right: Side, color: boolean): Promise<string> {
  const { createTwoFilesPatch } = await import('diff');
  const patch = createTwoFilesPatch(sideLabel(left), sideLabel(right), withNewline(left.text), withNewline(right.text), '', '', { context: 3 });
  const lines = patch.split('\n').filter((l) => !/^={10,}$/.test(l));
  if (lines.at(-1) === '') lines.pop();
  // The library appends a tab to headers when no timestamp is given: drop it.
  const cleaned = lines.map((l) => (l.startsWith('--- ') || l.startsWith('+++ ') ? l.replace(/\t$/, '') : l));
  if (!color) return cleaned.join('\n') + '\n';
  return (
    cleaned
      .map((l) => {
        if (l.startsWith('--- ') || l.startsWith('+++ ')) return BOLD + l + RESET;
        if (l.startsWith('@@')) return CYAN + l + RESET;
        if (l.startsWith('-')) return RED + l + RESET;
        if (l.startsWith('+')) return GREEN + l + RESET;
        return l;
      })
      .join('\n') + '\n'
  );
}

function fit(text: string, width: number): string {
  const chars = [...text.replace(/\t/g, '    ')];
  if (chars.length > width) return chars.slice(0, Math.max(0, width - 1)).join('') + '…';
  return chars.join('') + ' '.repeat(width - chars.length);
}

type Row = { left?: string; right?: string; mark: ' ' | '|' | '<' | '>' };

export async function sideBySideDiff(left: Side, right: Side, width: number, color: boolean): Promise<string> {
  const { diffArrays } = await import('diff');
  const a = left.text === '' ? [] : left.text.split('\n');
  const b = right.text === '' ? [] : right.text.split('\n');
  const rows: Row[] = [];
  const changes = diffArrays(a, b);
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    if (!change.added && !change.removed) {
      for (const line of change.value) rows.push({ left: line, right: line, mark: ' ' });
      continue;
    }
    // A removal followed by an addition is a change: pair the lines up side by side.
    const removed = change.removed ? change.value : [];
    const next = changes[i + 1];
    const added = change.added ? change.value : next?.added ? next.value : [];
    if (change.removed && next?.added) i++;
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const l = removed[k];
      const r = added[k];
      rows.push({ left: l, right: r, mark: l !== undefined && r !== undefined ? '|' : l !== undefined ? '<' : '>' });
    }
  }
  const col = Math.max(10, Math.floor((width - 3) / 2));
  const paint = (text: string, mark: Row['mark'], side: 'l' | 'r'): string => {
    if (!color || mark === ' ') return text;
    if (side === 'l' && (mark === '<' || mark === '|')) return RED + text + RESET;
    if (side === 'r' && (mark === '>' || mark === '|')) return GREEN + text + RESET;
    return text;
  };
  // Refs on the first header line, what each side is on the second: a column cuts neither.
  const header = [`${fit(left.ref, col)} | ${fit(right.ref, col)}`.trimEnd()];
  if (left.about || right.about) header.push(`${fit(left.about, col)} | ${fit(right.about, col)}`.trimEnd());
  const out = header.map((h) => (color ? BOLD + h + RESET : h));
  for (const row of rows) {
    const l = paint(fit(row.left ?? '', col), row.mark, 'l');
    const r = paint(row.right === undefined ? '' : fit(row.right, col), row.mark, 'r');
    out.push(`${l} ${row.mark} ${r}`.trimEnd());
  }
  return out.join('\n') + '\n';
}
