/**
 * Starts a real `tilth serve` in its own process group, reads the URL it prints, and kills the
 * whole group on stop — so no test leaves a server behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TilthProcess {
  url: string;
  origin: string;
  port: number;
  token: string;
  home: string;
  sessionsDir: string;
  /** The process group (the server and anything it started). */
  pgid: number;
  output(): string;
  /** An authenticated API call as a script would make it (Bearer token, our Origin unless GET; `body` sent as JSON); the JSON reply. */
  api(method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** SIGTERM to the group (a clean shutdown), SIGKILL after 5 s. */
  stop(): Promise<void>;
  /** SIGKILL to the whole group at once: a crash. */
  kill(): Promise<void>;
  /** Resolves when the process has exited, however it ended. */
  exited: Promise<void>;
}

export interface StartTilthOptions {
  port?: number;
  home?: string;
  env?: Record<string, string>;
  args?: string[];
  /** The folder it is started in (its repository is the default workspace); this checkout by default. */
  cwd?: string;
  /** An installed `tilth` executable to run instead of this checkout's bin/tilth.js. */
  bin?: string;
  /** Run this checkout's build (dist/, `npm run build:server`) rather than its sources through tsx. */
  built?: boolean;
}

const CHECKOUT = path.resolve(import.meta.dirname, '..', '..');

export async function startTilth(options: StartTilthOptions = {}): Promise<TilthProcess> {
  const home = options.home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-e2e-'));
  const sessionsDir = path.join(home, 'sessions');
  const args = ['serve', '--port', String(options.port ?? 0), '--sessions-dir', sessionsDir, ...(options.args ?? [])];
  const entry = options.built ? path.join(CHECKOUT, 'dist', 'server', 'cli.js') : path.join(CHECKOUT, 'bin', 'tilth.js');
  if (options.built && !fs.existsSync(entry)) throw new Error(`no build at ${entry}: run \`npm run build:server\` first`);
  const [file, argv] = options.bin ? [options.bin, args] : [process.execPath, [entry, ...args]];
  const child: ChildProcess = spawn(file, argv, {
    cwd: options.cwd ?? CHECKOUT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TILTH_HOME: home, ...options.env },
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tilth serve printed no URL in time:\n${output}`)), 30_000);
    const check = () => {
      const match = /(http:\/\/127\.0\.0\.1:\d+\/(?:sessions\/[\w-]+)?#token=[\w.~-]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`tilth serve exited with ${code}:\n${output}`));
    });
  });
  const parsed = new URL(url);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    origin: parsed.origin,
    port: Number(parsed.port),
    token: parsed.hash.replace('#token=', ''),
    home,
    sessionsDir,
    pgid: child.pid!,
    output: () => output,
    api: async (method, url, body) => {
      const res = await fetch(`${parsed.origin}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${parsed.hash.replace('#token=', '')}`,
          ...(method === 'GET' ? {} : { origin: parsed.origin }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: await res.json() };
    },
    exited,
    stop: async () => {
      // Already gone (exited, or killed: then only its signal is set): nothing to stop.
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      process.kill(-child.pid, 'SIGTERM');
      const timeout = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timeout);
    },
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      process.kill(-child.pid, 'SIGKILL');
      await exited;
    },
  };
}

export interface TilthWorkerProcess {
  child: ChildProcess;
  /** What it printed so far. */
  output(): string;
  /** Its exit code once it has exited (null when a signal ended it). */
  exited: Promise<number | null>;
}

/**
 * `tilth worker` on `sessionsDir` in its own process group (the caller ends it by group, as a
 * test's afterEach does); resolves once it says it takes runs. `env` needs TILTH_QUEUE.
 */
export async function startTilthWorker(sessionsDir: string, env: Record<string, string>): Promise<TilthWorkerProcess> {
  const child = spawn(process.execPath, [path.join(CHECKOUT, 'bin', 'tilth.js'), 'worker', '--sessions-dir', sessionsDir], {
    cwd: CHECKOUT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  while (!out.includes('taking runs from')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      throw new Error(`tilth worker did not start:\n${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, output: () => out, exited };
}
