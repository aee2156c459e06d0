// The two hint tests that stand before the secret rules (src/text/secrets.ts), answered by
// String#indexOf and short loops instead of regexes: a search that prints hits tests its output
// once or twice, and compiling the two hint regexes (an alternation of two dozen hints, tiered up
// to machine code on its second run) was ~2 M instructions of every such search (callgrind). Each
// answers exactly as the regex whose source secrets.ts keeps beside it (ruleHintSource,
// ASSIGNMENT_HINT_SOURCE); test/text/secret-hints.test.ts holds them to it.

/** The hints that are plain text: every hint of a rule but `gl[a-z]{2,5}-` and `Authorization:` (any case), spelled out. */
const LITERAL_HINTS = [
  '-----BEGIN',
  'AGE-SECRET-KEY-1',
  'AKIA',
  'ASIA',
  'ABIA',
  'ACCA',
  'A3T',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'github_pat_',
  'GR1348941',
  'xoxa-',
  'xoxb-',
  'xoxp-',
  'xoxo-',
  'xoxs-',
  'xoxr-',
  'xoxe-',
  'xapp-',
  'hooks.slack.com',
  'discord',
  'sk_live_',
  'sk_test_',
  'rk_live_',
  'rk_test_',
  'whsec_',
  // `sk-` also stands for `sk-ant-`, which holds it.
  'sk-',
  'AIza',
  'GOCSPX-',
  'ya29.',
  'npm_',
  'pypi-',
  'hf_',
  'SG.',
  'dop_v1_',
  'doo_v1_',
  'dor_v1_',
  'shpat_',
  'shpca_',
  'shppa_',
  'shpss_',
  'eyJ',
  '://',
  'Bearer',
  'bearer',
] as const;

const HYPHEN = 0x2d;

/** Whether the text holds any rule's hint: RULE_HINTS joined by `|`, as a regex, would test it so. */
export function holdsRuleHint(text: string): boolean {
  for (const hint of LITERAL_HINTS) if (text.includes(hint)) return true;
  return holdsGitlabHint(text) || holdsAuthorizationHint(text);
}

/** `gl[a-z]{2,5}-`: `gl`, two to five lowercase ASCII letters, a hyphen. */
function holdsGitlabHint(text: string): boolean {
  for (let at = text.indexOf('gl'); at !== -1; at = text.indexOf('gl', at + 1)) {
    let end = at + 2;
    while (end < text.length && end - at - 2 < 6 && isLowerAscii(text.charCodeAt(end))) end++;
    const letters = end - at - 2;
    if (letters >= 2 && letters <= 5 && text.charCodeAt(end) === HYPHEN) return true;
  }
  return false;
}

const AUTHORIZATION = 'authorization';

/** `[Aa][Uu]…[Nn]:`: the word in any mix of ASCII cases, then a colon. */
function holdsAuthorizationHint(text: string): boolean {
  for (let at = text.indexOf(':', AUTHORIZATION.length); at !== -1; at = text.indexOf(':', at + 1)) {
    if (endsWithWordAnyCase(text, at, AUTHORIZATION)) return true;
  }
  return false;
}

/** Whether `word` (lowercase ASCII letters) ends just before `end`, each letter in either case. */
function endsWithWordAnyCase(text: string, end: number, word: string): boolean {
  const start = end - word.length;
  if (start < 0) return false;
  // ORing in 0x20 makes an ASCII capital its small letter and leaves every small letter as it
  // is; no other code unit becomes a small letter so.
  for (let i = 0; i < word.length; i++) if ((text.charCodeAt(start + i) | 0x20) !== word.charCodeAt(i)) return false;
  return true;
}

const ASSIGNMENT_WORDS = ['pass', 'pwd', 'secret', 'token', 'key', 'pat'] as const;

/**
 * Whether the text holds an assignment's hint, as ASSIGNMENT_HINT_SOURCE would find it: a word
 * of ASSIGNMENT_WORDS in any ASCII case, name characters (`[A-Za-z0-9_.-]*`), a quote or none,
 * spaces or tabs, then `=` or `:`. Read backwards from each `=` and `:`: what may stand between
 * the word and the sign is one way only (a shorter run of spaces leaves a space before it, a
 * name without the quote ends on the quote), so the word is in the run of name characters that
 * ends there, or nowhere.
 */
export function holdsAssignmentHint(text: string): boolean {
  for (const sign of SIGNS) {
    for (let at = text.indexOf(sign); at !== -1; at = text.indexOf(sign, at + 1)) if (assignedAt(text, at)) return true;
  }
  return false;
}

const SIGNS = ['=', ':'] as const;

/** Whether a word of ASSIGNMENT_WORDS is in the name that the sign at `at` assigns to. */
function assignedAt(text: string, at: number): boolean {
  let end = at;
  while (end > 0 && isBlank(text.charCodeAt(end - 1))) end--;
  if (end > 0 && isQuote(text.charCodeAt(end - 1))) end--;
  let start = end;
  while (start > 0 && isNameChar(text.charCodeAt(start - 1))) start--;
  if (end - start < 3) return false;
  // The run is ASCII (name characters only), so its lowercase is letter for letter ASCII's.
  const name = text.slice(start, end).toLowerCase();
  for (const word of ASSIGNMENT_WORDS) if (name.includes(word)) return true;
  return false;
}

function isLowerAscii(c: number): boolean {
  return c >= 0x61 && c <= 0x7a;
}

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

function isQuote(c: number): boolean {
  return c === 0x22 || c === 0x27;
}

/** `[A-Za-z0-9_.-]`. */
function isNameChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2e || c === HYPHEN;
}
