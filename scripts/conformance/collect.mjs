// Copies what one driver run left in its scratch HOME into fixtures/real/<agent>-<version>/:
// only the files sivtr reads (laid out under home/ exactly as the CLI wrote them, so a test can
// point HOME at a copy), the CLI's own stdout per step, run.json (ids and version) and NOTES.md.
// usage: node collect.mjs <set> <fixtures/real>
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
if (process.argv[2] === '--notes') {
  // NOTES.md again from run.json and the files, after editing notes/<agent>-<version>.md
  const root = process.argv[3];
  for (const d of readdirSync(root)) if (existsSync(join(root, d, 'run.json'))) writeNotes(join(root, d), JSON.parse(readFileSync(join(root, d, 'run.json'), 'utf8')));
  process.exit(0);
}
const [set, outRoot] = process.argv.slice(2);
const runs = process.env.RUNS_ROOT;
const samples = process.env.SAMPLES_DIR;
const run = join(runs, set);
const home = join(run, 'home');
const sample = join(samples, set);

// `<agent>-edits`: the agent's second scenario (it writes a file), in a set of its own
const scenario = set.endsWith('-edits') ? '-edits' : '';
const agent = set.replace(/-edits$/, '').replace(/-\d.*$/, '');
const info = readFileSync(join(sample, 'run-info.txt'), 'utf8');
const version = /(\d+\.\d+\.\d+)/.exec(/^cli: (.*)$/m.exec(info)?.[1] ?? '')?.[1];
if (!version) throw new Error(`no CLI version in ${sample}/run-info.txt`);
const out = join(outRoot, `${agent}-${version}${scenario}`);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

/** Copy <from> (file or folder) to home/<to>, keeping only files `keep` accepts. */
/** @param {(path: string) => boolean} [keep] */
function take(from, to, keep = () => true) {
  if (!existsSync(from)) return;
  cpSync(from, join(out, 'home', to), { recursive: true, filter: (src) => statSync(src).isDirectory() || keep(src) });
}

/** An SQLite file as one self-contained file: the WAL folded in, free pages dropped. */
function takeDb(from, to) {
  if (!existsSync(from)) return;
  const dest = join(out, 'home', to);
  mkdirSync(dirname(dest), { recursive: true });
  execFileSync('sqlite3', [from, `VACUUM INTO '${dest.replaceAll("'", "''")}'`]);
}

switch (agent) {
  case 'claude':
    take(join(home, '.claude', 'projects'), '.claude/projects');
    break;
  case 'codex':
    take(join(home, '.codex', 'sessions'), '.codex/sessions');
    for (const f of readdirSync(join(home, '.codex'))) if (/^state_\d+\.sqlite$/.test(f)) takeDb(join(home, '.codex', f), `.codex/${f}`);
    break;
  case 'pi':
    // the driver keeps pi's agent dir outside HOME (PI_CODING_AGENT_DIR); its default is ~/.pi/agent
    take(join(run, 'agent', 'sessions'), '.pi/agent/sessions');
    break;
  case 'gemini':
    take(join(home, '.gemini', 'tmp'), '.gemini/tmp', (src) => /\/chats\/[^/]+$/.test(src) || src.endsWith('/.project_root'));
    take(join(home, '.gemini', 'projects.json'), '.gemini/projects.json');
    break;
  case 'opencode':
    takeDb(join(home, '.local', 'share', 'opencode', 'opencode.db'), '.local/share/opencode/opencode.db');
    break;
  case 'qwen':
    take(join(home, '.qwen', 'projects'), '.qwen/projects', (src) => /\/chats\/[^/]+\.jsonl$/.test(src));
    break;
  case 'droid':
    take(join(home, '.factory', 'sessions'), '.factory/sessions', (src) => src.endsWith('.jsonl'));
    break;
  case 'continue':
    take(join(home, '.continue', 'sessions'), '.continue/sessions', (src) => src.endsWith('.json'));
    break;
  case 'copilot':
    // the transcript and the workspace file beside it; the databases only index what it holds
    take(join(home, '.copilot', 'session-state'), '.copilot/session-state', (src) => src.endsWith('/events.jsonl') || src.endsWith('/workspace.yaml'));
    break;
  case 'kilo':
    takeDb(join(home, '.local', 'share', 'kilo', 'kilo.db'), '.local/share/kilo/kilo.db');
    break;
  case 'auggie':
    take(join(home, '.augment', 'sessions'), '.augment/sessions', (src) => src.endsWith('.json'));
    break;
  default:
    // CLIs sivtr does not read yet: the driver's own selection, without dumps that repeat it
    cpSync(sample, join(out, 'sample'), { recursive: true, filter: (src) => !/\/(cli-stdout|db-dump|export)(\/|$)/.test(src) && !src.endsWith('run-info.txt') });
}
cpSync(join(sample, 'cli-stdout'), join(out, 'cli-stdout'), { recursive: true });

// ids as the driver printed them ("main session id: X", "fork … session id: Y", "branch point Z")
const ids = {};
for (const line of info.split('\n')) {
  const m = /^(main|fork)[^:]*?(?:session[ _]id|session ids?)[^:]*: (\S+)/.exec(line) ?? /^(session ids) \(turn1, turn2, turn3\): (\S+)/.exec(line);
  if (m) ids[m[1] === 'session ids' ? 'main' : m[1]] = m[2];
  const branch = /branch point ([0-9a-f-]{36})/.exec(line);
  if (branch) ids.branchAt = branch[1];
}
const runInfo = { set, agent, version, cli: /^cli: (.*)$/m.exec(info)[1], ids, cwd: join(run, 'proj'), generated: new Date().toISOString().slice(0, 10) };
writeFileSync(join(out, 'run.json'), JSON.stringify(runInfo, null, 2) + '\n');
const files = writeNotes(out, runInfo);
console.log(`${set}: ${relative(process.cwd(), out)} (${files.length} files, ${files.reduce((n, f) => n + f.bytes, 0)} bytes)`);

function writeNotes(dir, runInfo) {
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name !== 'NOTES.md') files.push({ path: relative(dir, p), bytes: statSync(p).size });
    }
  };
  walk(dir);
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  const notesFile = join(here, 'notes', `${runInfo.agent}-${runInfo.version}${runInfo.set.endsWith('-edits') ? '-edits' : ''}.md`);
  const handWritten = existsSync(notesFile) ? readFileSync(notesFile, 'utf8').trim() : '_No notes written for this version yet._';
  const notes = [
    `# ${runInfo.agent} ${runInfo.version}: genuine sessions`,
    '',
    `Written by the real \`${runInfo.cli}\` against scripts/conformance/mock-llm.cjs (fresh HOME, \`npm run conformance ${runInfo.set}\`, ${runInfo.generated}).`,
    `The project directory was \`${runInfo.cwd}\`. \`home/\` holds only what sivtr reads, where the CLI put it (\`sample/\` for agents sivtr does not read yet); \`cli-stdout/\` is the CLI's own output per step.`,
    '',
    '## Ids',
    ...Object.entries(runInfo.ids).map(([k, v]) => `- ${k}: \`${v}\``),
    '',
    '## Files',
    ...files.filter((f) => !f.path.startsWith('cli-stdout/')).map((f) => `- \`${f.path}\` (${f.bytes} bytes)`),
    '',
    '## What the driver did and what surprised us',
    '',
    handWritten,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'NOTES.md'), notes);
  return files;
}
