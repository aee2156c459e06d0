// Times people type: RFC 3339 (or a bare date), Unix seconds or milliseconds, a duration ago
// (`30m`, `2h`, `7d`, `1w`, `45s`), `today`, `yesterday`, `now`. All resolve to epoch ms.
import { UsageError } from '../errors.js';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30m` → 1 800 000; undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(s|sec|secs|m|min|mins|h|hr|hrs|d|day|days|w|wk|wks)$/i.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * UNIT_MS[m[2]![0]!.toLowerCase()]!;
}

function localMidnight(now: number, daysBack: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  d.setDate(d.getDate() - daysBack);
  return d.getTime();
}

/** A point in time, or undefined when the text is none of the accepted forms. */
export function parseTime(text: string, now: number = Date.now()): number | undefined {
  const t = text.trim();
  const word = t.toLowerCase();
  if (word === 'now') return now;
  if (word === 'today') return localMidnight(now, 0);
  if (word === 'yesterday') return localMidnight(now, 1);
  if (/^\d{1,11}(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000); // Unix seconds
  if (/^\d{12,}$/.test(t)) return Number(t); // Unix milliseconds
  const ago = parseDuration(t);
  if (ago !== undefined) return now - ago;
  // RFC 3339 (`T` or space between date and time) or a bare date (local midnight).
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) {
    const [y, mo, d] = t.split('-').map(Number) as [number, number, number];
    const date = new Date(y, mo - 1, d);
    return date.getMonth() === mo - 1 ? date.getTime() : undefined;
  }
  const m = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|z|[+-]\d{2}:?\d{2})?$/.exec(t);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[3] ? m[3].toUpperCase() : ''}`);
  return Number.isNaN(ms) ? undefined : ms;
}

export function requireTime(flag: string, text: string, now: number): number {
  const ms = parseTime(text, now);
  if (ms === undefined) {
    throw new UsageError(`--${flag} ${text}: not a time`, 'use RFC 3339 (2026-05-01T09:00:00Z), a date, Unix seconds/ms, 30m, 2h, 7d, today or yesterday');
  }
  return ms;
}

export function requireDuration(flag: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new UsageError(`--${flag} ${text}: not a duration`, 'use e.g. 30m, 2h, 7d');
  return ms;
}
