/**
 * The bounded runner under untrusted.ts: its own process group, a timeout, an abort signal,
 * capped output, and everything it started killed when it ends. Built on execa. Only proc/ calls
 * it; everything else goes through runUntrusted, which adds the sandbox policy.
 */
import { StringDecoder } from 'node:string_decoder';

/** An argv command (run without a shell), or a shell command line (the user's own, for `custom`). */
export type Command = { kind: 'argv'; command: string; args: string[]; env: Record<string, string> } | { kind: 'shell'; script: string };

/** Output kept per run (stdout and stderr interleaved); past it the process is stopped. */
export const OUTPUT_CAP_BYTES = 256 * 1024;

export interface RunResult {
  /** null when the process never started (or was killed before it exited). */
  exitCode: number | null;
  output: string;
  timedOut: boolean;
  /** Why the process could not start, e.g. `spawn python3 ENOENT`. */
  spawnError: string | null;
}

/** Process groups still running, killed if the server exits first (execa's cleanup skips detached children). */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Names of variables a command we do not control must not inherit: Tilth's own settings (API
 * keys, the access token) and anything that looks like a credential. Matched on the name only;
 * the values are never inspected.
 */
const SECRET_NAME = /(API_?KEY|ACCESS_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

export function isSecretEnvName(name: string): boolean {
  return name.startsWith('TILTH_') || SECRET_NAME.test(name);
}

export interface RunOptions {
  cwd: string;
  timeoutMs: number;
  /** Added to the inherited environment (and to the command's own); never scrubbed. */
  env: Record<string, string>;
  signal?: AbortSignal;
  /** Drop inherited secrets (isSecretEnvName) — for the worker's shell and the checks. */
  scrubSecrets?: boolean;
  /** Started with the process: may call `stop` to end it early; returns its own cleanup. */
  watch?: (pid: number, stop: () => void) => () => void;
  /** Told each piece of output as it arrives (stdout and stderr interleaved), for a live view; the result still carries it all. */
  onOutput?: (text: string) => void;
}

/**
 * Runs one test command in its own process group, so a test that starts servers or children is
 * stopped whole: SIGTERM to the group at the timeout (or abort), SIGKILL 2 s later, and a final
 * SIGKILL to the group once the main process has exited, for anything it left behind. Output
 * (stdout and stderr interleaved) is capped; past the cap the process is stopped.
 */
export async function runBounded(cmd: Command, options: RunOptions): Promise<RunResult> {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
    });
  }
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !(options.scrubSecrets && isSecretEnvName(key))) env[key] = value;
  }
  // Not ours to pass on: colour codes would clutter the output, and a NODE_TEST_CONTEXT inherited
  // from a parent test runner would make `node --test` report to it instead of printing.
  delete env.FORCE_COLOR;
  delete env.NODE_TEST_CONTEXT;
  Object.assign(env, cmd.kind === 'argv' ? cmd.env : {}, options.env, { NO_COLOR: '1' });

  const [file, args] = cmd.kind === 'argv' ? [cmd.command, cmd.args] : ['/bin/sh', ['-c', cmd.script]];
  const { execa } = await import('execa');
  const subprocess = execa(file, args, {
    cwd: options.cwd,
    env,
    extendEnv: false,
    stdin: 'ignore',
    all: true,
    reject: false,
    detached: true,
    maxBuffer: OUTPUT_CAP_BYTES,
    stripFinalNewline: true,
  });
  const pid = subprocess.pid;
  const onOutput = options.onOutput;
  if (onOutput) {
    // A decoder, so a character split between two chunks arrives whole.
    const decoder = new StringDecoder('utf8');
    subprocess.all?.on('data', (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      if (text !== '') onOutput(text);
    });
  }
  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (pid === undefined) return;
    killGroup(pid, 'SIGTERM');
    killTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), 2_000);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  options.signal?.addEventListener('abort', stop, { once: true });
  if (pid !== undefined) liveGroups.add(pid);
  const unwatch = pid !== undefined && options.watch ? options.watch(pid, stop) : undefined;
  try {
    const result = await subprocess;
    const neverRan = pid === undefined || (result.failed && result.exitCode === undefined && result.signal === undefined && !result.isMaxBuffer);
    const spawnError = neverRan
      ? 'originalMessage' in result && typeof result.originalMessage === 'string'
        ? result.originalMessage
        : (result.shortMessage ?? 'unknown error')
      : null;
    return { exitCode: result.exitCode ?? null, output: typeof result.all === 'string' ? result.all : '', timedOut, spawnError };
  } finally {
    unwatch?.();
    clearTimeout(timer);
    if (killTimer) clearTimeout(killTimer);
    options.signal?.removeEventListener('abort', stop);
    if (pid !== undefined) {
      killGroup(pid, 'SIGKILL');
      liveGroups.delete(pid);
    }
  }
}
