// Types for tests that build a corpus with bench/agents-corpus.mjs.
export function generateCorpus(dir: string, opts?: { sessions?: number; mb?: number }): { sessions: number; bytes: number };
