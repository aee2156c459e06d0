// What changes on every run of the same command without meaning anything changed: clock times
// and dates, durations, process ids, temporary paths, uuids, hex ids and hashes, colours, and
// the frames a progress bar or spinner drew. `maskNoise` replaces each with a placeholder
// (⟨time⟩, ⟨duration⟩, …) so that two runs' outputs compare on what they said, and counts what
// it masked.
import stripAnsi from 'strip-ansi';

export type NoiseKind = 'time' | 'date' | 'duration' | 'pid' | 'tmp' | 'uuid' | 'hex' | 'progress' | 'ansi';

export type Masked = { text: string; counts: Map<NoiseKind, number> };

export const PLACEHOLDER: Record<Exclude<NoiseKind, 'ansi'>, string> = {
  time: '⟨time⟩',
  date: '⟨date⟩',
  duration: '⟨duration⟩',
  pid: '⟨pid⟩',
  tmp: '⟨tmp⟩',
  uuid: '⟨uuid⟩',
  hex: '⟨hex⟩',
  progress: '⟨progress⟩',
};

type Rule = { kind: Exclude<NoiseKind, 'ansi'>; re: RegExp; replace?: (match: string, ...groups: string[]) => string };

const UNIT = '(?:ns|µs|μs|us|ms|s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?)';

// Order matters: a full timestamp before its date and its clock time, a uuid before hex runs.
const RULES: Rule[] = [
  // 2026-12-01T09:28:26.459Z, 2026-12-01 09:28:26,123 +0100
  { kind: 'time', re: /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z| ?[+-]\d{2}:?\d{2}\b)?/g },
  // Tue Dec  1 11:44:47 UTC 2026, Dec 01 11:44:47
  { kind: 'time', re: /\b(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),? )?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2},? (?:\d{4} )?\d{2}:\d{2}(?::\d{2})?(?: [A-Z]{2,5})?(?: \d{4})?\b/g },
  { kind: 'date', re: /\b\d{4}-\d{2}-\d{2}\b/g },
  // 09:28:26, 09:28:26.459, 11:44 PM
  { kind: 'time', re: /\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b(?: ?[AP]M\b)?/g },
  { kind: 'uuid', re: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi },
  // /tmp/vitest-abc123/…, /var/folders/x1/y2/T/tmp.XYZ/…, C:\Users\me\AppData\Local\Temp\abc\…: the temporary part
  { kind: 'tmp', re: /(?:\/private)?\/var\/folders\/[^/\s]+\/[^/\s]+\/T\/[^/\s:'")]+|\/(?:tmp|var\/tmp|dev\/shm)\/[^/\s:'")]+|[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\[^\\\s:'")]+/g },
  // 1m 2.3s, 2h3m, 1.03s, 250ms, (12 ms), 3 seconds
  { kind: 'duration', re: new RegExp(`\\b\\d+(?:\\.\\d+)?\\s?(?:h|m|min)\\s?\\d+(?:\\.\\d+)?\\s?(?:m|min|s)\\b|\\b\\d+(?:\\.\\d+)?\\s?${UNIT}(?![\\w/])`, 'g') },
  // pid 1234, PID: 1234, pgid=1234, node[1234]:
  { kind: 'pid', re: /\b(pid|pgid|ppid|tid|process(?: group)?(?: id)?)\b(\s*[:=#]?\s*)\d+/gi, replace: (_m, label: string, sep: string) => `${label}${sep}${PLACEHOLDER.pid}` },
  // a Rust panic's thread id: thread 'tests::adds' (10976) panicked
  { kind: 'pid', re: /(thread '[^'\n]*' \()\d+(\))/g, replace: (_m, open: string, close: string) => `${open}${PLACEHOLDER.pid}${close}` },
  { kind: 'hex', re: /\b0x[0-9a-f]+\b/gi },
  // git hashes, content hashes, request ids: 7+ hex digits with a letter and a digit among them
  { kind: 'hex', re: /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,}\b/gi },
];

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏⣾⣽⣻⢿⡿⣟⣯⣷◐◓◑◒]/g;
/** A line that is a progress bar: a bar of block or hash characters, or a percentage with a bar. */
const PROGRESS_LINE = /[█▉▊▋▌▍▎▏░▒▓■□#=]{4,}|^\s*\d{1,3}(?:\.\d+)?%\s*\|/;

function bump(counts: Map<NoiseKind, number>, kind: NoiseKind, n = 1): void {
  counts.set(kind, (counts.get(kind) ?? 0) + n);
}

/** The last frame of each line a carriage return redrew, spinners taken off, bar lines as one placeholder. */
function lastFrames(text: string, counts: Map<NoiseKind, number>): string {
  return text
    .split('\n')
    .map((line) => {
      let out = line;
      const cr = out.replace(/\r+$/, '').lastIndexOf('\r');
      if (cr !== -1) {
        out = out.slice(cr + 1);
        bump(counts, 'progress');
      }
      const spun = out.replace(SPINNER, '');
      if (spun !== out) {
        bump(counts, 'progress');
        out = spun.replace(/^\s+/, '');
      }
      if (PROGRESS_LINE.test(out) && /\d+(?:\.\d+)?%|\d+\/\d+/.test(out)) {
        bump(counts, 'progress');
        return PLACEHOLDER.progress;
      }
      return out;
    })
    .join('\n');
}

export function maskNoise(text: string): Masked {
  const counts = new Map<NoiseKind, number>();
  let out = text;
  const plain = stripAnsi(out);
  if (plain !== out) {
    bump(counts, 'ansi');
    out = plain;
  }
  out = lastFrames(out, counts);
  for (const rule of RULES) {
    out = out.replace(rule.re, (...args: unknown[]) => {
      bump(counts, rule.kind);
      const groups = args.slice(1, -2) as string[];
      return rule.replace ? rule.replace(args[0] as string, ...groups) : PLACEHOLDER[rule.kind];
    });
  }
  return { text: out, counts };
}

/** `4 times, 2 durations, 1 pid`: what was masked, for one note line. */
export function describeMasked(counts: Map<NoiseKind, number>): string {
  const names: Record<NoiseKind, [string, string]> = {
    time: ['time', 'times'],
    date: ['date', 'dates'],
    duration: ['duration', 'durations'],
    pid: ['pid', 'pids'],
    tmp: ['temp path', 'temp paths'],
    uuid: ['uuid', 'uuids'],
    hex: ['hex id', 'hex ids'],
    progress: ['progress frame', 'progress frames'],
    ansi: ['colour', 'colours'],
  };
  return [...counts]
    .filter(([, n]) => n > 0)
    .map(([k, n]) => (k === 'ansi' ? 'colours' : `${n} ${names[k][n === 1 ? 0 : 1]}`))
    .join(', ');
}
