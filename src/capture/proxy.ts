// `sivtr shell`: the user's shell runs on a PTY we own. Every byte goes to the real terminal first,
// untouched; a copy feeds the recorder. Any recorder error switches recording off and the session
// carries on (fail-open). node-pty is loaded here only, on demand.
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { warn } from '../errors.js';
import { ensurePrivateDir } from '../files.js';
import { tryLoadPty } from './pty.js';
import { dataDir, terminalLogPath, terminalsDir } from '../session/paths.js';
import { inlineSink, workerSink, type RecorderSink } from './sink.js';
import { loadCaptureRules, NO_RULES, type CaptureRulesData } from '../session/capture-rules.js';
import { MarkerTokenizer } from './tokenizer.js';
import { shellKind, shellLaunch } from './hooks.js';
import { RAN_LINE } from './install.js';
import { findExecutable } from './which.js';
import { hangUpWrapper, RunMarkerScanner, wrapped, wrapperShell } from './run-marker.js';

/** `sivtr shell` could not start the recorder; an rc auto-start then carries on as a plain shell. */
export const PROXY_UNAVAILABLE = 222;

export type ProxyOptions = {
  shell: string;
  env: NodeJS.ProcessEnv;
  /** Started from an rc file: on failure return PROXY_UNAVAILABLE instead of running a plain shell. */
  fromRc?: boolean;
  /** Record nothing, only pass bytes through (kill switch). */
  passthrough?: boolean;
  /**
   * The rc's auto-start block reads our stderr from a file: once the shell ran to its end, say so
   * there (`sivtr-ran CODE`, the only line that lets the rc exit), and tell the user things on the
   * terminal instead.
   */
  reportRan?: boolean;
};

/**
 * Random hex first, so ids (and the 8-character refs printed for them) differ from the first
 * character; then pid and start second, unique across time. Older `<pid>-<second>` ids still read.
 */
export function newTerminalId(): string {
  return `${randomBytes(4).toString('hex')}-${process.pid}-${Math.floor(Date.now() / 1000)}`;
}

/** Without node-pty the user still gets their shell: hooks-only mode records the metadata. */
function plainShell(shell: string, env: NodeJS.ProcessEnv): number {
  const result = spawnSync(shell, [], { stdio: 'inherit', env });
  if (result.error) {
    warn(`cannot start ${shell}: ${result.error.message}`);
    return 127;
  }
  return result.status ?? 128 + (signalNumber(result.signal) ?? 1);
}

function signalNumber(signal: string | null | undefined): number | undefined {
  if (!signal) return undefined;
  const table: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };
  return table[signal];
}

/** The `[capture]` rules; a config that cannot be read costs the rules, never the shell. */
async function captureRulesOrNone(env: NodeJS.ProcessEnv): Promise<CaptureRulesData> {
  try {
    return await loadCaptureRules(env);
  } catch {
    return NO_RULES;
  }
}

export async function runShellProxy(options: ProxyOptions): Promise<number> {
  const { shell } = options;
  // Under an rc block stderr goes to a file the block reads; what the user must see goes to the terminal.
  const tell = (line: string): void => void (options.reportRan ? process.stdout : process.stderr).write(`sivtr: ${line}\n`);
  const unavailable = (why: string): number => {
    warn(why);
    return PROXY_UNAVAILABLE;
  };
  const pty = await tryLoadPty();
  const baseEnv: NodeJS.ProcessEnv = { ...options.env };
  if (!pty) {
    if (options.fromRc) return unavailable('node-pty could not be loaded');
    warn('node-pty could not be loaded, starting the shell without the recorder (hooks record metadata only)');
    return plainShell(shell, baseEnv);
  }

  const kind = shellKind(shell);
  const record = !options.passthrough && kind !== undefined;
  if (!options.passthrough && kind === undefined) {
    tell(`${shell} has no sivtr hooks (bash, zsh, pwsh): running it without recording`);
  }
  // Read before the shell starts: its first bytes must find the sink ready.
  const rules = record ? await captureRulesOrNone(baseEnv) : NO_RULES;
  const nonce = randomBytes(16).toString('hex');
  const terminalId = newTerminalId();
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(baseEnv)) if (v !== undefined) childEnv[k] = v;
  childEnv.SIVTR_PTY_PROXY = '1';
  childEnv.SHELL = shell;
  let args: string[] = [];
  let logPath: string | undefined;
  if (record) {
    childEnv.SIVTR_NONCE = nonce;
    childEnv.SIVTR_TERMINAL_ID = terminalId;
    try {
      ensurePrivateDir(dataDir(baseEnv));
      ensurePrivateDir(terminalsDir(baseEnv));
      const launch = shellLaunch(kind, join(dataDir(baseEnv), 'shell'), baseEnv);
      args = launch.args;
      Object.assign(childEnv, launch.env);
      logPath = terminalLogPath(terminalId, baseEnv);
    } catch (error) {
      tell(`cannot prepare the recording (${(error as Error).message}); running without it`);
      delete childEnv.SIVTR_NONCE;
    }
  }

  const stdin = process.stdin;
  const stdout = process.stdout;
  // A closed terminal makes writes fail (EIO); the shell still gets its HUP and the open entry is
  // still written, so write errors here are not fatal.
  stdout.on('error', () => undefined);
  // Resolved here, not by node-pty: a shell that is not there must be a clear failure (an rc block
  // then carries on), not a child that exits 1 after a failed exec, which looks like a session.
  const file = findExecutable(shell, baseEnv);
  if (!file) {
    if (options.fromRc) return unavailable(`cannot find ${shell} on PATH`);
    warn(`cannot find ${shell}: check the name, or give its path`);
    return 127;
  }
  // The shell runs under the wrapper of run-marker.ts, which keeps the PTY's session alive until
  // its last byte was read: when the session leader exits, Linux discards what is still unread
  // (the end of the last command, its D marker). A wrapper that cannot start costs that only.
  type Child = import('node-pty').IPty;
  const spawnShell = (host: string | undefined): Child => {
    const how = host ? wrapped(host, file, args, childEnv) : { file, args, env: childEnv, nonce: '' };
    const spawned = pty.spawn(how.file, how.args, {
      name: baseEnv.TERM || 'xterm-256color',
      cols: stdout.columns || 80,
      rows: stdout.rows || 24,
      cwd: process.cwd(),
      env: how.env,
      encoding: null,
    } as import('node-pty').IPtyForkOptions);
    scanner = host ? new RunMarkerScanner(how.nonce) : undefined;
    return spawned;
  };
  let scanner: RunMarkerScanner | undefined;
  let host = wrapperShell(baseEnv);
  let child: Child;
  try {
    try {
      child = spawnShell(host);
    } catch (error) {
      if (!host) throw error;
      host = undefined;
      child = spawnShell(undefined);
    }
  } catch (error) {
    if (options.fromRc) return unavailable(`cannot start ${shell} on a PTY (${(error as Error).message})`);
    warn(`cannot start ${shell} on a PTY (${(error as Error).message}); starting it without the recorder`);
    return plainShell(shell, baseEnv);
  }
  /** Under the wrapper: the shell's pid once it announced itself (nothing passes before), its status once it ended. */
  let shellPid: number | undefined = host ? undefined : child.pid;
  let ended: number | undefined;
  const early: Buffer[] = [];
  const typedEarly: Buffer[] = [];

  // Two reasons to stop reading the PTY: the terminal is slower than the program, or the recorder
  // is too far behind. Reading resumes when neither holds.
  let pauses = 0;
  const flow = {
    pause: (): void => {
      if (pauses++ === 0) child.pause();
    },
    resume: (): void => {
      if (--pauses === 0) child.resume();
    },
  };
  let sink: RecorderSink | undefined;
  if (logPath) {
    const sinkOptions = { nonce, logPath, debug: Boolean(baseEnv.SIVTR_DEBUG), rules };
    // A worker thread renders huge outputs beside the passthrough instead of in its way (0.9x a bare
    // PTY reader instead of 0.5x, measured on 2 cores); SIVTR_RECORDER_INLINE=1 keeps it in this thread.
    sink = (baseEnv.SIVTR_RECORDER_INLINE ? undefined : workerSink(sinkOptions, flow)) ?? inlineSink(sinkOptions);
  }

  // The Linux console (and `dumb`) print unknown OSC payloads as text: there, and only there, our
  // own markers are taken out of what the terminal receives. Bytes are handled as latin1, 1:1.
  const term = baseEnv.TERM ?? '';
  const filter = logPath && (term === 'linux' || term === 'dumb') ? new MarkerTokenizer(nonce) : undefined;
  const forScreen = (buf: Buffer): Buffer => {
    if (!filter) return buf;
    let out = '';
    for (const token of filter.feed(buf.toString('latin1'))) if (token.type === 'text') out += token.text;
    return Buffer.from(out, 'latin1');
  };

  let waitingForDrain = false;
  const output = (buf: Buffer): void => {
    if (buf.length === 0) return;
    if (shellPid === undefined) return void early.push(buf);
    if (!stdout.write(forScreen(buf)) && !waitingForDrain) {
      waitingForDrain = true;
      flow.pause();
      stdout.once('drain', () => {
        waitingForDrain = false;
        flow.resume();
      });
    }
    // After a hang-up or SIGTERM the screen still gets what comes (when it is there), the record
    // does not: what the shell prints as it dies (a job's "Hangup", "exit") is no command's output.
    if (stoppedBy === undefined) sink?.feed(buf); // after the screen has its bytes
  };
  const onData = (data: Buffer | string): void => {
    if (ended !== undefined) return;
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (!scanner) return output(buf);
    for (const piece of scanner.feed(buf)) {
      if (piece.type === 'bytes') output(piece.bytes);
      else if (piece.type === 'start' && shellPid === undefined) {
        shellPid = piece.pid;
        for (const b of early.splice(0)) output(b);
        for (const b of typedEarly.splice(0)) child.write(b);
      } else if (piece.type === 'end' && shellPid !== undefined) {
        ended = piece.exitCode;
        if (waitingForDrain) {
          // read on, so that the hang-up is seen at once; the screen still gets what it was sent
          waitingForDrain = false;
          flow.resume();
        }
        hangUpWrapper(child.pid);
        return;
      }
    }
  };

  const wasRaw = stdin.isTTY ? stdin.isRaw : false;
  if (stdin.isTTY) stdin.setRawMode(true);
  const onInput = (data: Buffer): void => {
    if (shellPid === undefined) typedEarly.push(data);
    else if (ended === undefined) child.write(data);
  };
  stdin.on('data', onInput);
  stdin.resume();
  const onResize = (): void => {
    try {
      child.resize(stdout.columns || 80, stdout.rows || 24);
    } catch {
      // the shell already exited
    }
  };
  process.on('SIGWINCH', onResize);
  // SIGHUP (the terminal went away) and SIGTERM (asked to stop) end the session the same way: the
  // shell gets a hang-up, which interactive shells obey (they ignore SIGTERM) and pass on to their
  // jobs; the recorder then writes what it has. A shell that ignores the hang-up too is killed.
  let stoppedBy: number | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  // Under the wrapper the signal goes to the shell itself (its pid came with the start marker),
  // which then still reports its end; the wrapper's group is hung up only if that never comes.
  const signalShell = (signal: NodeJS.Signals): void => {
    try {
      process.kill(shellPid ?? child.pid, signal);
    } catch {
      // gone already
    }
  };
  const stop = (received: number) => (): void => {
    stoppedBy ??= received;
    signalShell('SIGHUP');
    killTimer ??= setTimeout(() => {
      signalShell('SIGKILL');
      if (host) hangUpWrapper(child.pid);
    }, 5000);
  };
  const onHup = stop(1);
  const onTerm = stop(15);
  process.on('SIGHUP', onHup);
  process.on('SIGTERM', onTerm);

  const restore = (): void => {
    if (stdin.isTTY) {
      try {
        stdin.setRawMode(wasRaw);
      } catch {
        // terminal gone
      }
    }
  };
  process.once('exit', restore);

  return await new Promise<number>((resolve) => {
    const onExit = async ({ exitCode, signal }: { exitCode: number; signal?: number }): Promise<void> => {
      if (host && shellPid === undefined && stoppedBy === undefined) {
        // The wrapper never reached the shell: run the shell itself, what is typed meanwhile kept.
        tell(`${host} could not host the recorder (exit ${signal ? 128 + signal : exitCode}); the end of a session may be lost — set SIVTR_RUN_SHELL to a POSIX shell`);
        host = undefined;
        early.length = 0;
        try {
          child = spawnShell(undefined);
        } catch (error) {
          tell(`cannot start ${shell} on a PTY (${(error as Error).message})`);
          return finish(127);
        }
        shellPid = child.pid;
        for (const b of typedEarly.splice(0)) child.write(b);
        child.onData(onData);
        child.onExit((e) => void onExit(e));
        return;
      }
      if (host && ended === undefined && scanner) output(scanner.flush());
      finish(ended ?? (signal ? 128 + signal : exitCode));
    };
    const finish = async (code: number): Promise<void> => {
      if (killTimer) clearTimeout(killTimer);
      const stats = sink ? await sink.finish() : undefined;
      stdin.off('data', onInput);
      stdin.pause();
      process.off('SIGWINCH', onResize);
      process.off('SIGHUP', onHup);
      process.off('SIGTERM', onTerm);
      restore();
      if (baseEnv.SIVTR_DEBUG && stats) process.stderr.write(`sivtr: ${JSON.stringify(stats)}\n`);
      // Stopped by a signal, the user's shell did not end on its own: an rc block carries on.
      if (options.reportRan && stoppedBy === undefined) process.stderr.write(`${RAN_LINE} ${code}\n`);
      resolve(stoppedBy ? 128 + stoppedBy : code);
    };
    child.onData(onData);
    child.onExit((e) => void onExit(e));
  });
}
