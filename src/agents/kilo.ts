// Kilo Code, in both of its generations: the Kilo CLI (an OpenCode fork: `kilo.db`, read by the
// OpenCode reader) and the legacy VS Code extension `kilocode.kilo-code` (Cline's task folders,
// read by the task-folder reader). One provider, so `kilo/<id>` finds a session in either.
import { extensionStorages, taskProvider } from './cline-tasks.js';
import { kiloCli } from './opencode.js';
import type { Provider } from './types.js';

const legacy = taskProvider({ name: 'kilo', label: 'Kilo Code (extension)', storages: (env) => extensionStorages(env, 'kilocode.kilo-code') });

/** Database sessions are addressed as `kilo:<id>`; task folders by their path. */
const fromDb = (location: string): boolean => location.startsWith('kilo:');

export const kilo: Provider = {
  name: 'kilo',
  async *discover(opts) {
    yield* kiloCli.discover(opts);
    yield* legacy.discover(opts);
  },
  load: (summary, opts) => (fromDb(summary.location) ? kiloCli : legacy).load(summary, opts),
  dataLocation: (env) => `${kiloCli.dataLocation!(env)} and ${legacy.dataLocation!(env)}`,
  watchedPaths: (env) => [...kiloCli.watchedPaths!(env), ...legacy.watchedPaths!(env)],
};
