// Every command, by name and alias. Modules load lazily so a one-shot command pays only for itself.
import type { CommandEntry } from '../spec.js';

export const commands: CommandEntry[] = [
  { name: 'copy', aliases: { c: [], ci: ['in'], co: ['out'], cc: ['cmd'] }, load: () => import('./copy.js') },
  { name: 'diff', load: () => import('./diff.js') },
  { name: 'show', load: () => import('./show.js') },
  { name: 'import', load: () => import('./import.js') },
  { name: 'demo', load: () => import('./demo.js') },
  { name: 'sessions', load: () => import('./sessions.js') },
  { name: 'search', load: () => import('./search.js') },
  { name: 'files', load: () => import('./files.js') },
  { name: 'projects', load: () => import('./projects.js') },
  { name: 'runs', load: () => import('./runs.js') },
  { name: 'errors', load: () => import('./errors.js') },
  { name: 'brief', load: () => import('./brief.js') },
  { name: 'pick', load: () => import('./pick.js') },
  { name: 'run', load: () => import('./run.js') },
  { name: 'pipe', load: () => import('./pipe.js') },
  { name: 'history', load: () => import('./history.js') },
  { name: 'shell', load: () => import('./shell.js') },
  { name: 'init', load: () => import('./init.js') },
  { name: 'doctor', load: () => import('./doctor.js') },
  { name: 'mcp', load: () => import('./mcp.js') },
  { name: 'skill', load: () => import('./skill.js') },
  { name: 'overview', load: () => import('./overview.js') },
  { name: 'turns', load: () => import('./turns.js') },
  { name: 'export', load: () => import('./export.js') },
];
