// Bundles src/ into dist/ so `npx sivtr` starts fast: one ESM entry plus lazily loaded chunks.
// Native modules and yargs stay external so they load only when a command needs them.
import { build } from 'esbuild';

import { rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: { sivtr: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  packages: 'external',
  logLevel: 'warning',
  chunkNames: 'chunks/[name]-[hash]',
  // Whitespace and syntax only: identifiers stay readable in stack traces (SIVTR_DEBUG=1).
  minifyWhitespace: true,
  minifySyntax: true,
});
