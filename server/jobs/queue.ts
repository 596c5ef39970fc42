/**
 * What the queue dispatcher (in `tilth serve`) and the queue workers (`tilth worker`, `serve
 * --worker-slots`) agree on: the BullMQ queue of a sessions folder on one Redis, its job ids, and
 * the control channel for stops and notes; every message on either is signed (queue-signing.ts).
 * A server and its workers share the sessions folder in this step (issue 18), so the queue is
 * named after the folder's real path: two Tilths with different folders can share one Redis
 * without taking each other's runs.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type ConnectionOptions, Queue } from 'bullmq';
import type { Envelope, SignedMessage } from './queue-signing.ts';

/** A run job's data: the signed request to run its session (queue-signing.ts). */
export type RunJobData = Envelope<'run'>;

/** Messages on the control channel, for whichever worker runs the session: stop it, or take a guidance note. */
export type ControlMessage = SignedMessage<'stop' | 'note'>;

export function queueName(sessionsRoot: string): string {
  const real = fs.existsSync(sessionsRoot) ? fs.realpathSync(sessionsRoot) : path.resolve(sessionsRoot);
  return `tilth-runs-${createHash('sha256').update(real).digest('hex').slice(0, 12)}`;
}

export const controlChannel = (queue: string) => `${queue}:control`;

/** One job per session at a time (BullMQ ids cannot hold `:`); removed when it ends, so it can run again. */
export const runJobId = (sessionId: string) => `run-${sessionId}`;

/** ioredis options for BullMQ from a `redis://` or `rediss://` URL (blocking commands must not time out). */
export function connectionOf(url: string): ConnectionOptions {
  const u = new URL(url);
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new Error(`TILTH_QUEUE must be a redis:// or rediss:// URL, not ${u.protocol}`);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

export interface QueueView {
  url: string;
  workers: { name: string; connected_s: number }[];
  problem: string | null;
}

/** The workers connected to `queue` now (each named host:pid), longest connected first. */
export async function connectedWorkers(queue: Queue): Promise<QueueView['workers']> {
  const longest = new Map<string, number>();
  for (const client of await queue.getWorkers()) {
    const raw = String(client.rawname ?? '');
    const at = raw.indexOf(':w:');
    if (at < 0) continue;
    const name = raw.slice(at + 3);
    longest.set(name, Math.max(longest.get(name) ?? 0, Number(client.age ?? 0)));
  }
  return [...longest].map(([name, connected_s]) => ({ name, connected_s })).sort((a, b) => b.connected_s - a.connected_s || a.name.localeCompare(b.name));
}

/** `exchange`'s answer if it comes within `ms`; else it fails with "no answer within N s". */
export async function withinMs<T>(ms: number, exchange: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      exchange,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The queue at `url` and its connected workers, asked within `ms`; `problem` says why the list is missing. */
export async function viewOfQueue(queue: Queue, url: string, ms: number): Promise<QueueView> {
  const shown = shownQueueUrl(url);
  try {
    return { url: shown, workers: await withinMs(ms, connectedWorkers(queue)), problem: null };
  } catch (err) {
    return { url: shown, workers: [], problem: err instanceof Error ? err.message : String(err) };
  }
}

/** The queue of a sessions folder and its workers, asked once (for `tilth config`); gives up after ~2 s. */
export async function lookAtQueue(url: string, sessionsRoot: string): Promise<QueueView> {
  const queue = new Queue(queueName(sessionsRoot), {
    connection: { ...(connectionOf(url) as object), connectTimeout: 2_000, maxRetriesPerRequest: 1, retryStrategy: () => null },
  });
  queue.on('error', () => {}); // reported as the view's problem
  try {
    return await viewOfQueue(queue, url, 2_000);
  } finally {
    await queue.close().catch(() => {});
  }
}

/**
 * An error handler for the queue's Redis connections that says an outage once, not at every
 * retry, and says when Redis is back (call `up` on the connection's ready). ioredis keeps
 * reconnecting by itself.
 */
export function outageLog(logger: { warn(msg: string): void; info(msg: string): void }, what: string): { down: (err: Error) => void; up: () => void } {
  let down = false;
  return {
    down: (err) => {
      if (!down) logger.warn(`${what}: ${err.message}; retrying until Redis answers`);
      down = true;
    },
    up: () => {
      if (down) logger.info(`${what}: Redis answers again`);
      down = false;
    },
  };
}

/** The URL as logs and the settings page show it: no password. */
export function shownQueueUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}
