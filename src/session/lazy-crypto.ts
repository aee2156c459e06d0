// node:crypto costs several milliseconds to load, a sizeable share of a warm `sivtr search`
// that never hashes: modules that hash only on a slow path (a changed file, an unparsed
// session) load it on first use.
import { createRequire } from 'node:module';

type Crypto = typeof import('node:crypto');

let loaded: Crypto | undefined;

export const nodeCrypto = (): Crypto => (loaded ??= createRequire(import.meta.url)('node:crypto') as Crypto);
