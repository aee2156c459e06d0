import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSecretName, maskSecrets, mayHoldSecret, mayHoldSecretAcross, SecretTally } from '../../src/text/secrets.js';

const corpus = join(import.meta.dirname, '..', '..', 'fixtures', 'secrets');
type SecretCase = { kind: string; text: string; secret: string };
type LookAlike = { what: string; text: string };
const secrets = JSON.parse(readFileSync(join(corpus, 'secrets.json'), 'utf8')) as SecretCase[];
const lookalikes = JSON.parse(readFileSync(join(corpus, 'lookalikes.json'), 'utf8')) as LookAlike[];

describe('maskSecrets on the corpus', () => {
  it.each(secrets.map((c, i) => [`${i} ${c.kind}`, c] as const))('masks %s', (_name, c) => {
    const result = maskSecrets(c.text);
    expect(result.text).not.toContain(c.secret);
    expect(result.kinds).toContain(c.kind);
    expect(result.count).toBeGreaterThan(0);
  });

  it.each(lookalikes.map((c) => [c.what, c] as const))('leaves %s alone', (_name, c) => {
    const result = maskSecrets(c.text);
    expect(result.text).toBe(c.text);
    expect(result.count).toBe(0);
  });
});

describe('maskSecrets', () => {
  it('keeps the name, the quotes and the text around a masked value', () => {
    expect(maskSecrets('export DB_PASSWORD="s3cr3t-value" # prod').text).toBe('export DB_PASSWORD="[masked:assignment]" # prod');
    expect(maskSecrets('postgres://app:pa55word@db:5432/x').text).toBe('postgres://app:[masked:url-password]@db:5432/x');
  });

  it('masks a JSON-escaped key block without breaking the JSON around it', () => {
    const c = secrets.find((s) => s.text.startsWith('{"type": "service_account"'))!;
    const masked = maskSecrets(c.text).text;
    expect(JSON.parse(masked).client_email).toBe('x@demo-123.iam.gserviceaccount.com');
  });

  it('counts every secret, each kind once', () => {
    const ghp = 'ghp_' + 'aB3'.repeat(12);
    const result = maskSecrets(`${ghp}\n${ghp}\nPASSWORD=hunter2x`);
    expect(result.count).toBe(3);
    expect(result.kinds).toEqual(['github-token', 'assignment']);
  });

  it('tells secret names from names about secrets', () => {
    for (const n of ['PASSWORD', 'db_password', 'apiKey', 'AWS_SECRET_ACCESS_KEY', 'clientSecret', 'GITHUB_TOKEN', 'private-key', 'DB_PWD']) expect(isSecretName(n), n).toBe(true);
    for (const n of ['PWD', 'TOKEN_URL', 'password_file', 'max_tokens', 'tokenCount', 'KEY', 'keyboard', 'passive', 'author']) expect(isSecretName(n), n).toBe(false);
  });

  it('masks every string of a JSON value and tallies them', () => {
    const tally = new SecretTally();
    const value = tally.maskDeep({ output: 'token ghp_' + 'x1Y'.repeat(12), n: 3, list: ['PASSWORD=abcdef12'] });
    expect(value).toEqual({ output: 'token [masked:github-token]', n: 3, list: ['PASSWORD=[masked:assignment]'] });
    expect(tally.count).toBe(2);
  });

  it('prints a JSON value as masking each string would, when none or one of its strings holds a secret', () => {
    // maskDeep returns a value whose strings hold no hint as it is; this is masking string by string
    const byString = (v: unknown): unknown =>
      typeof v === 'string' ? maskSecrets(v).text : Array.isArray(v) ? v.map(byString) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, byString(x)])) : v;
    const listing = Array.from({ length: 50 }, (_, i) => ({ ref: `claude/${i}`, cwd: '/home/u/proj', title: `Fix the parser ${i}: tokens and keys`, updated_at: '2026-05-02T09:04:30.000Z', turns: i, parent: i % 7 === 0 ? 'p' : undefined }));
    const withSecret = listing.map((row, i) => (i === 31 ? { ...row, title: 'use DB_PASSWORD=hunter2x9 and ' + 'AKIA' + 'Z'.repeat(16) } : row));
    const withDate = [{ title: 'plain', at: new Date(0), seen: new Map([['a', 1]]) }];
    for (const value of [listing, withSecret, withDate, { nested: [[{ s: 'sk' }, '-proj-' + 'a'.repeat(24)]] }, 'text', 3, null]) {
      const tally = new SecretTally();
      expect(JSON.stringify(tally.maskDeep(value), null, 2)).toBe(JSON.stringify(byString(value), null, 2));
    }
    const tally = new SecretTally();
    expect(JSON.stringify(tally.maskDeep(withSecret))).toContain('[masked:aws-access-key]');
    expect(tally.kinds).toEqual(new Set(['aws-access-key', 'assignment']));
    expect(JSON.stringify(new SecretTally().maskDeep(withDate))).toBe('[{"title":"plain","at":{},"seen":{}}]');
  });
});

describe('maskSecrets on genuine transcripts', () => {
  // Real agent CLIs wrote these against a scripted model: they hold token counts, ids, hashes and
  // tool output, and no secret, so anything masked in them is a false positive.
  const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
  it('masks nothing in fixtures/real', () => {
    const files = walk(join(corpus, '..', 'real'));
    expect(files.length).toBeGreaterThan(50);
    const masked = files.flatMap((f) => {
      const bytes = readFileSync(f);
      if (bytes.includes(0)) return []; // SQLite databases: their text is checked through the providers
      const r = maskSecrets(bytes.toString('utf8'));
      return r.count > 0 ? [`${f}: ${r.kinds.join(', ')}`] : [];
    });
    expect(masked).toEqual([]);
  });
});

describe('the assignment hint, written without the i flag', () => {
  // The hint as it was written before, with the i flag: the test holds both to the same texts,
  // including characters outside ASCII that case-fold to ASCII letters (ſ → S, K Kelvin → k,
  // ı → I, İ → i), which neither may take for the letter.
  const withFlag = /(?:pass|pwd|secret|token|key|pat)[A-Za-z0-9_.-]*["']?[ \t]*[=:]/i;
  const headWithFlag = /(?:pass|pwd|secret|token|key|pat)[A-Za-z0-9_.-]*["']?[ \t]*$/i;
  const words = ['pass', 'PASS', 'PassWord', 'pWd', 'Secret', 'SECRET_KEY', 'tOkEn', 'KEY', 'api_key', 'Pat', 'ſecret', 'ſeCret', '\u212Aey', 'toKen\u212A', 'pa\u017Fs', 'token\u0131', 'toke\u0130n', 'passé', 'ñpass', 'pwd"', "key'", 'keys.2', 'pa ss', 'pas'];
  const ends = ['=1', ' = v', '\t:x', ': v', '==', '', ' ', '"=', "':"];
  const texts = words.flatMap((w) => ends.map((e) => `${w}${e}`));

  it.each(texts.map((t) => [JSON.stringify(t), t] as const))('%s: the same answer as the i-flag hint', (_name, text) => {
    // None of these texts holds a rule's hint, so mayHoldSecret answers for the assignment hint alone.
    expect(mayHoldSecret(text)).toBe(withFlag.test(text));
    expect(mayHoldSecretAcross(text, '= 1')).toBe(headWithFlag.test(text));
  });

  it('a hinted assignment is still masked, in any case of its name', () => {
    for (const name of ['DB_PASSWORD', 'db_password', 'Db_Password', 'API_TOKEN', 'apiKey']) {
      expect(maskSecrets(`${name}=s3cr3t-Value-4242`).text).toBe(`${name}=[masked:assignment]`);
    }
  });
});
