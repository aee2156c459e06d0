// `sivtr init SHELL --keybinding`: Alt-O at a real bash, zsh and pwsh prompt opens the picker;
// Enter copies, Esc leaves, and either way the prompt comes back with the half-typed line intact
// and still usable. The rc files are the ones `init` writes, in a temp HOME.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { SAMPLE, writeLog } from '../helpers/terminal-log.js';
import { KEY, PtyScreen } from '../helpers/screen.js';
import { have } from '../capture/harness.js';

const ALT_O = '\x1bo';
const PROMPT = '@P@';

let tmp: ReturnType<typeof tempDir>;
let n = 0;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp.cleanup());

/** A temp HOME with the sample log, a fake desktop clipboard, and `sivtr init KIND --keybinding` run in it. */
function setUp(kind: 'bash' | 'zsh' | 'pwsh') {
  const home = join(tmp.path, `${kind}${++n}`);
  mkdirSync(home, { recursive: true });
  writeLog(join(home, 'data'), 't', SAMPLE);
  const bin = join(home, 'fakebin');
  mkdirSync(bin);
  const sink = join(home, 'clipboard.txt');
  writeFileSync(join(bin, 'xsel'), `#!/bin/sh\ncat > '${sink}'\n`);
  chmodSync(join(bin, 'xsel'), 0o755);
  const dotnet = join(homedir(), '.dotnet', 'tools');
  const env = cleanEnv(home, {
    SIVTR_DATA_DIR: join(home, 'data'),
    SIVTR_TERMINAL_ID: 't',
    SIVTR_CLIPBOARD: undefined,
    DISPLAY: ':99',
    // The hooks would record what the test types into the log the picker reads: not this time.
    SIVTR_DISABLE: undefined,
    PATH: `${bin}:${process.env.PATH}${existsSync(dotnet) ? `:${dotnet}` : ''}`,
    ZDOTDIR: home,
    INPUTRC: '/dev/null',
  });
  // The prompt first, as a user's rc sets it; init appends its blocks after.
  const rc = { bash: join(home, '.bashrc'), zsh: join(home, '.zshrc'), pwsh: join(home, '.config', 'powershell', 'Microsoft.PowerShell_profile.ps1') }[kind];
  if (kind === 'pwsh') mkdirSync(join(home, '.config', 'powershell'), { recursive: true });
  writeFileSync(rc, kind === 'pwsh' ? `function prompt { '${PROMPT} ' }\n` : `PS1='${PROMPT} '\n`);
  const r = runCli(['init', kind, '--keybinding'], { env });
  expect(r.code).toBe(0);
  expect(r.stderr).toContain('Alt-O at the prompt opens the picker');
  return { env, home, rc, clipboard: () => (existsSync(sink) ? readFileSync(sink, 'utf8') : '') };
}

function shell(kind: 'bash' | 'zsh' | 'pwsh', env: NodeJS.ProcessEnv, cols?: number): PtyScreen {
  if (kind === 'bash') return new PtyScreen('bash', ['-i'], { env, cols });
  if (kind === 'zsh') return new PtyScreen('zsh', ['-i'], { env, cols });
  // .NET puts its diagnostic sockets and debug pipes in TMPDIR, and a killed pwsh leaves them there.
  return new PtyScreen('pwsh', ['-NoLogo'], { env: { ...env, TMPDIR: env.HOME }, cols });
}

const promptLine = (s: PtyScreen): string => [...s.lines()].reverse().find((l) => l.startsWith(PROMPT)) ?? '';
/** The shell drew its prompt again after the picker left the alternate screen: keys typed now are the line editor's. */
const redrawn = (s: PtyScreen): boolean => !s.onAltScreen() && s.raw.slice(s.raw.lastIndexOf('\x1b[?1049l')).includes(PROMPT);

for (const kind of ['bash', 'zsh', 'pwsh'] as const) {
  describe.skipIf(!have(kind))(`${kind}: Alt-O`, () => {
    it('opens the picker over a half-typed line; Enter copies; the line comes back and still runs', async () => {
      const { env, clipboard } = setUp(kind);
      const s = shell(kind, env);
      try {
        await s.untilText(PROMPT);
        await s.type('echo kept', 'echo kept');
        s.write(ALT_O);
        await s.untilText('Enter copy');
        expect(s.onAltScreen()).toBe(true);
        await s.type('make', '1/4');
        await s.type(KEY.tab + KEY.tab, '[output]');
        s.write(KEY.enter);
        await s.until((x) => redrawn(x) && promptLine(x).includes('echo kept'), 'the prompt with the line back');
        // The confirmation stays on the screen: the shell draws its prompt below it, not over it.
        expect(s.text()).toContain('copied 2 lines from #2 make');
        expect(clipboard()).toBe('error: missing target\nmake: *** [all] Error 2');
        // the line editor works as before: the kept line runs
        s.write('\r');
        await s.untilText(/^kept$/m);
        await s.until((x) => promptLine(x) === PROMPT, 'the next prompt');
      } finally {
        s.kill();
      }
    });

    it('Esc leaves the picker and the prompt is as it was', async () => {
      const { env, clipboard } = setUp(kind);
      const s = shell(kind, env);
      try {
        await s.untilText(PROMPT);
        await s.type('echo still', 'echo still');
        s.write(ALT_O);
        await s.untilText('Enter copy');
        s.write(KEY.esc);
        await s.until((x) => redrawn(x) && promptLine(x).includes('echo still'), 'the prompt with the line back');
        // Nothing was printed, so bash and zsh draw the prompt again where it was, not once more
        // below it (pwsh always draws it on a fresh line: see shell-hooks/sivtr-keys.ps1).
        if (kind !== 'pwsh') expect(s.lines().filter((l) => l.startsWith(PROMPT))).toEqual([`${PROMPT} echo still`]);
        expect(clipboard()).toBe('');
        s.write('-here\r');
        await s.untilText(/^still-here$/m);
      } finally {
        s.kill();
      }
    });

    it('with the sivtr of init time gone, Alt-O says so on a line of its own and the line comes back', async () => {
      const { env, home, rc } = setUp(kind);
      const gone = join(home, 'gone', 'sivtr.js');
      // The block names the launcher init saw, quoted for the shell; it is moved away since.
      const block = readFileSync(rc, 'utf8');
      const launcher = /__sivtr_pick_bin='([^']+)'|\$global:__SivtrPickBin = '([^']+)'/.exec(block);
      expect(launcher).not.toBeNull();
      writeFileSync(rc, block.split(`'${launcher![1] ?? launcher![2]}'`).join(`'${gone}'`));
      const s = shell(kind, env, 240); // the message on one row: it names a path in the temp dir
      try {
        await s.untilText(PROMPT);
        await s.type('echo left', 'echo left');
        s.write(ALT_O);
        const said = (x: PtyScreen): number => x.lines().findIndex((l) => l.includes(`${gone} is gone`));
        const prompted = (x: PtyScreen): number => x.lines().findLastIndex((l) => l.startsWith(`${PROMPT} echo left`));
        await s.until((x) => said(x) >= 0 && prompted(x) > said(x), 'the message, then the prompt with the line below it');
        const quote = kind === 'pwsh' ? "'" : '`';
        expect(s.text()).toContain(`sivtr: ${gone} is gone; run ${quote}sivtr init ${kind} --keybinding${quote} with the sivtr you use now`);
        s.write('-over\r');
        await s.untilText(/^left-over$/m);
      } finally {
        s.kill();
      }
    });
  });
}

describe('init --keybinding', () => {
  it('adds one block after the hooks, --no-keybinding removes it, --status says so, --uninstall takes it too', () => {
    const { env, home } = setUp('bash');
    const rc = () => readFileSync(join(home, '.bashrc'), 'utf8');
    expect(rc().indexOf('# >>> sivtr keybinding >>>')).toBeGreaterThan(rc().indexOf('# >>> sivtr >>>'));
    expect(rc()).toMatch(/shell-hooks\/sivtr-keys\.bash/);
    expect(runCli(['init', 'bash'], { env }).code).toBe(0); // a plain re-run keeps it
    expect(rc().match(/# >>> sivtr keybinding >>>/g)).toHaveLength(1);
    expect(runCli(['init', 'bash', '--status'], { env }).stdout).toMatch(/; Alt-O opens the picker\n$/);
    expect(runCli(['init', 'bash', '--no-keybinding'], { env }).code).toBe(0);
    expect(rc()).not.toContain('sivtr keybinding');
    expect(runCli(['init', 'bash', '--status'], { env }).stdout).not.toContain('Alt-O');
    runCli(['init', 'bash', '--keybinding'], { env });
    runCli(['init', 'bash', '--uninstall'], { env });
    expect(rc()).toBe(`PS1='${PROMPT} '\n`);
  });
});
