import { describe, expect, it } from 'vitest';
import { applyCaptureRules, compileCaptureRules, KEPT_OUT } from '../../src/session/capture-rules.js';

const rules = compileCaptureRules({ ignoreCommands: ['vault', 'pass show', 'aws configure*', 'kubectl get secret? *'], maskPatterns: ['acme-[0-9]+', '('], maskSecrets: true })!;

describe('capture rules', () => {
  it('ignore a command by its first words or by a glob, nothing that merely starts alike', () => {
    for (const c of ['vault', 'vault read secret/x', '  pass show email', 'aws configure', 'aws configure set x', 'kubectl get secrets db -o yaml']) expect(rules.ignores(c), c).toBe(true);
    for (const c of ['vaults', 'echo vault', 'pass', 'passwd', 'aws s3 ls', 'kubectl get pods']) expect(rules.ignores(c), c).toBe(false);
  });

  it('mask patterns and secrets in every text field, leave the rest of the entry', () => {
    const entry = { prompt: '$ ', command: 'deploy acme-1234', output: 'token ghp_' + 'Ab1'.repeat(12) + '\nok', exit_code: 0 };
    const kept = applyCaptureRules(entry, rules)!;
    expect(kept).toEqual({ prompt: '$ ', command: `deploy ${KEPT_OUT}`, output: 'token [masked:github-token]\nok', exit_code: 0 });
    expect(entry.command).toBe('deploy acme-1234'); // a copy, not the caller's object
  });

  it('return the entry itself when nothing matches, nothing for an ignored command, and cost nothing without rules', () => {
    const entry = { command: 'ls', output: 'a b' };
    expect(applyCaptureRules(entry, rules)).toBe(entry);
    expect(applyCaptureRules({ command: 'vault read x', output: 's3cr3t' }, rules)).toBeUndefined();
    expect(compileCaptureRules({ ignoreCommands: [], maskPatterns: [], maskSecrets: false })).toBeUndefined();
  });
});
