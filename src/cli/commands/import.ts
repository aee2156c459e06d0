// sivtr import [SOURCE] [--json] — a whole source in the block model: the current terminal log,
// `<provider>[/<session>]`, or a file whose format is detected from its content.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { SivtrError } from '../../errors.js';
import { importFile } from '../../memory/import-file.js';
import { unitJson } from '../../memory/json.js';
import { renderParts, unitText, isTerminalUnit } from '../../memory/render.js';
import { requireSourceName } from '../source-name.js';
import { getSource } from '../../memory/sources.js';
import type { OpenedSession } from '../../memory/types.js';
import { heading, out, outJson } from '../output.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';
import { listOptions } from './common.js';
import { count } from '../../plural.js';

export const spec: CommandSpec = {
  name: 'import',
  usage: '[source]',
  describe: 'load a whole source into the block model and print it',
  positionals: [{ name: 'source', describe: 'nothing (current terminal), PROVIDER[/SESSION], or a file path' }],
  flags: { json: { type: 'boolean', describe: 'print JSON' } },
  examples: [
    ['sivtr import', 'the current terminal log'],
    ['sivtr import claude/3f2a9c1d --json', 'a Claude Code session as JSON'],
    ['sivtr import ./rollout.jsonl', 'any supported transcript file'],
  ],
};

async function open(source: string | undefined, args: ParsedArgs): Promise<OpenedSession> {
  const opts = listOptions(args);
  if (source === undefined) return getSource('terminal').open('current', opts);
  const looksLikePath = source.includes('/') && (source.startsWith('.') || source.startsWith('/') || source.startsWith('~'));
  if (looksLikePath || (existsSync(source) && statSync(source).isFile())) {
    const path = resolve(source.replace(/^~(?=\/)/, opts.env.HOME ?? '~'));
    if (!existsSync(path)) throw new SivtrError(`no such file: ${path}`, 'check the path');
    return importFile(path, opts.env);
  }
  const [name, session, ...rest] = source.split('/');
  requireSourceName(name!);
  if (rest.length > 0) throw new SivtrError(`"${source}" names more than a session`, 'use `sivtr show` for a turn or part');
  return getSource(name!).open(session ?? 'current', opts);
}

export async function run(args: ParsedArgs): Promise<number> {
  const session = await open(args._[0], args);
  const { info, units } = session;
  if (args.json) {
    const s: Record<string, unknown> = { id: info.id };
    if (info.cwd !== undefined) s.cwd = info.cwd;
    if (info.title !== undefined) s.title = info.title;
    if (info.updatedAt !== undefined) s.updated_at = info.updatedAt;
    s.location = info.location;
    outJson({ source: info.source, session: s, units: units.map((u) => unitJson(u, session)) });
    return 0;
  }
  const noun = info.source === 'terminal' ? 'record' : 'turn';
  const head = `# ${info.source}/${info.displayId} — ${count(units.length, noun)}${info.title ? ` — ${info.title}` : ''}\n# ${info.location}`;
  const body = units.map((u) => `${heading(u.ref, u.complete)}\n${isTerminalUnit(u) ? unitText(u, 'block') : renderParts(u.parts)}`);
  out([head, ...body].join('\n\n') + '\n');
  return 0;
}
