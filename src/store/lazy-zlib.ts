// node:zlib (and node:stream, which it loads) was the largest module a warm `sivtr search` loaded:
// ~8 M instructions (callgrind), about 4 ms of a 60 ms start, and most of that for compiling
// their functions. A search needs it only to read a compressed chunk, and a build only to write
// one, so it is loaded on first use.
import { createRequire } from 'node:module';

type Zlib = typeof import('node:zlib');

// In the bundle `require` is Node's (CommonJS), so no URL is made of the bundle's path; from the
// sources (tests, ES modules) a require is made for the purpose.
declare const require: NodeJS.Require | undefined;
let loaded: Zlib | undefined;

export const zlib = (): Zlib => (loaded ??= (typeof require === 'function' ? require('node:zlib') : createRequire(import.meta.url)('node:zlib')) as Zlib);
