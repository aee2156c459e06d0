// The MCP server keeps the chunks' leads decoded between searches. An index another process
// brought up to date (a `sivtr search` in a shell) must be seen at the next search: a lead the
// server had not read would leave the newest record's chunk unread, as its other units could not
// reach the page.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { writeLog, type RawEntry } from '../helpers/terminal-log.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let client: Client;
let log: string;

const record = (command: string, minute: number): RawEntry => ({
  prompt: '$ ',
  command,
  output: `${'the build wrote its bundles and the parser read its config. '.repeat(4)}`,
  exit_code: 0,
  cwd: '/work',
  ended_at: `2026-11-20T10:${String(minute).padStart(2, '0')}:00Z`,
});

async function search(query: string, limit: number): Promise<string[]> {
  const r = (await client.callTool({ name: 'search', arguments: { query, limit, target: 'terminal' } })) as { content: { text: string }[]; isError?: boolean };
  expect(r.isError, r.content[0]?.text).not.toBe(true);
  return [...r.content[0]!.text.matchAll(/^\d+\. (\S+)/gm)].map((m) => m[1]!);
}

beforeAll(async () => {
  tmp = tempDir('sivtr-warm-leads-');
  const data = join(tmp.path, 'data');
  log = writeLog(data, 'd1d1d1d1', [
    ...Array.from({ length: 40 }, (_, i) => record(`parser config${' --verbose'.repeat(1 + (i % 5))}`, i)),
  ]);
  env = cleanEnv(tmp.path, { SIVTR_DATA_DIR: data, SIVTR_CONFIG_DIR: join(tmp.path, 'config') });
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: env as Record<string, string>, cwd: tmp.path, stderr: 'ignore' });
  client = new Client({ name: 'sivtr-test', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  tmp.cleanup();
});

describe('sivtr mcp keeps the leads between searches', () => {
  it('sees a record another process indexed', async () => {
    const before = await search('parser config', 2);
    expect(before).toHaveLength(2);
    appendFileSync(log, JSON.stringify(record('parser config', 50)) + '\n');
    // Another process brings the index up to date, so the server's own check finds nothing to write.
    const cli = runCli(['search', 'terminal', 'parser', '--limit', '1'], { env });
    expect(cli.code, cli.stderr).toBe(0);
    await new Promise((r) => setTimeout(r, 1200)); // past the server's one-second freshness
    const after = await search('config parser', 2);
    expect(after[0]).toMatch(/^terminal\/d1d1d1d1\/41(\/p\d+)?$/);
  });
});
