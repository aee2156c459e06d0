// A command is declared once: the fast argv parser and the yargs app (help, validation) both
// read the same spec, so the hot path needs no yargs and the flags can never drift apart.
export type FlagSpec = {
  type: 'boolean' | 'string' | 'number';
  describe: string;
  alias?: string;
  choices?: readonly string[];
  default?: string | number | boolean;
};

export type PositionalSpec = { name: string; describe: string; variadic?: boolean };

export type CommandSpec = {
  name: string;
  /** `copy [mode] [selector]`: the yargs command string after the name. */
  usage: string;
  describe: string;
  positionals?: PositionalSpec[];
  flags?: Record<string, FlagSpec>;
  /** Everything after the command name is positional (`sivtr run ls -la`). */
  passThrough?: boolean;
  examples?: [string, string][];
};

export type ParsedArgs = { _: string[]; [flag: string]: unknown };

export type CommandModule = {
  spec: CommandSpec;
  run(args: ParsedArgs): Promise<number | void>;
};

export type CommandEntry = {
  name: string;
  aliases?: Record<string, string[]>; // alias → arguments it stands for (`co` → ['out'])
  hidden?: boolean;
  load(): Promise<CommandModule>;
};

/** Flags every command accepts. */
export const GLOBAL_FLAGS: Record<string, FlagSpec> = {
  color: { type: 'string', describe: 'colour output', choices: ['always', 'never', 'auto'], default: 'auto' },
  reveal: { type: 'boolean', describe: 'print and copy secrets as they are (masked by default)' },
};
