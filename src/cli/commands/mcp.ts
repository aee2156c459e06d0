// `sivtr mcp`: serve the memory to an agent over MCP (stdio); `--print-config AGENT` prints what
// that agent's configuration needs to start it.
import { UsageError } from '../../errors.js';
import type { CommandSpec, ParsedArgs } from '../spec.js';

export const spec: CommandSpec = {
  name: 'mcp',
  usage: '',
  describe: 'serve search, show, recent commands, sessions and diff to agents over MCP (stdio)',
  flags: {
    'print-config': { type: 'string', describe: 'print the configuration snippet an agent needs (claude, codex, gemini, …)' },
  },
  examples: [
    ['sivtr mcp --print-config claude', 'the snippet for Claude Code'],
    ['sivtr init --mcp codex', 'add the server to Codex\'s config.toml (a backup is kept)'],
  ],
};

export async function run(args: ParsedArgs): Promise<number> {
  if (args._.length > 0) throw new UsageError(`unexpected argument: ${args._[0]}`, 'usage: sivtr mcp [--print-config AGENT]');
  if (typeof args['print-config'] === 'string') {
    const { printConfig } = await import('../../mcp/agent-config.js');
    process.stdout.write(printConfig(args['print-config']));
    return 0;
  }
  const { serve } = await import('../../mcp/server.js');
  await serve();
  return 0;
}
