/**
 * A real redis-server for tests of the queue dispatcher: on a free loopback port, nothing saved
 * to disk, in its own process group so `stop` ends it whatever happens to the test.
 * Debian: `apt-get install -y redis-server` (.ci/run installs it; `npm test` asks for it).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';

export const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? 'redis-server';

export interface RedisProcess {
  url: string;
  port: number;
  /** Ends the server (SIGKILL to its group) and resolves once it has exited. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export async function startRedis(): Promise<RedisProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited;
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}:\n${output}`);
    if (await answers(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server did not answer on port ${port} in 10 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, port, stop };
}

/** True once a PING on `port` gets +PONG. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
