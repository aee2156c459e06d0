// Roo Code: the VS Code extension `rooveterinaryinc.roo-cline`, Cline's task folders plus a
// `history_item.json` per task (3.49+), read by the task-folder reader.
import { extensionStorages, taskProvider } from './cline-tasks.js';

export const roo = taskProvider({
  name: 'roo',
  label: 'Roo Code',
  storages: (env) => extensionStorages(env, 'rooveterinaryinc.roo-cline'),
});
