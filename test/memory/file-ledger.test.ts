// The file ledger's rules, each on a hand-made case: what proves a write and what does not.
import { describe, expect, it } from 'vitest';
import { fileCounts, fileLedger, fileWrites } from '../../src/memory/file-ledger.js';
import { shellCallOf } from '../../src/memory/shell-calls.js';
import { shellWrites } from '../../src/memory/shell-writes.js';
import type { Part, Unit } from '../../src/memory/types.js';

const paths = (command: string, cwd = '/w'): string[] => shellWrites(command, cwd).map((w) => (w.host ? `${w.host}:${w.path}` : w.path));
const rules = (command: string): string[] => shellWrites(command, '/w').map((w) => w.rule);

describe('writes derived from shell commands', () => {
  it('does not read a here-document body as commands', () => {
    expect(paths('cat <<EOF\na > b\nEOF')).toEqual([]);
    expect(paths("cat <<'EOF' | grep x\nrm -rf / > c.txt\necho >> d.txt\nEOF")).toEqual([]);
    expect(paths('cat <<-EOF\n\ta > b\n\tEOF\necho ok > after.txt')).toEqual(['/w/after.txt']);
  });

  it('counts the redirection that feeds a here-document to a file, not what is in it', () => {
    expect(paths("cat > notes.md <<'EOF'\nx > y.txt\nEOF\necho done >> log.txt")).toEqual(['/w/notes.md', '/w/log.txt']);
    expect(rules("cat > notes.md <<'EOF'\nEOF\necho done >> log.txt")).toEqual(['>', '>>']);
  });

  it('ignores quoted text, /dev targets, fd duplications and unknown names', () => {
    expect(paths("echo 'a > b' ; git commit -m \"fix > bug.txt\"")).toEqual([]);
    expect(paths('make >/dev/null 2>&1; ls 2>/dev/null; cmd 2>&1 | less')).toEqual([]);
    expect(paths('echo $X > $OUT; echo x > "$HOME/a.txt"; echo y > *.log; echo z > $(mktemp)')).toEqual([]);
  });

  it('reads redirections wherever they stand', () => {
    expect(paths('>empty.txt; 2>err.log cmd; cmd &> all.log; cmd &>> all.log; cmd >| forced.txt')).toEqual(['/w/empty.txt', '/w/err.log', '/w/all.log', '/w/all.log', '/w/forced.txt']);
    expect(paths('diff <(ls a) <(ls b) > d.txt')).toEqual(['/w/d.txt']);
  });

  it('follows cd within the line, and forgets a cd made inside a subshell', () => {
    expect(paths('cd sub && make > build.log')).toEqual(['/w/sub/build.log']);
    expect(paths('(cd sub && make) > top.log')).toEqual(['/w/top.log']);
    expect(paths('cd /srv/app; echo 1 > x.conf')).toEqual(['/srv/app/x.conf']);
    expect(shellWrites('echo x > rel.txt').map((w) => w.path)).toEqual(['rel.txt']);
  });

  it('tee and tee -a write each file they name', () => {
    expect(paths('echo a | tee -a notes.md other.txt')).toEqual(['/w/notes.md', '/w/other.txt']);
    expect(rules('echo a | tee -a notes.md')).toEqual(['tee -a']);
    expect(rules('echo a | tee --append notes.md | tee copy.md >/dev/null')).toEqual(['tee -a', 'tee']);
    expect(paths('echo a | sudo tee /etc/hosts')).toEqual(['/etc/hosts']);
  });

  it('sed -i writes its file operands, never its script', () => {
    expect(paths("sed -i 's/a/b/' src/x.ts src/y.ts")).toEqual(['/w/src/x.ts', '/w/src/y.ts']);
    expect(paths("sed -i '' -e 's/a/b/' conf.yml")).toEqual(['/w/conf.yml']);
    expect(paths("sed -i.bak -e 's/a/b/' -e 's/c/d/' Makefile.am")).toEqual(['/w/Makefile.am']);
    expect(paths("sed -Ei 's/a/b/' x.txt")).toEqual(['/w/x.txt']);
    expect(paths("sed 's/a/b/' in.txt")).toEqual([]);
    expect(paths("perl -pi -e 's/a/b/' lib.pl")).toEqual(['/w/lib.pl']);
    expect(rules("sed -i 's/a/b/' x.txt")).toEqual(['sed -i']);
  });

  it('cp and mv write their target, and a bare destination without an extension proves nothing', () => {
    expect(paths('cp a.txt b.txt')).toEqual(['/w/b.txt']);
    expect(paths('mv old.ts new.ts')).toEqual(['/w/new.ts']);
    expect(paths('cp a.txt dist')).toEqual([]);
    expect(paths('cp -r src out')).toEqual([]);
    expect(paths('cp a.txt build/')).toEqual(['/w/build/a.txt']);
    expect(paths('cp a.txt b.json lib')).toEqual(['/w/lib/a.txt', '/w/lib/b.json']);
    expect(paths('cp -t out a.txt README')).toEqual(['/w/out/a.txt']);
    expect(paths('cp .env.example .env')).toEqual(['/w/.env']);
    expect(rules('cp a.txt b.txt && mv b.txt c.txt')).toEqual(['cp', 'mv']);
  });

  it('ssh writes carry the host, and resolve against the directory the remote line enters', () => {
    expect(shellWrites("ssh prod 'echo hi > /etc/motd'", '/w')).toEqual([{ path: '/etc/motd', rule: 'ssh >', host: 'prod' }]);
    expect(shellWrites('ssh -p 2222 deploy@web1 "cd /srv && echo 1 >> app.conf"', '/w')).toEqual([{ path: '/srv/app.conf', rule: 'ssh >>', host: 'web1' }]);
    expect(shellWrites("ssh web1 'sed -i s/a/b/ notes.txt'", '/w')).toEqual([{ path: 'notes.txt', rule: 'ssh sed -i', host: 'web1' }]);
    expect(paths('ssh web1')).toEqual([]);
    expect(paths("ssh web1 'cat /etc/motd' > motd.txt")).toEqual(['/w/motd.txt']);
  });

  it('scp to this machine is a local write; scp to a host carries the host', () => {
    expect(shellWrites('scp web1:/var/log/app.log .', '/w')).toEqual([{ path: '/w/app.log', rule: 'scp' }]);
    expect(shellWrites('scp -P 22 web1:/var/log/app.log ./local.log', '/w')).toEqual([{ path: '/w/local.log', rule: 'scp' }]);
    expect(shellWrites('scp report.pdf deploy@web1:/tmp/', '/w')).toEqual([{ path: '/tmp/report.pdf', rule: 'scp', host: 'web1' }]);
    expect(shellWrites('scp web1:/var/log/app.log logs', '/w')).toEqual([]);
  });

  it('reads scripted writes in one-liners and in interpreter here-documents', () => {
    expect(paths("python3 -c \"open('gen.json','w').write('{}')\"")).toEqual(['/w/gen.json']);
    expect(paths("python3 -c \"print(open('in.json').read())\"")).toEqual([]);
    expect(paths("node -e \"require('fs').writeFileSync('x.js', '')\"")).toEqual(['/w/x.js']);
    expect(paths("python3 - <<'PY'\nfrom pathlib import Path\nPath('out.md').write_text('x')\nwith open('data.csv', 'a') as f: pass\nPY")).toEqual(['/w/out.md', '/w/data.csv']);
    expect(paths("cat <<'PY'\nopen('no.txt','w')\nPY")).toEqual([]);
  });

  it('keeps ~ paths as written, and reads no redirection in (( )) or [[ ]]', () => {
    expect(paths('echo "alias x=y" >> ~/.bashrc')).toEqual(['~/.bashrc']);
    expect(paths('(( a > b )) && echo yes > ok.txt')).toEqual(['/w/ok.txt']);
    expect(paths('[[ a > b ]] && echo yes > ok.txt')).toEqual(['/w/ok.txt']);
    expect(paths('install -m 644 app.conf /etc/app.conf')).toEqual(['/etc/app.conf']);
  });

  it('reads bash -c, eval, prefixes and dd', () => {
    expect(paths("bash -lc 'echo hi > z.txt'")).toEqual(['/w/z.txt']);
    expect(paths("eval 'echo hi > e.txt'")).toEqual(['/w/e.txt']);
    expect(paths('FOO=1 sudo -u root env A=b tee t.txt < /dev/null')).toEqual(['/w/t.txt']);
    expect(paths('dd if=/dev/zero of=disk.img bs=1M count=1')).toEqual(['/w/disk.img']);
  });

  it('apply_patch run through the shell writes the files its patch names', () => {
    expect(paths("apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: src/h.ts\n+x > y.txt\n*** Update File: src/g.ts\n*** End Patch\nEOF")).toEqual(['/w/src/h.ts', '/w/src/g.ts']);
  });
});

const turn = (parts: Part[], cwd = '/w/app'): Unit => ({ ref: 'claude/abcd1234/2', source: 'claude', session: 'abcd1234', index: 2, parts, title: '', cwd });
const call = (n: number, label: string, args: unknown, callId?: string): Part => ({ n, kind: 'tool_call', label, text: typeof args === 'string' ? args : JSON.stringify(args, null, 2), ...(callId ? { callId } : {}) });
const result = (n: number, text: string, callId?: string, isError?: boolean): Part => ({ n, kind: 'tool_output', text, ...(callId ? { callId } : {}), ...(isError ? { isError } : {}) });

describe('writes observed from write tools', () => {
  it('takes the path of Write, Edit, MultiEdit, write_file, replace, str_replace-style and save-file calls', () => {
    const u = turn([
      { n: 1, kind: 'user', text: 'go' },
      call(2, 'Write', { file_path: '/w/app/a.ts', content: 'x > b.txt' }),
      call(3, 'Edit', { file_path: 'src/b.ts', old_string: 'a', new_string: 'b' }),
      call(4, 'MultiEdit', { file_path: '/w/app/c.ts', edits: [] }),
      call(5, 'write_file', { file_path: '/w/app/d.md', content: '' }),
      call(6, 'replace', { file_path: '/w/app/e.md', old_string: '', new_string: '' }),
      call(7, 'str_replace_based_edit_tool', { command: 'str_replace', path: '/w/app/f.py' }),
      call(8, 'str_replace_based_edit_tool', { command: 'view', path: '/w/app/g.py' }),
      call(9, 'save-file', { path: 'h.txt', file_content: '' }),
      call(10, 'edit', { filePath: '/w/app/i.ts' }),
      call(13, 'developer__text_editor', { command: 'write', path: '/w/app/k.ts' }),
      call(14, 'StrReplaceFile', { path: '/w/app/l.ts' }),
      call(11, 'Read', { file_path: '/w/app/j.ts' }),
      { n: 12, kind: 'assistant', text: 'done' },
    ]);
    const writes = fileWrites([u]);
    expect(writes.map((w) => [w.path, w.how, w.rule, w.ref])).toEqual([
      ['/w/app/a.ts', 'observed', 'Write', 'claude/abcd1234/2/p2'],
      ['/w/app/src/b.ts', 'observed', 'Edit', 'claude/abcd1234/2/p3'],
      ['/w/app/c.ts', 'observed', 'MultiEdit', 'claude/abcd1234/2/p4'],
      ['/w/app/d.md', 'observed', 'write_file', 'claude/abcd1234/2/p5'],
      ['/w/app/e.md', 'observed', 'replace', 'claude/abcd1234/2/p6'],
      ['/w/app/f.py', 'observed', 'str_replace_based_edit_tool', 'claude/abcd1234/2/p7'],
      ['/w/app/h.txt', 'observed', 'save-file', 'claude/abcd1234/2/p9'],
      ['/w/app/i.ts', 'observed', 'edit', 'claude/abcd1234/2/p10'],
      ['/w/app/k.ts', 'observed', 'developer__text_editor', 'claude/abcd1234/2/p13'],
      ['/w/app/l.ts', 'observed', 'StrReplaceFile', 'claude/abcd1234/2/p14'],
    ]);
  });

  it("parses an apply_patch call's file headers, raw or in JSON arguments, against its workdir", () => {
    const patch = '*** Begin Patch\n*** Add File: src/health.ts\n+export const ok = 1;\n*** Update File: src/app.ts\n*** Move to: src/main.ts\n@@\n-a\n+b\n*** Delete File: old.ts\n*** End Patch';
    const u = turn([{ n: 1, kind: 'user', text: 'go' }, call(2, 'apply_patch', patch), call(3, 'apply_patch', { input: '--- a/x.c\n+++ b/x.c\n@@\n', workdir: '/w/other' })]);
    expect(fileWrites([u]).map((w) => w.path)).toEqual(['/w/app/src/health.ts', '/w/app/src/app.ts', '/w/app/src/main.ts', '/w/app/old.ts', '/w/other/x.c']);
  });

  it('does not count a call whose result is flagged as an error (refused or failed)', () => {
    const u = turn([
      { n: 1, kind: 'user', text: 'go' },
      call(2, 'Edit', { file_path: '/w/app/a.ts' }, 't1'),
      call(3, 'Write', { file_path: '/w/app/b.ts' }, 't2'),
      result(4, 'String to replace not found', 't1', true),
      result(5, 'ok', 't2'),
      call(6, 'Bash', { command: 'echo x > c.txt' }, 't3'),
      result(7, "The user doesn't want to proceed with this tool use.", 't3', true),
    ]);
    expect(fileWrites([u]).map((w) => w.path)).toEqual(['/w/app/b.ts']);
  });

  it('counts a shell call that exited non-zero: the exit code shows it ran', () => {
    const u = turn([
      { n: 1, kind: 'user', text: 'go' },
      call(2, 'Bash', { command: 'npm test > test.log' }, 't1'),
      { ...result(3, 'FAIL 2 tests', 't1', true), exitCode: 1 },
    ]);
    expect(fileWrites([u]).map((w) => w.path)).toEqual(['/w/app/test.log']);
  });

  it('derives shell-tool writes with the call workdir, and takes provider-recorded diffs', () => {
    const u = turn([
      { n: 1, kind: 'user', text: 'go' },
      call(2, 'exec_command', { cmd: 'echo 1 > out.txt', workdir: '/w/codex' }),
      call(3, 'shell', { command: ['bash', '-lc', 'echo 2 >> log.txt'] }),
      { n: 4, kind: 'tool_call', label: 'bash', text: 'echo typed > bang.txt' },
      call(5, 'edit_file', { path: '/w/app/z.ts' }),
      result(6, 'Edited\n[diff: /w/app/z.ts]'),
    ]);
    const writes = fileWrites([u]);
    expect(writes.map((w) => `${w.how}:${w.rule} ${w.path} ${w.ref}`)).toEqual([
      'derived:> /w/codex/out.txt claude/abcd1234/2/p2',
      'derived:>> /w/app/log.txt claude/abcd1234/2/p3',
      'derived:> /w/app/bang.txt claude/abcd1234/2/p4',
      'observed:edit_file /w/app/z.ts claude/abcd1234/2/p5',
      'observed:recorded diff /w/app/z.ts claude/abcd1234/2/p6',
    ]);
  });

  it('reads terminal records: the command part is the shell command', () => {
    const rec: Unit = { ref: 'terminal/9f1e/3', source: 'terminal', session: '9f1e', index: 3, title: '', cwd: '/home/u/proj', parts: [{ n: 1, kind: 'prompt', text: '$' }, { n: 2, kind: 'command', text: 'npm test > test.log' }, { n: 3, kind: 'output', text: 'a > b.txt' }] };
    expect(fileWrites([rec])).toEqual([{ path: '/home/u/proj/test.log', how: 'derived', rule: '>', ref: 'terminal/9f1e/3/p2' }]);
  });
});

describe('the ledger', () => {
  it('groups writes by file and host, with counts, rules and evidence refs that agree', () => {
    const u = turn([
      { n: 1, kind: 'user', text: 'go' },
      call(2, 'Write', { file_path: '/w/app/a.ts' }),
      call(3, 'Bash', { command: 'echo x >> a.ts; echo y > /etc/motd' }),
      call(4, 'Bash', { command: "ssh prod 'echo y > /etc/motd'" }),
    ]);
    const ledger = fileLedger([u]);
    expect(ledger.files).toEqual([
      { path: '/w/app/a.ts', writes: 2, rules: ['observed:Write', 'derived:>>'], refs: ['claude/abcd1234/2/p2', 'claude/abcd1234/2/p3'] },
      { path: '/etc/motd', writes: 1, rules: ['derived:>'], refs: ['claude/abcd1234/2/p3'] },
      { path: '/etc/motd', host: 'prod', writes: 1, rules: ['derived:ssh >'], refs: ['claude/abcd1234/2/p4'] },
    ]);
    expect(fileCounts(ledger)).toEqual({ files: 3, writes: 4 });
  });
});

describe('shell calls', () => {
  it('recognises each provider’s shell tool and its command field', () => {
    const of = (label: string, args: unknown): string | undefined => shellCallOf(call(1, label, args))?.command;
    expect(of('Bash', { command: 'ls' })).toBe('ls');
    expect(of('exec_command', { cmd: 'ls', workdir: '/x' })).toBe('ls');
    expect(of('shell', { command: ['bash', '-lc', 'ls -la'] })).toBe('ls -la');
    expect(of('shell', { command: ['ls', '-la'] })).toBe('ls -la');
    expect(of('run_shell_command', { command: 'ls' })).toBe('ls');
    expect(of('launch-process', { command: 'ls', cwd: '/x' })).toBe('ls');
    expect(of('Execute', { command: 'ls' })).toBe('ls');
    expect(of('Read', { file_path: 'x' })).toBeUndefined();
    expect(shellCallOf(call(1, 'exec_command', { cmd: 'ls', workdir: '/x' }))?.cwd).toBe('/x');
  });
});
