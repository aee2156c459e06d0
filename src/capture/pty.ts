// The one node-pty loader. node-pty is a native module: it is loaded on use only, so commands
// that never open a PTY do not pay for it, and a failed build leaves every other command working.
export type PtyModule = typeof import('node-pty');

/** node-pty, whichever way the bundle exposes it (ESM namespace or CommonJS default). */
export async function loadPty(): Promise<PtyModule> {
  const mod = (await import('node-pty')) as Partial<PtyModule> & { default?: PtyModule };
  if (typeof mod.spawn === 'function') return mod as PtyModule;
  if (mod.default && typeof mod.default.spawn === 'function') return mod.default;
  throw new Error('node-pty loaded without a spawn function');
}

/** node-pty, or undefined when it cannot be loaded here. */
export async function tryLoadPty(): Promise<PtyModule | undefined> {
  try {
    return await loadPty();
  } catch {
    return undefined;
  }
}
