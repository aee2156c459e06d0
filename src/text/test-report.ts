// What a test runner or checker said failed, read from its printed output: vitest, jest, pytest,
// go test, cargo test, tsc and eslint (the formats each prints to a terminal or a pipe; the
// pairs in fixtures/runners/ pin them). Two reports compare into newly failing, fixed and still
// failing, each with the file:line the runner pointed at. A failure is known by what stays put
// between runs — the test's file and name, or a diagnostic's file, code or rule, and message —
// never by its line, which moves when code above it changes.
import stripAnsi from 'strip-ansi';

export type Failure = {
  /** What identifies the failure across runs. */
  id: string;
  /** The test's name, or the diagnostic's message. */
  name: string;
  /** `file:line`, when the runner printed one. */
  location?: string;
};

export type TestReport = { runner: string; failures: Failure[] };

export type ReportDiff = { runner: string; newlyFailing: Failure[]; fixed: Failure[]; stillFailing: Failure[] };

/** `file:line` of a `file:line:col` (or `file:line`) reference. */
function fileLine(ref: string): string {
  const m = /^(.*?):(\d+)(?::\d+)?$/.exec(ref.trim());
  return m ? `${m[1]}:${m[2]}` : ref.trim();
}

function unique(failures: Failure[]): Failure[] {
  const seen = new Map<string, Failure>();
  for (const f of failures) {
    const had = seen.get(f.id);
    if (!had) seen.set(f.id, f);
    else if (!had.location && f.location) had.location = f.location;
  }
  return [...seen.values()];
}

// ── vitest: ` FAIL  file > suite > name`, then ` ❯ file:line:col` in its block ──
function vitest(lines: string[]): Failure[] {
  const out: Failure[] = [];
  let current: Failure | undefined;
  for (const line of lines) {
    const head = /^ FAIL {1,2}(\S+) > (.+?)(?: \[.*\])?$/.exec(line);
    if (head) {
      current = { id: `${head[1]} > ${head[2]}`, name: head[2]!, location: undefined };
      out.push(current);
      continue;
    }
    const at = /^ ❯ (\S+:\d+:\d+)$/.exec(line);
    if (at && current && current.location === undefined) current.location = fileLine(at[1]!);
    if (/^⎯{3,}/.test(line)) current = undefined;
  }
  return out.map((f) => (f.location === undefined ? { id: f.id, name: f.name } : f));
}

// ── jest: `FAIL file`, then `● suite › name` blocks with `at … (file:line:col)` ──
function jest(lines: string[]): Failure[] {
  const out: Failure[] = [];
  let file: string | undefined;
  let current: Failure | undefined;
  for (const line of lines) {
    const suite = /^FAIL (\S+)/.exec(line);
    if (suite) {
      file = suite[1];
      current = undefined;
      continue;
    }
    const head = /^ {2}● (.+)$/.exec(line);
    if (head && !/^Test suite failed to run/.test(head[1]!)) {
      current = { id: `${file ?? ''} › ${head[1]}`, name: head[1]! };
      out.push(current);
      continue;
    }
    const at = /^\s+at .*?\(?((?:\.{0,2}\/)?[^\s()]+:\d+:\d+)\)?$/.exec(line);
    if (at && current && current.location === undefined && !at[1]!.includes('node_modules')) current.location = fileLine(at[1]!);
  }
  return out;
}

// ── pytest: `FAILED nodeid - message` in the short summary; `file:line: Error` in each failure ──
function pytest(lines: string[]): Failure[] {
  const where = new Map<string, string>();
  let section: string | undefined;
  for (const line of lines) {
    const head = /^_{3,} (.+?) _{3,}$/.exec(line);
    if (head) section = head[1];
    const at = /^(\S+\.py):(\d+): \w/.exec(line);
    if (at && section !== undefined && !where.has(section)) where.set(section, `${at[1]}:${at[2]}`);
  }
  const out: Failure[] = [];
  for (const line of lines) {
    const m = /^(?:FAILED|ERROR) (\S+?)(?: - .*)?$/.exec(line);
    if (!m) continue;
    const id = m[1]!;
    const name = id.split('::').slice(1).join('.') || id;
    const location = where.get(name) ?? where.get(id.split('::').at(-1)!);
    out.push(location ? { id, name, location } : { id, name });
  }
  return out;
}

// ── go test: `--- FAIL: TestName (0.00s)`, then `    file_test.go:8: message` ──
function goTest(lines: string[]): Failure[] {
  const out: Failure[] = [];
  const open: Failure[] = [];
  for (const line of lines) {
    const head = /^(\s*)--- FAIL: (\S+)/.exec(line);
    if (head) {
      const f: Failure = { id: head[2]!, name: head[2]! };
      out.push(f);
      open.push(f);
      continue;
    }
    const at = /^\s+(\S+\.go):(\d+): /.exec(line);
    if (at) {
      const f = open.findLast((o) => o.location === undefined);
      if (f) f.location = `${at[1]}:${at[2]}`;
      continue;
    }
    const pkg = /^(?:FAIL|ok)\s+(\S+)\s/.exec(line);
    if (pkg) {
      for (const f of open) f.id = `${pkg[1]}.${f.id}`;
      open.length = 0;
    }
  }
  return out;
}

// ── cargo test: `test name ... FAILED` (or `name --- FAILED`), `thread 'name' … panicked at file:line:col` ──
function cargo(lines: string[]): Failure[] {
  const where = new Map<string, string>();
  for (const line of lines) {
    const m = /^thread '([^']+)'(?: \(\d+\))? panicked at (?:'.*', )?(\S+:\d+:\d+):?$/.exec(line);
    if (m && !where.has(m[1]!)) where.set(m[1]!, fileLine(m[2]!));
  }
  const names: string[] = [];
  let inList = false;
  for (const line of lines) {
    const m = /^test (\S+) \.\.\. FAILED$/.exec(line) ?? /^(\S+) --- FAILED$/.exec(line);
    if (m) names.push(m[1]!);
    if (line === 'failures:') inList = true;
    else if (inList) {
      const listed = /^ {4}(\S+)$/.exec(line);
      if (listed) names.push(listed[1]!);
      else if (line.trim() !== '' && !line.startsWith('---- ')) inList = false;
    }
  }
  return names.map((n) => (where.has(n) ? { id: n, name: n, location: where.get(n)! } : { id: n, name: n }));
}

// ── tsc: `file(line,col): error TSnnnn: message` or, with --pretty, `file:line:col - error TSnnnn: message` ──
function tsc(lines: string[]): Failure[] {
  const out: Failure[] = [];
  for (const line of lines) {
    const m = /^(\S.*?)\((\d+),\d+\): error (TS\d+): (.*)$/.exec(line) ?? /^(\S.*?):(\d+):\d+ - error (TS\d+): (.*)$/.exec(line);
    if (m) out.push({ id: `${m[1]} ${m[3]} ${m[4]}`, name: `${m[3]}: ${m[4]}`, location: `${m[1]}:${m[2]}` });
  }
  return out;
}

// ── eslint (stylish): a file's path on a line of its own, then `  line:col  severity  message  rule` ──
function eslint(lines: string[]): Failure[] {
  const out: Failure[] = [];
  let file: string | undefined;
  for (const line of lines) {
    if (/^\S/.test(line) && !/^✖/.test(line)) {
      file = line.trim();
      continue;
    }
    const m = /^ {2}(\d+):\d+ +(error|warning) +(.+?)(?: {2,}(\S+))?$/.exec(line);
    if (m && file !== undefined) {
      const rule = m[4] ?? '';
      out.push({ id: `${file} ${rule} ${m[3]}`, name: `${m[2]} ${m[3]}${rule ? ` (${rule})` : ''}`, location: `${file}:${m[1]}` });
    }
  }
  return out;
}

type Runner = { name: string; detect: RegExp; parse: (lines: string[]) => Failure[] };

/** Tried in order: the first whose mark is in the output reads it. */
const RUNNERS: Runner[] = [
  { name: 'cargo test', detect: /^test result: (?:ok|FAILED)\.|^running \d+ tests?$/m, parse: cargo },
  { name: 'go test', detect: /^--- (?:FAIL|PASS): |^(?:ok|FAIL)\t\S+/m, parse: goTest },
  { name: 'pytest', detect: /^=+ (?:test session starts|short test summary info) =+$/m, parse: pytest },
  { name: 'vitest', detect: /^ RUN {2}v\d|^ +Test Files {2}/m, parse: vitest },
  { name: 'jest', detect: /^Test Suites: /m, parse: jest },
  { name: 'tsc', detect: /\): error TS\d+: | - error TS\d+: |^Found \d+ errors?/m, parse: tsc },
  { name: 'eslint', detect: /^✖ \d+ problems? \(/m, parse: eslint },
];

export const RUNNER_NAMES = RUNNERS.map((r) => r.name);

/** The runner's report, or undefined when no runner's output is recognised. */
export function parseTestReport(text: string): TestReport | undefined {
  const plain = stripAnsi(text).replace(/\r\n/g, '\n');
  const runner = RUNNERS.find((r) => r.detect.test(plain));
  if (!runner) return undefined;
  return { runner: runner.name, failures: unique(runner.parse(plain.split('\n'))) };
}

export function compareReports(before: TestReport, after: TestReport): ReportDiff {
  const was = new Map(before.failures.map((f) => [f.id, f]));
  const now = new Set(after.failures.map((f) => f.id));
  return {
    runner: after.runner,
    newlyFailing: after.failures.filter((f) => !was.has(f.id)),
    fixed: before.failures.filter((f) => !now.has(f.id)),
    stillFailing: after.failures.filter((f) => was.has(f.id)),
  };
}
