// The merge of listed lead terms in WebAssembly (src/store/lead-merge-wasm.ts) runs from bytes kept
// in the source, so that a search does not build them: they must be the module its code makes.
// That the merge gives what the JavaScript merge gives is held by test/store/lead-terms.test.ts.
import { describe, expect, it } from 'vitest';
import { mergeModule, MODULE } from '../../src/store/lead-merge-wasm.js';

describe('the WebAssembly merge of listed lead terms', () => {
  it('runs the module its code makes', () => {
    expect(MODULE, 'MODULE: regenerate it from mergeModule()').toBe(Buffer.from(mergeModule()).toString('base64'));
  });
});
