// A tool output the agent cut: Pi's bash tool keeps the whole output in a temp file and records
// its path (details.fullOutputPath); show and copy give the whole text back, marked as restored,
// or say it was cut and by how much when that file is gone. The session is a genuine Pi 0.73.1
// transcript with its first bash result rewritten the way Pi writes a truncated one.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';

const GENUINE = join(ROOT, 'fixtures', 'real', 'pi-0.73.1', 'home', '.pi', 'agent', 'sessions', '--tmp-sivtr-conformance-pi-proj--');
const MAIN = '01a230d6-a7a1-72eb-b91d-70cf13dd1d39';
const FULL = Array.from({ length: 2000 }, (_, i) => `line ${i + 1} of the build`).join('\n');
const SHOWN = FULL.split('\n').slice(-20).join('\n');

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let sideFile: string;

beforeAll(() => {
  tmp = tempDir('sivtr-restore-');
  sideFile = join(tmp.path, 'pi-bash-0123456789abcdef.log');
  writeFileSync(sideFile, FULL + '\n');
  const dir = join(tmp.path, '.pi', 'agent', 'sessions', '--tmp-sivtr-conformance-pi-proj--');
  mkdirSync(dir, { recursive: true });
  const name = readdirSync(GENUINE).find((f) => f.includes(MAIN.slice(9)))!;
  const lines = readFileSync(join(GENUINE, name), 'utf8').split('\n');
  const at = lines.findIndex((l) => l.includes('"role":"toolResult"') && l.includes('"toolName":"bash"'));
  const record = JSON.parse(lines[at]!);
  record.message.content = [{ type: 'text', text: `${SHOWN}\n\n[Showing lines 1981-2000 of 2000. Full output: ${sideFile}]` }];
  record.message.details = {
    truncation: { truncated: true, truncatedBy: 'lines', totalLines: 2000, totalBytes: Buffer.byteLength(FULL), outputLines: 20, outputBytes: Buffer.byteLength(SHOWN), lastLinePartial: false, firstLineExceedsLimit: false, maxLines: 20, maxBytes: 51200 },
    fullOutputPath: sideFile,
  };
  lines[at] = JSON.stringify(record);
  writeFileSync(join(dir, name), lines.join('\n'));
  env = cleanEnv(tmp.path);
});
afterAll(() => tmp.cleanup());

const firstToolOutput = (): string => {
  const r = runCli(['import', `pi/${MAIN}`, '--json'], { env });
  const units = (JSON.parse(r.stdout) as { units: { ref: string; blocks: { part: number; kind: string; label?: string }[] }[] }).units;
  const unit = units.find((u) => u.blocks.some((b) => b.kind === 'tool_output' && b.label === 'bash'))!;
  return `${unit.ref}/p${unit.blocks.find((b) => b.kind === 'tool_output' && b.label === 'bash')!.part}`;
};

describe('restored tool output', () => {
  it('show gives the full text from the side file, marked as restored', () => {
    const ref = firstToolOutput();
    const r = runCli(['show', ref, '--max-chars', '0'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(FULL + '\n');
    expect(r.stderr).toContain(`restored the full output the agent cut, from ${sideFile}`);
    const turn = runCli(['show', ref.replace(/\/p\d+$/, ''), '--max-chars', '0'], { env });
    expect(turn.stdout).toMatch(/── p\d+ tool_output: bash \(restored\) ──\nline 1 of the build\n/);
  });

  it('copy gives the full text too, by ref and as a tool output of the session', () => {
    const ref = firstToolOutput();
    const byRef = runCli(['copy', ref, '--print'], { env });
    expect(byRef.stdout).toBe(FULL + '\n');
    expect(byRef.stderr).toContain('restored the full output the agent cut');
    const all = runCli(['copy', 'pi', 'all', '--session', MAIN, '--print'], { env, cwd: tmp.path });
    expect(all.stdout).toContain(`tool_output: bash (restored) ──\n${FULL}`);
    const budgeted = runCli(['copy', ref, '--print', '--budget', '100'], { env });
    expect(budgeted.stdout.length).toBeLessThanOrEqual(400);
    expect(budgeted.stdout).toContain('line 2000 of the build');
    expect(budgeted.stdout).toContain(`kept`);
    expect(budgeted.stdout.trimEnd().split('\n').at(-1)).toContain(`of 2000 lines`);
  });

  it('says the output was cut, and by how much, once the side file is gone', () => {
    rmSync(sideFile);
    const ref = firstToolOutput();
    const r = runCli(['show', ref], { env });
    expect(r.stdout).toContain(SHOWN);
    expect(r.stdout).not.toContain('line 1 of the build\n');
    expect(r.stderr).toContain(`the agent cut this output (kept 20 of 2000 lines, ${Buffer.byteLength(SHOWN)} of ${Buffer.byteLength(FULL)} bytes); the full text at ${sideFile} is gone`);
  });
});
