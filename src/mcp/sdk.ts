// Loads dist/mcp-sdk.cjs, which sits beside the CLI bundle (import.meta.url is the bundle's URL).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Sdk = typeof import('./sdk-entry.js');

export function loadSdk(): Sdk {
  const here = fileURLToPath(import.meta.url);
  const bundle = join(dirname(here), 'mcp-sdk.cjs');
  return createRequire(here)(bundle) as Sdk;
}
