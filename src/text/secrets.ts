// Secrets in text that is about to leave sivtr (clipboard, stdout, MCP): found by a table of
// rules and replaced by `[masked:KIND]`. Two kinds of evidence only, because terminal output is
// full of things that look random (git hashes, uuids, checksums, base64 data) and are not secret:
// a vendor's documented token prefix (ghp_, AKIA, xoxb-, sk-ant-…), or a name that says what the
// value is (PASSWORD=…, "apiKey": "…", https://user:PASSWORD@host). No rule fires on randomness
// alone; entropy only rejects placeholders (`TOKEN=xxxxxxxx`) and prose after `Bearer`.

export type MaskResult = { text: string; count: number; kinds: string[] };

type Rule = {
  kind: string;
  /**
   * Makes the rule's regex, once, when a text first holds the rule's hint: a search or a listing
   * tests only the hints (ANY_HINT), and making two dozen regexes at module load (V8 parses each
   * pattern when it is made) was the largest module initialisation of a warm search.
   */
  re: () => RegExp;
  /** The capture group that holds the secret (the rest of the match stays); 0 = the whole match. */
  group?: number;
  /**
   * A regex source that every match of `re` contains (a vendor prefix, `://`): one combined test
   * of all hints skips the whole table for text that holds none, which is most text. Compiling and
   * running two dozen regexes per title cost ~10 ms of a one-shot `sessions` or `search`.
   */
  hint: string;
  /** A further test of the secret; false keeps the match as it is. */
  accept?: (secret: string) => boolean;
};

// Token bodies are bounded by these lookarounds instead of \b: a token inside a longer run of
// base64 (a data URI, a signature) is not a token.
const B = '(?<![A-Za-z0-9+/_-])';
const E = '(?![A-Za-z0-9_-])';
const rx = (body: string, flags = 'g'): RegExp => new RegExp(`${B}${body}${E}`, flags);

/** Shannon entropy in bits per character. */
export function entropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const RULES: Rule[] = [
  // A key block, BEGIN to END; a block cut before its END (a truncated output) is masked to the end.
  { kind: 'private-key', hint: '-----BEGIN', re: () => /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|$)/g },
  { kind: 'age-secret-key', hint: 'AGE-SECRET-KEY-1', re: () => rx('AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}') },
  { kind: 'aws-access-key', hint: 'AKIA|ASIA|ABIA|ACCA|A3T', re: () => rx('(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}') },
  { kind: 'github-token', hint: 'gh[pousr]_|github_pat_', re: () => rx('(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})') },
  { kind: 'gitlab-token', hint: 'gl[a-z]{2,5}-', re: () => rx('(?:glpat|glptt|gldt|glrt|glcbt|glsoat|glffct|gloas|glimt|glagent)-[A-Za-z0-9_-]{20,}') },
  { kind: 'gitlab-token', hint: 'GR1348941', re: () => rx('GR1348941[A-Za-z0-9_-]{20,}') },
  { kind: 'slack-token', hint: 'xox[abposre]-|xapp-', re: () => rx('(?:xox[abposre]-[0-9A-Za-z-]{10,}|xapp-\\d-[A-Z0-9]+-\\d+-[a-z0-9]+)') },
  { kind: 'slack-webhook', hint: 'hooks\\.slack\\.com', re: () => /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,}/g },
  { kind: 'discord-webhook', hint: 'discord', re: () => /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{20,}/g },
  { kind: 'stripe-key', hint: '[sr]k_(?:live|test)_|whsec_', re: () => rx('(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,247}|whsec_[A-Za-z0-9]{32,})') },
  { kind: 'anthropic-key', hint: 'sk-ant-', re: () => rx('sk-ant-(?:api|admin|oat|ort)\\d{2}-[A-Za-z0-9_-]{32,}') },
  { kind: 'openai-key', hint: 'sk-', re: () => rx('sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48})') },
  { kind: 'google-api-key', hint: 'AIza', re: () => rx('AIza[0-9A-Za-z_-]{35}') },
  { kind: 'google-oauth', hint: 'GOCSPX-|ya29\\.', re: () => rx('(?:GOCSPX-[A-Za-z0-9_-]{28}|ya29\\.[A-Za-z0-9_-]{20,})') },
  { kind: 'npm-token', hint: 'npm_', re: () => rx('npm_[A-Za-z0-9]{36}') },
  { kind: 'pypi-token', hint: 'pypi-', re: () => rx('pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}') },
  { kind: 'huggingface-token', hint: 'hf_', re: () => rx('hf_[A-Za-z]{34}') },
  { kind: 'sendgrid-key', hint: 'SG\\.', re: () => rx('SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}') },
  { kind: 'digitalocean-token', hint: 'do[por]_v1_', re: () => rx('do[por]_v1_[a-f0-9]{64}') },
  { kind: 'shopify-token', hint: 'shp(?:at|ca|pa|ss)_', re: () => rx('shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}') },
  // Header and payload are JSON objects, so both start `{"` = `eyJ` in base64url.
  { kind: 'jwt', hint: 'eyJ', re: () => rx('eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{16,}') },
  // scheme://user:PASSWORD@host — the password only; `$VAR` and `***` are not passwords.
  {
    kind: 'url-password',
    hint: ':\\/\\/',
    re: () => /\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}:\/\/[^\s:/?#@"'<>]+:([^\s/?#@"'<>]+)@/g,
    group: 1,
    accept: (s) => !isPlaceholder(s),
  },
  // Authorization: Bearer TOKEN. A word of prose after "bearer" has no digit or is short.
  { kind: 'bearer-token', hint: '[Bb]earer', re: () => /\b[Bb]earer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)/g, group: 1, accept: (s) => /\d/.test(s) && entropy(s) >= 3 },
  { kind: 'basic-auth', hint: '[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn]:', re: () => /\bAuthorization:[ \t]*Basic[ \t]+([A-Za-z0-9+/]{8,}={0,2})/gi, group: 1 },
];

// No hint matches whitespace (a space, a tab, a line break): mayHoldSecretAcross and mayHoldSecret rely on it.
const ANY_HINT = new RegExp(RULES.map((r) => r.hint).join('|'));
/** Each rule's regex once made (Rule.re), by the rule's place in RULES. */
const RULE_RES: (RegExp | undefined)[] = [];

// --- assignments of a secret by name --------------------------------------------------------------

/** A name's last word that makes it a secret's name (after splitting FOO_BAR, fooBar, foo-bar, foo.bar). */
const SECRET_WORDS = new Set(['password', 'passwd', 'passphrase', 'pass', 'pwd', 'secret', 'token', 'apikey', 'pat']);
/** Two last words that do: API_KEY, accessKey, private-key… */
const SECRET_PAIRS = new Set(['api key', 'access key', 'private key', 'secret key', 'auth key', 'account key', 'signing key', 'encryption key', 'master key', 'session key', 'client secret']);
/** Words that may follow the secret's word and still name the secret itself: SECRET_KEY_BASE, token_value. */
const SAME_SECRET = new Set(['value', 'base', 'b64', 'base64', 'raw', 'plain', 'plaintext', 'confirmation', 'confirm', 'encoded', 'hex', 'str', 'string']);

function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/**
 * A name whose last word is a secret's (DB_PASSWORD, apiKey, AWS_SECRET_ACCESS_KEY), so that names
 * about a secret are not (TOKEN_URL, password_file, tokenAccountingBasis, max_tokens).
 */
export function isSecretName(name: string): boolean {
  const words = nameWords(name);
  while (words.length > 1 && SAME_SECRET.has(words.at(-1)!)) words.pop();
  const last = words.at(-1);
  if (last === undefined) return false;
  // `pwd` alone is the working directory ($PWD); DB_PWD is a password.
  if (last === 'pwd') return words.length > 1;
  return SECRET_WORDS.has(last) || (words.length > 1 && SECRET_PAIRS.has(`${words.at(-2)} ${last}`));
}

const TYPE_WORDS = new Set(['string', 'number', 'boolean', 'str', 'int', 'bool', 'bytes', 'any', 'unknown', 'object', 'null', 'none', 'nil', 'undefined', 'true', 'false', 'required', 'optional', 'yes', 'no', 'on', 'off', 'empty', 'redacted', 'hidden', 'changeme', 'secret', 'password', 'token']);

/** A value that stands for a secret without being one: `$VAR`, `${{ secrets.X }}`, `<token>`, `xxxx`, `***`. */
export function isPlaceholder(value: string): boolean {
  const v = value.trim();
  if (v.length < 3) return true;
  if (/^[$%]|^<.*>$|^\{\{|^\[masked:|\$\{/.test(v)) return true;
  // • and … escaped: a regex literal is the one place esbuild keeps a character outside ASCII, and
  // one such character makes the whole bundle a two-byte string to read (bin/sivtr.js).
  if (/^(.)\1*$/.test(v) || /^[*\u2022.\u2026x]+$/i.test(v)) return true;
  if (TYPE_WORDS.has(v.toLowerCase())) return true;
  if (/^(?:your|my|example|sample|dummy|fake|placeholder)[-_ ]/i.test(v) || /[-_ ](?:here|goes[-_ ]here)$/i.test(v)) return true;
  return false;
}

const CODE_ROOTS = /^(?:process|os|self|this|args|argv|opts|options|config|cfg|settings|env|secrets|vars|params|req|request|ctx|context|props|inputs?|data|window|globalThis)\./;

/** An unquoted value that is code, not a literal: `process.env.TOKEN`, `args.password`, `secrets.NPM_TOKEN`. */
function looksLikeCode(value: string): boolean {
  return CODE_ROOTS.test(value);
}

// NAME = value, NAME: value, "name": "value", export NAME='value', ?token=value&… The name may be
// quoted; the value is a quoted string (escapes allowed) or a bare word up to a delimiter.
const ASSIGNMENT = /(?<![A-Za-z0-9_$])(["']?)([A-Za-z_][A-Za-z0-9_.-]{0,80})\1[ \t]*(?:=(?!=)|:(?!:|\/\/))[ \t]*(?:"((?:[^"\n\\]|\\.)*)"|'([^'\n]*)'|([^\s"'`,;&|<>(){}[\]\\\x1b]+))/g;
// Every secret's name holds one of these words (isSecretName), and only name characters, the
// closing quote and blanks come between it and the `=` or `:`: text without that is skipped
// before ASSIGNMENT runs. Titles say "password" or "token" often, next to an `=` rarely.
// The words' letters are written as [Pp] classes rather than with the i flag: without the u flag
// no character outside ASCII matches an ASCII letter under i either, so both match the same
// texts, but compiling an i regex folds case through ICU (~0.9 M instructions of every search
// that prints a hit, callgrind).
const HINT_WORDS = ['pass', 'pwd', 'secret', 'token', 'key', 'pat'].map((w) => [...w].map((c) => `[${c.toUpperCase()}${c}]`).join('')).join('|');
const ASSIGNMENT_HINT = new RegExp(`(?:${HINT_WORDS})[A-Za-z0-9_.-]*["']?[ \\t]*[=:]`);
/** The part of an assignment hint that can end a text, when the `=` or `:` begins the next one (ASSIGNMENT_HINT, cut there). */
const ASSIGNMENT_HEAD = new RegExp(`(?:${HINT_WORDS})[A-Za-z0-9_.-]*["']?[ \\t]*$`);
const ASSIGNMENT_REST = /^[ \t]*[=:]/;

/**
 * Whether a hint may begin in `left` and end in `right` when only spaces or tabs come between
 * them (cells of one table line). No rule's hint matches a space or tab, so only an assignment's
 * can (`token  = …`).
 */
export function mayHoldSecretAcross(left: string, right: string): boolean {
  return ASSIGNMENT_REST.test(right) && ASSIGNMENT_HEAD.test(left);
}

function maskAssignments(text: string, found: string[]): string {
  if (!ASSIGNMENT_HINT.test(text)) return text;
  return text.replace(ASSIGNMENT, (match: string, _q: string, name: string, dq?: string, sq?: string, bare?: string) => {
    const value = dq ?? sq ?? bare ?? '';
    if (!isSecretName(name) || isPlaceholder(value)) return match;
    if (bare !== undefined && (looksLikeCode(bare) || /^\d{1,5}$|^\d*\.\d+$/.test(bare))) return match;
    found.push('assignment');
    const quote = dq !== undefined || sq !== undefined ? 1 : 0;
    const end = match.length - quote;
    return match.slice(0, end - value.length) + '[masked:assignment]' + match.slice(end);
  });
}

function maskByRules(text: string, found: string[]): string {
  // No hint in the text: no rule can match it, nor (nothing being replaced) any later rule.
  if (!ANY_HINT.test(text)) return text;
  let out = text;
  for (let i = 0; i < RULES.length; i++) {
    const rule = RULES[i]!;
    const re = (RULE_RES[i] ??= rule.re());
    re.lastIndex = 0;
    if (!re.test(out)) continue;
    out = out.replace(re, (match: string, ...groups: unknown[]) => {
      const secret = rule.group ? (groups[rule.group - 1] as string | undefined) : match;
      if (secret === undefined || (rule.accept && !rule.accept(secret))) return match;
      found.push(rule.kind);
      if (!rule.group) return `[masked:${rule.kind}]`;
      // The secret is the group; it ends the match in every rule that names a group but url-password.
      const at = match.lastIndexOf(secret);
      return match.slice(0, at) + `[masked:${rule.kind}]` + match.slice(at + secret.length);
    });
  }
  return out;
}

/**
 * False when no rule can find a secret in the text (neither hint is in it): maskSecrets would
 * return it as it is. Neither hint has a lookaround or matches a line break, so a hint in one of
 * several texts joined by `\n` is in the joined text, and one test answers for all of them.
 */
export function mayHoldSecret(text: string): boolean {
  return ANY_HINT.test(text) || ASSIGNMENT_HINT.test(text);
}

/** Text with every secret the rules find replaced by `[masked:KIND]`. */
export function maskSecrets(text: string): MaskResult {
  // The two hint tests maskByRules and maskAssignments begin with: most text (each string of a
  // `--json` listing) holds no hint, and is returned without the bookkeeping of a search.
  if (!mayHoldSecret(text)) return { text, count: 0, kinds: [] };
  const found: string[] = [];
  const out = maskAssignments(maskByRules(text, found), found);
  return { text: out, count: found.length, kinds: [...new Set(found)] };
}

/** Counts masks across many texts (one command's whole output), for the one line that says so. */
export class SecretTally {
  count = 0;
  readonly kinds = new Set<string>();

  mask(text: string): string {
    const result = maskSecrets(text);
    this.count += result.count;
    for (const k of result.kinds) this.kinds.add(k);
    return result.text;
  }

  /**
   * Every string inside a JSON-able value, masked (keys stay). When all its strings together hold
   * no hint (mayHoldSecret), none holds a secret and the value is returned as it is: copying every
   * object of a `sessions --global --json` listing and testing each string on its own was ~60 K
   * instructions a row (callgrind).
   */
  maskDeep<T>(value: T): T {
    const texts: string[] = [];
    return collectStrings(value, texts) && !mayHoldSecret(texts.join('\n')) ? value : this.maskEach(value);
  }

  private maskEach<T>(value: T): T {
    if (typeof value === 'string') return this.mask(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.maskEach(v)) as T;
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, this.maskEach(v)])) as T;
    }
    return value;
  }
}

/**
 * The strings maskEach would mask (values, not keys); false when the value holds an object that
 * is not a plain one (a Date, a Map): maskEach makes those plain, so only it gives their JSON.
 */
function collectStrings(value: unknown, into: string[]): boolean {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) {
    for (const v of value) if (!collectStrings(v, into)) return false;
  } else if (value !== null && typeof value === 'object') {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const v of Object.values(value)) if (!collectStrings(v, into)) return false;
  }
  return true;
}
