// What the user asked never to be kept (`[capture]` in config.toml): whole commands
// (ignore_commands, shell-style globs), pieces of text (mask_patterns, JavaScript regexes) and,
// with mask_secrets, every secret the output rules find. The recorder applies them before an entry
// is written. The shell hooks cannot run a regex without starting a process at the prompt, so in
// hooks-only mode the line reaches the log and the next sivtr that reads the log rewrites it in
// place (log-offsets.ts); every reader also applies them, so a log sivtr may not rewrite
// (read-only) still never shows what the rules keep out.
import { existsSync, readFileSync } from 'node:fs';
import { warn } from '../errors.js';
import { maskSecrets } from '../text/secrets.js';
import { configFile, type Env } from './paths.js';

/** The rules as data: what config.toml says, and what a recorder worker is handed. */
export type CaptureRulesData = { ignoreCommands: string[]; maskPatterns: string[]; maskSecrets: boolean };

export type CaptureRules = {
  data: CaptureRulesData;
  ignores(command: string): boolean;
  /** The text with every pattern (and, with mask_secrets, every secret) replaced. */
  mask(text: string): string;
};

/** What stands where a pattern matched, in the log itself. */
export const KEPT_OUT = '[kept out]';

export const NO_RULES: CaptureRulesData = { ignoreCommands: [], maskPatterns: [], maskSecrets: false };

const hasRules = (d: CaptureRulesData): boolean => d.ignoreCommands.length > 0 || d.maskPatterns.length > 0 || d.maskSecrets;

/** `vault` ignores `vault` and `vault read x`; `*` and `?` are wildcards, as in the shell. */
function globToRegExp(glob: string): RegExp {
  const body = glob.trim().replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}(?:\\s.*)?$`, 's');
}

/** Compiled rules, or undefined when there are none (the common case costs nothing). */
export function compileCaptureRules(data: CaptureRulesData): CaptureRules | undefined {
  if (!hasRules(data)) return undefined;
  const globs = data.ignoreCommands.map(globToRegExp);
  const patterns: RegExp[] = [];
  for (const source of data.maskPatterns) {
    try {
      patterns.push(new RegExp(source, 'g'));
    } catch (error) {
      warn(`ignoring mask_patterns entry ${JSON.stringify(source)}: ${(error as Error).message} — use JavaScript regex syntax`);
    }
  }
  return {
    data,
    ignores: (command) => globs.some((g) => g.test(command.trim())),
    mask(text) {
      let out = text;
      for (const p of patterns) out = out.replace(p, (m) => (m === '' ? m : KEPT_OUT));
      return data.maskSecrets ? maskSecrets(out).text : out;
    },
  };
}

const TEXT_FIELDS = ['prompt', 'prompt_ansi', 'command', 'command_shown', 'output', 'output_ansi'] as const;

/**
 * An entry as the rules allow it to be kept: undefined when its command is ignored, the same
 * object when nothing matched, else a copy with the matches replaced.
 */
export function applyCaptureRules<T extends { command: string; [key: string]: unknown }>(entry: T, rules: CaptureRules | undefined): T | undefined {
  if (!rules) return entry;
  if (rules.ignores(entry.command)) return undefined;
  let copy: T | undefined;
  for (const field of TEXT_FIELDS) {
    const value = entry[field];
    if (typeof value !== 'string' || value === '') continue;
    const masked = rules.mask(value);
    if (masked !== value) ((copy ??= { ...entry }) as Record<string, unknown>)[field] = masked;
  }
  return copy ?? entry;
}

function stringList(value: unknown, key: string, path: string): string[] {
  if (value === undefined) return [];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  warn(`ignoring ${key} in ${path} — use a list of strings, e.g. ${key} = ["vault", "pass show"]`);
  return [];
}

/** `[capture]` of config.toml (no file, no section: no rules). smol-toml loads only when the file names the section. */
export async function loadCaptureRules(env: Env = process.env): Promise<CaptureRulesData> {
  const path = configFile(env);
  if (!existsSync(path)) return NO_RULES;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return NO_RULES;
  }
  if (!/^\s*\[capture\]/m.test(text)) return NO_RULES;
  let parsed: Record<string, unknown>;
  try {
    const { parse } = await import('smol-toml');
    parsed = parse(text) as Record<string, unknown>;
  } catch (error) {
    warn(`ignoring ${path}: ${(error as Error).message.split('\n')[0]} — fix the TOML syntax`);
    return NO_RULES;
  }
  const section = parsed.capture;
  if (typeof section !== 'object' || section === null) return NO_RULES;
  const s = section as Record<string, unknown>;
  return {
    ignoreCommands: stringList(s.ignore_commands, 'ignore_commands', path),
    maskPatterns: stringList(s.mask_patterns, 'mask_patterns', path),
    maskSecrets: s.mask_secrets === true,
  };
}

// The rules of this process, for the readers deep in the session layer (log offsets, spans, the
// index) that have no config of their own: set once by the CLI before a command runs.
let active: CaptureRules | undefined;

export function useCaptureRules(data: CaptureRulesData): void {
  active = compileCaptureRules(data);
}

export function activeCaptureRules(): CaptureRules | undefined {
  return active;
}
