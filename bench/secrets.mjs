// The secret corpus (fixtures/secrets/): every secret shape must be masked, every look-alike
// (git hashes, uuids, checksums, base64 data, env references, code) left as it is. Prints the
// figures and exits 1 when a secret survives. Then masking speed on mixed terminal output
// (about 6 MB) beside JSON.parse of the same lines as JSONL and one plain regex pass, measured in this run.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { median } from './lib.mjs';

const root = resolve(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'sivtr-bench-secrets-'));
try {
  const outfile = join(dir, 'secrets.mjs');
  await build({ entryPoints: [join(root, 'src/text/secrets.ts')], bundle: true, format: 'esm', platform: 'node', outfile, logLevel: 'warning' });
  const { maskSecrets } = await import(pathToFileURL(outfile).href);
  const corpus = (name) => JSON.parse(readFileSync(join(root, 'fixtures/secrets', name), 'utf8'));

  const secrets = corpus('secrets.json');
  const missed = secrets.filter((c) => maskSecrets(c.text).text.includes(c.secret));
  const wrongKind = secrets.filter((c) => !maskSecrets(c.text).kinds.includes(c.kind));
  const lookalikes = corpus('lookalikes.json');
  const falsePositives = lookalikes.filter((c) => maskSecrets(c.text).count > 0);
  const kinds = new Set(secrets.map((c) => c.kind));
  console.log(`secrets masked: ${secrets.length - missed.length} / ${secrets.length} (${kinds.size} kinds)`);
  for (const c of missed) console.log(`  MISSED ${c.kind}: ${JSON.stringify(c.text.slice(0, 80))}`);
  console.log(`masked under the expected kind: ${secrets.length - wrongKind.length} / ${secrets.length}`);
  console.log(`false positives: ${falsePositives.length} / ${lookalikes.length} look-alikes`);
  for (const c of falsePositives) console.log(`  FALSE POSITIVE ${c.what}: ${JSON.stringify(maskSecrets(c.text).text.slice(0, 120))}`);

  // Speed: terminal output with a secret every ~200 lines, the rest look-alikes and plain lines.
  const lines = [];
  const plain = ['  ✓ test/a.test.ts (12 tests) 48ms', 'npm warn deprecated inflight@1.0.6', 'src/index.ts:12:5 - error TS2322: Type string is not assignable', 'total 48', '-rw-r--r-- 1 me me 1204 Dec  1 11:00 package.json'];
  const looks = lookalikes.flatMap((c) => c.text.split('\n'));
  const secretLines = secrets.flatMap((c) => c.text.split('\n')).filter((l) => l.length < 300);
  for (let i = 0; lines.length < 120_000; i++) {
    lines.push(i % 200 === 0 ? secretLines[i % secretLines.length] : i % 7 === 0 ? looks[i % looks.length] : `${plain[i % plain.length]} ${i}`);
  }
  const text = lines.join('\n');
  const jsonl = lines.map((l) => JSON.stringify({ output: l }));
  const mb = text.length / 1e6;
  const time = (fn) => {
    const times = [];
    for (let i = 0; i < 5; i++) {
      const t = process.hrtime.bigint();
      fn();
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    return median(times);
  };
  const tMask = time(() => maskSecrets(text));
  const tParse = time(() => { for (const l of jsonl) JSON.parse(l); });
  const tRegex = time(() => text.replace(/\d+/g, '#'));
  console.log(`\nspeed on ${mb.toFixed(1)} MB (${lines.length} lines), median of 5:`);
  console.log(`  maskSecrets            ${tMask.toFixed(1)} ms  (${(mb / (tMask / 1000)).toFixed(0)} MB/s)`);
  console.log(`  JSON.parse every line  ${tParse.toFixed(1)} ms  (baseline)`);
  console.log(`  one /\\d+/g replace     ${tRegex.toFixed(1)} ms  (baseline)`);
  console.log(`  ratio mask / JSON.parse: ${(tMask / tParse).toFixed(2)}x`);
  process.exitCode = missed.length > 0 ? 1 : 0;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
