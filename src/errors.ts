// Errors meant for people: what is wrong and what to do, printed as one line at the CLI edge.
export class SivtrError extends Error {
  constructor(
    readonly what: string,
    readonly fix?: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(fix ? `${what} — ${fix}` : what);
    this.name = 'SivtrError';
  }
}

export class UsageError extends SivtrError {
  constructor(what: string, fix = 'see `sivtr --help`') {
    super(what, fix, 2);
  }
}

/** Warnings go to stderr in the same voice as errors; tests may capture them. */
export function warn(message: string): void {
  process.stderr.write(`sivtr: ${message}\n`);
}
