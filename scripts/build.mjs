// Bundles src/ into dist/ so `npx sivtr` starts fast: one ESM entry plus lazily loaded chunks.
// Native modules and yargs stay external so they load only when a command needs them.
import { build } from 'esbuild';

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
});
