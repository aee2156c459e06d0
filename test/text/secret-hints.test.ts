import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdsAssignmentHint, holdsRuleHint } from '../../src/text/secret-hints.js';
import { ASSIGNMENT_HINT_SOURCE, ruleHintSource } from '../../src/text/secrets.js';

// The scanners stand for two regexes (src/text/secret-hints.ts): on every text here each must
// answer as its regex does.
const RULE_HINT = new RegExp(ruleHintSource());
const ASSIGNMENT_HINT = new RegExp(ASSIGNMENT_HINT_SOURCE);

const corpus = join(import.meta.dirname, '..', '..', 'fixtures', 'secrets');
const fixtureTexts = [
  ...(JSON.parse(readFileSync(join(corpus, 'secrets.json'), 'utf8')) as { text: string }[]).map((c) => c.text),
  ...(JSON.parse(readFileSync(join(corpus, 'lookalikes.json'), 'utf8')) as { text: string }[]).map((c) => c.text),
];

/** One text for every alternative of every hint, and near misses of each. */
const HINT_SAMPLES = [
  '-----BEGIN', 'AGE-SECRET-KEY-1', 'AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T', 'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'ghx_', 'github_pat_',
  'glpat-', 'glab-', 'gla-', 'glabcde-', 'glabcdef-', 'glAB-', 'gl-', 'gglab-', 'GR1348941', 'xoxa-', 'xoxb-', 'xoxp-', 'xoxo-', 'xoxs-',
  'xoxr-', 'xoxe-', 'xoxz-', 'xapp-', 'hooks.slack.com', 'hooksXslack.com', 'discord', 'Discord', 'sk_live_', 'sk_test_', 'rk_live_',
  'rk_test_', 'tk_live_', 'whsec_', 'sk-ant-', 'sk-', 'sk_', 'AIza', 'aiza', 'GOCSPX-', 'ya29.', 'ya29x', 'npm_', 'pypi-', 'hf_', 'SG.',
  'Sg.', 'dop_v1_', 'doo_v1_', 'dor_v1_', 'dox_v1_', 'shpat_', 'shpca_', 'shppa_', 'shpss_', 'shpxx_', 'eyJ', 'eyj', '://', ':/',
  'Bearer', 'bearer', 'BEARER', 'Authorization:', 'AUTHORIZATION:', 'aUtHoRiZaTiOn:', 'Authorization :', 'Authorisation:', 'uthorization:',
  'password=', 'PASS = 1', "db_pwd'=x", 'secret:"', 'Token\t: v', 'api-key="x"', 'PAT=1', 'pat = ', 'key==', 'ke=y', 'pas=s',
  'token"x=', 'token ""=', "my.secret.value '= 1", 'tok en=', 'keys.list: x', 'K\u212Ay=', 'p\u0130ss=', 'passé=', 'pwd\n=',
];

/** A seeded generator, so that a failure can be replayed. */
function* randomTexts(count: number, seed: number): Generator<string> {
  const alphabet = 'glapxsokrethbvwdyi_-.:=/ \t"\'AKISGBRNOZPTEY0123\u212A\u0130é\n';
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  for (let i = 0; i < count; i++) {
    let text = '';
    const length = 1 + next(40);
    for (let j = 0; j < length; j++) {
      // Now and then a whole piece of a hint, so that the texts come near matches often.
      text += next(4) === 0 ? HINT_SAMPLES[next(HINT_SAMPLES.length)]!.slice(0, 1 + next(12)) : alphabet[next(alphabet.length)]!;
    }
    yield text;
  }
}

function expectSameAnswers(texts: Iterable<string>): number {
  let matched = 0;
  for (const text of texts) {
    const rule = RULE_HINT.test(text);
    const assignment = ASSIGNMENT_HINT.test(text);
    expect({ text, rule: holdsRuleHint(text), assignment: holdsAssignmentHint(text) }).toEqual({ text, rule, assignment });
    if (rule || assignment) matched++;
  }
  return matched;
}

describe('secret hint scanners', () => {
  it('answer as the hint regexes on the secrets corpus and its look-alikes', () => {
    expect(expectSameAnswers(fixtureTexts)).toBeGreaterThan(10);
  });

  it('answer as the hint regexes on every hint, its near misses, and each inside other text', () => {
    const texts = HINT_SAMPLES.flatMap((h) => [h, `x ${h} y`, `${h}${h}`, h.slice(1), h.slice(0, -1), h.toUpperCase(), h.toLowerCase()]);
    expect(expectSameAnswers(texts)).toBeGreaterThan(100);
  });

  it('answer as the hint regexes on random texts near the hints', () => {
    // Both answers occur often among these, so a scanner wrong either way is caught.
    const texts = [...randomTexts(20_000, 7)];
    const matched = expectSameAnswers(texts);
    expect(matched).toBeGreaterThan(2_000);
    expect(matched).toBeLessThan(18_000);
  });
});
