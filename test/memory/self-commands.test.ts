// Which recorded command lines are sivtr's own read-only commands (passed over by recency and search).
import { describe, expect, it } from 'vitest';
import { isSivtrReadOnly } from '../../src/memory/self-commands.js';

describe('sivtr read-only commands', () => {
  it.each([
    'sivtr copy out 2 --print',
    'sivtr c',
    'sivtr ci 2..4',
    'sivtr co',
    'sivtr cc 3',
    'sivtr show terminal/current/2',
    'sivtr diff 1 2',
    'sivtr search "connection refused"',
    'sivtr sessions claude --global',
    'sivtr history',
    'sivtr history search make',
    'sivtr doctor',
    'sivtr import ./x.jsonl --json',
    'sivtr',
    'sivtr --help',
    'sivtr --version',
    'sivtr run --help',
    'sivtr init bash --help',
    '  sivtr show terminal/current/2  ',
    'npx sivtr show terminal/current/2',
    'npx -y sivtr copy out',
    'npm exec sivtr -- copy out',
    'node bin/sivtr.js show terminal/current/2',
    'node /home/me/src/sivtr/bin/sivtr.js diff 1 2',
    './bin/sivtr.js copy',
    '/usr/local/bin/sivtr copy out',
    'node dist/sivtr.cjs search foo',
    'NO_COLOR=1 sivtr diff 1 2',
    'SIVTR_DATA_DIR=/tmp/x FOO="a b" sivtr show terminal/current/1',
    'env NO_COLOR=1 sivtr show terminal/current/1',
    'command sivtr copy',
    'time sivtr search foo',
    'sivtr --color never diff 1 2',
    'sivtr show terminal/current/1 | less',
    'sivtr copy out --print | head -3',
    'sivtr show terminal/current/1 2>&1 | grep -i error',
    'sivtr search foo 2>/dev/null',
    "& node 'C:\\Users\\me\\sivtr\\bin\\sivtr.js' show terminal/current/2",
    'sivtr.cmd copy out',
  ])('%s', (line) => {
    expect(isSivtrReadOnly(line)).toBe(true);
  });

  it.each([
    'sivtr run make',
    'sivtr run -- sh -c "sivtr show x"',
    'sivtr run make --help',
    'make 2>&1 | sivtr pipe',
    'make | sivtr',
    'sivtr shell bash',
    'sivtr demo',
    'sivtr init bash',
    'sivtr copy out --print > out.txt',
    'sivtr show terminal/current/1 | tee saved.txt',
    'sivtr show terminal/current/1 | sed -i s/a/b/ f',
    'sivtr copy && make',
    'sivtr copy; make',
    'make || sivtr copy',
    'sivtr copy &',
    'echo "$(sivtr copy out --print)"',
    'echo `sivtr copy out --print`',
    'vim sivtr.txt',
    'cat sivtr.log',
    'git commit -m "sivtr show"',
    'npx other-tool sivtr',
    'node other.js sivtr show',
    'sivtr show terminal/current/1\nmake',
    'echo sivtr',
    'ls',
  ])('%s is not', (line) => {
    expect(isSivtrReadOnly(line)).toBe(false);
  });
});
