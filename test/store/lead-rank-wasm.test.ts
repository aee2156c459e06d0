// The merge of listed lead terms and the scoring of their units in WebAssembly
// (src/store/lead-rank-wasm.ts) run from bytes kept in the source, so that a search does not build
// them: they must be the module its code makes. That they give what the JavaScript loops give is
// held by test/store/lead-terms.test.ts.
import { describe, expect, it } from 'vitest';
import { rankModule, MODULE } from '../../src/store/lead-rank-wasm.js';

describe('the WebAssembly merge and scoring of listed lead terms', () => {
  it('runs the module its code makes', () => {
    expect(MODULE, 'MODULE: regenerate it from rankModule()').toBe(Buffer.from(rankModule()).toString('base64'));
  });
});
