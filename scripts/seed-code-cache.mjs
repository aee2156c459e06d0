// A V8 code cache of each bundle's outer code, made when the bundle is built: the launcher
// (bin/sivtr.js) compiles from it until a command has written a cache of its own. Without one,
// V8 parses the whole bundle before running a line of it (the search bundle: ~62 M instructions;
// from this cache ~23 M, callgrind), and the first run of a command after an install or a build
// is the one that has no cache: a first search, which builds the index from nothing and so writes
// no cache of its own either (bin/sivtr.js). The cache holds the bundle's outer function only:
// nothing has run, so a command's own functions are compiled as they are first called, as they
// would be without it. It is made by the Node that builds; a Node of another version rejects it
// and compiles as before.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import Module from 'node:module';
import { basename, dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

/** The seed's file for a bundle, as the launcher looks for it (dist/.cache/<node>-<arch>-<bundle>.seed.v8). */
export const seedFile = (bundle) => join(dirname(bundle), '.cache', `${process.version}-${process.arch}-${basename(bundle, '.cjs')}.seed.v8`);

/**
 * The seed of a worker thread's bundle for a process whose launcher keeps bytecode
 * (`--no-flush-bytecode`, bin/sivtr.js): V8 flags are the process's, and a cache made under other
 * flags is rejected, so a thread started during such a run needs a seed made under that flag.
 */
export const keepingSeedFile = (bundle) => seedFile(bundle).replace(/\.seed\.v8$/, '.keep.seed.v8');

/** Writes the seed of each bundle, compiling its source exactly as the launcher does; `keeping`: bundles that get a keepingSeedFile too. */
export function seedCodeCaches(bundles, keeping = []) {
  const seed = (bundle, file) => {
    const bytes = readFileSync(bundle);
    const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, new Script(Module.wrap(source), { filename: bundle }).createCachedData());
  };
  for (const bundle of bundles) seed(bundle, seedFile(bundle));
  if (keeping.length === 0) return;
  setFlagsFromString('--no-flush-bytecode');
  try {
    for (const bundle of keeping) seed(bundle, keepingSeedFile(bundle));
  } finally {
    setFlagsFromString('--flush-bytecode');
  }
}
