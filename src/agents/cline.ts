// Cline: the CLI's `${CLINE_DATA_DIR:-${CLINE_DIR:-~/.cline}/data}` and the VS Code extension's
// global storage (`saoudrizwan.claude-dev`) in every editor, all read by the task-folder reader.
import { join } from 'node:path';
import { expandHome, homeOf } from './common.js';
import { extensionStorages, taskProvider } from './cline-tasks.js';

function cliData(env: NodeJS.ProcessEnv): string {
  if (env.CLINE_DATA_DIR) return join(expandHome(env.CLINE_DATA_DIR, env)); // normalised, as storages are (cline-tasks.ts names paths below them with childPath)
  return join(env.CLINE_DIR ? expandHome(env.CLINE_DIR, env) : join(homeOf(env), '.cline'), 'data');
}

export const cline = taskProvider({
  name: 'cline',
  label: 'Cline',
  storages: (env) => [cliData(env), ...extensionStorages(env, 'saoudrizwan.claude-dev')],
});
