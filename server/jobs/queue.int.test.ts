/**
 * Runs through the durable queue as a user sets it up: a real redis-server, `tilth serve` with
 * TILTH_QUEUE, two `tilth worker` processes on the same sessions folder, real git and the
 * scripted model. Every process is in its own group and is killed with it.
 */
import { type ChildProcess, execFile, execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigResponse, RunState } from '../../shared/api.ts';
import type { TilthEvent } from '../../shared/events.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import type { ChatRequest } from '../scripted-model/wire.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { SessionStore } from '../store/session-store.ts';
import { connectionOf, controlChannel, queueName, type RunJobData, runJobId } from './queue.ts';
import { QUEUE_KEY_FILE } from './queue-key.ts';
import { canonical, type MessageKind, seal } from './queue-signing.ts';
import { startRedis, type RedisProcess } from '../testing/redis.ts';
import { caseTurn, makePreparedSession, noLearning, nodeTest, verdictTurn, writeTurn } from '../testing/run-fixtures.ts';
import { tempDir } from '../testing/test-app.ts';
import { StreamTestClient } from '../testing/ws-test-client.ts';
import { startTilth, startTilthWorker, type TilthProcess, type TilthWorkerProcess } from '../testing/tilth-process.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const WORKER = 'worker-model';
const EVAL = 'eval-model';

let redis: RedisProcess;
let fake: ScriptedModel;
let repo: ExampleRepo;
let home: string;
const children: ChildProcess[] = [];
const servers: TilthProcess[] = [];
/** Tasks whose worker model call never answers (until the run is stopped). */
const hangFor = new Set<string>();
/** How long the worker model takes over each reply. */
let replyMs = 400;
const FUNCTIONS: Record<string, [name: string, body: string]> = { 'T-001': ['double', 'n * 2'], 'T-002': ['half', 'n / 2'] };

const env = () => ({
  TILTH_HOME: home,
  TILTH_QUEUE: redis.url,
  TILTH_BASE_URL: fake.baseURL,
  TILTH_API_KEY: 'k',
  TILTH_WORKER_MODEL: WORKER,
  TILTH_EVALUATOR_MODEL: EVAL,
  TILTH_MUTATION_SECONDS: '0',
  TILTH_QUEUE_LEASE_SECONDS: '3',
});

beforeEach(async () => {
  [redis, fake, repo] = await Promise.all([startRedis(), startScriptedModel(), makeExampleRepo('js-todo')]);
  home = tempDir('tilth-queue-');
  // Each session's worker writes the function, then submits; the evaluator accepts. Answered by
  // where each conversation is, so sessions running at once cannot take each other's replies.
  hangFor.clear();
  replyMs = 400;
  fake.respondWith(WORKER, (request: ChatRequest) => {
    if (!request.tools || request.tools.length === 0) return noLearning;
    const task = /\*\*ID:\*\* (T-\d+)/.exec(JSON.stringify(request.messages))?.[1] ?? 'T-001';
    if (hangFor.has(task)) return { fault: 'hang' };
    const toolResults = request.messages.filter((m) => (m as { role?: string }).role === 'tool').length;
    const [name, body] = FUNCTIONS[task]!;
    const turn = toolResults === 0 ? writeTurn(`src/${name}.js`, `export function ${name}(n) {\n  return ${body};\n}\n`) : caseTurn();
    return { ...turn, delay_ms: replyMs };
  });
  fake.respondWith(EVAL, () => verdictTurn('accept'));
});

afterEach(async () => {
  for (const child of children.splice(0)) killGroup(child);
  for (const server of servers.splice(0)) await server.stop();
  await Promise.all([redis.stop(), fake.close(), repo.cleanup()]);
  fs.rmSync(home, { recursive: true, force: true });
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // gone
  }
}

async function startWorker(): Promise<TilthWorkerProcess> {
  const worker = await startTilthWorker(path.join(home, 'sessions'), env());
  children.push(worker.child);
  return worker;
}

async function serve(): Promise<TilthProcess> {
  const server = await startTilth({ home, env: env() });
  servers.push(server);
  return server;
}

async function preparedSessions(n: number, tasks = 1): Promise<string[]> {
  const store = new SessionStore(path.join(home, 'sessions'));
  const ids: string[] = [];
  const seed = [
    { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
    { id: 'T-002', title: 'Halve', tests: { 'tests/t002_half.test.js': nodeTest('half', 'half', '4', '2') } },
  ].slice(0, tasks);
  for (let i = 0; i < n; i++) ids.push(await makePreparedSession(store, repo.dir, 'node', seed));
  store.close();
  return ids;
}

function events(id: string): TilthEvent[] {
  const text = fs.readFileSync(path.join(home, 'sessions', id, 'events.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as TilthEvent);
}

function checkpoint(id: string): { status: string; last_stop: string | null } {
  return JSON.parse(fs.readFileSync(path.join(home, 'sessions', id, 'checkpoint.json'), 'utf8')) as { status: string; last_stop: string | null };
}

function runnersOf(id: string): (string | undefined)[] {
  return events(id).flatMap((e) => (e.type === 'session_start' && e.data.phase === 'run' ? [e.data.runner] : []));
}

function expectDense(id: string): void {
  const seqs = events(id).map((e) => e.seq);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
}

async function statusOf(server: TilthProcess, id: string): Promise<string> {
  const { body } = await server.api('GET', `/api/sessions/${id}`);
  return (body as { session: { status: string } }).session.status;
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('runs through the queue (real Redis, tilth serve, two tilth worker processes)', { timeout: 180_000 }, () => {
  it('runs two sessions at once on different workers, each to all_done with a dense log naming its worker', async () => {
    const ids = await preparedSessions(2);
    const server = await serve();
    const workers = [await startWorker(), await startWorker()];
    // The settings page and `tilth config` list both workers by host:pid.
    const { body: config } = await server.api('GET', '/api/config');
    const listed = (config as ConfigResponse).queue;
    expect(listed?.url).toBe(`${redis.url}`);
    expect(listed?.workers.map((w) => Number(w.name.split(':').at(-1))).sort()).toEqual(workers.map((w) => w.child.pid).sort());
    const printed = execFileSync(process.execPath, ['bin/tilth.js', 'config'], { cwd: ROOT, env: { ...process.env, ...env() }, encoding: 'utf8' });
    // The browser's stream: everything the workers append reaches it once, in order.
    const stream = await StreamTestClient.open(server.port, { authorization: `Bearer ${server.token}` });
    for (const id of ids) stream.send({ type: 'subscribe', sessionId: id, afterSeq: 0 });
    for (const w of workers) expect(printed).toMatch(new RegExp(`runs: through the queue at redis://127\\.0\\.0\\.1:${redis.port}.*:${w.child.pid}\\b`));
    for (const id of ids) {
      const { status, body } = await server.api('POST', `/api/sessions/${id}/run`, {});
      expect(status, JSON.stringify(body)).toBe(202);
    }
    await until('both sessions all_done', async () =>
      (await Promise.all(ids.map((id) => statusOf(server, id)))).every((s) => s === 'all_done') ? true : undefined,
    );

    for (const id of ids) {
      const last = events(id).at(-1)!.seq;
      await stream.next((f) => f.type === 'event' && f.sessionId === id && f.event.seq === last, 10_000);
      expect(stream.events(id)).toEqual(events(id));
    }
    stream.ws.close();

    const runners = ids.map((id) => {
      const log = events(id);
      expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
      const start = log.find((e) => e.type === 'session_start' && e.data.phase === 'run');
      return start?.type === 'session_start' ? start.data.runner : undefined;
    });
    expect(runners.every((r) => r?.startsWith('worker '))).toBe(true);
    // Two workers, one slot each, two sessions queued at once: one each.
    expect(new Set(runners).size).toBe(2);
    const pids = workers.map((w) => `:${w.child.pid}`);
    expect(runners.map((r) => pids.findIndex((p) => r?.endsWith(p))).sort()).toEqual([0, 1]);
    // Nothing ran inside the server.
    expect(workers.every((w) => w.output().includes('taking runs from'))).toBe(true);
  });

  it('a restart of tilth serve loses neither the run in progress on a worker nor the one queued behind it', async () => {
    const [running, waiting] = await preparedSessions(2);
    replyMs = 1_500;
    const server = await serve();
    await startWorker(); // one slot: the second run waits
    await server.api('POST', `/api/sessions/${running}/run`, {});
    await until('running', () => (checkpoint(running!).status === 'running' ? true : undefined));
    const queued = await server.api('POST', `/api/sessions/${waiting}/run`, {});
    expect((queued.body as { run: RunState }).run).toEqual({ state: 'queued', queue_position: 1 });
    // Asking again while it waits adds nothing.
    const again = await server.api('POST', `/api/sessions/${waiting}/run`, {});
    expect((again.body as { run: RunState }).run).toEqual({ state: 'queued', queue_position: 1 });
    await server.stop();
    servers.length = 0;

    const restarted = await serve();
    const { body } = await restarted.api('GET', `/api/sessions/${waiting}`);
    // While the first run goes on, the second is still queued behind it. On a loaded machine the
    // restart can outlast the first run; then the worker has rightly taken the second already.
    const firstStillRunning = checkpoint(running!).status === 'running';
    const after = (body as { run: RunState }).run;
    if (firstStillRunning) expect(after).toEqual({ state: 'queued', queue_position: 1 });
    else expect(['queued', 'running']).toContain(after.state);
    await until('both all_done', () => (checkpoint(running!).status === 'all_done' && checkpoint(waiting!).status === 'all_done' ? true : undefined));
    for (const id of [running!, waiting!]) {
      expectDense(id);
      expect(runnersOf(id)).toHaveLength(1);
      expect(events(id).flatMap((e) => (e.type === 'stop' ? [e.data.reason] : []))).toEqual(['all_done']);
    }
  });

  it('stops a run on its worker within seconds, leaving it resumable; SIGTERM to a worker does the same', async () => {
    const [first, second] = await preparedSessions(2);
    fake.respondWith(WORKER, () => ({ fault: 'hang' }));
    const server = await serve();
    const worker = await startWorker();
    await server.api('POST', `/api/sessions/${first}/run`, {});
    await until('running', async () => ((await statusOf(server, first!)) === 'running' ? true : undefined));
    const asked = Date.now();
    const stop = await server.api('POST', `/api/sessions/${first}/stop`, {});
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    expect((stop.body as { was: string }).was).toBe('running');
    expect(Date.now() - asked).toBeLessThan(10_000);
    const cp = JSON.parse(fs.readFileSync(path.join(home, 'sessions', first!, 'checkpoint.json'), 'utf8')) as { status: string; last_stop: string };
    expect([cp.status, cp.last_stop]).toEqual(['stopped', 'interrupted']);

    await server.api('POST', `/api/sessions/${second}/run`, {});
    await until('running', async () => ((await statusOf(server, second!)) === 'running' ? true : undefined));
    killGroup(worker.child, 'SIGTERM');
    expect(await worker.exited).toBe(0);
    const after = JSON.parse(fs.readFileSync(path.join(home, 'sessions', second!, 'checkpoint.json'), 'utf8')) as { status: string; last_stop: string };
    expect([after.status, after.last_stop]).toEqual(['stopped', 'interrupted']);
  });

  it('a killed worker leaves its run stopped (crash) once its lease runs out; Resume finishes it on the other worker with the accepted commit kept', async () => {
    const [id] = await preparedSessions(1, 2);
    hangFor.add('T-002');
    const server = await serve();
    const first = await startWorker();
    await server.api('POST', `/api/sessions/${id}/run`, {});
    await until('T-001 done and T-002 started', () =>
      events(id!).some((e) => e.type === 'task_done') && events(id!).some((e) => e.type === 'context_reset' && e.data.task_id === 'T-002') ? true : undefined,
    );
    const second = await startWorker();
    killGroup(first.child);
    // Within the lease (3 s here) plus 5 s of the kill.
    await until('stopped within the lease plus 5 s', () => (checkpoint(id!).status === 'stopped' ? true : undefined), 3_000 + 5_000);
    expect(checkpoint(id!).last_stop).toBe('crash');

    hangFor.clear();
    const resumed = await server.api('POST', `/api/sessions/${id}/run`, {});
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(202);
    await until('all_done', () => (checkpoint(id!).status === 'all_done' ? true : undefined));
    expectDense(id!);
    expect(runnersOf(id!).map((r) => r?.endsWith(`:${second.child.pid}`))).toEqual([false, true]);
    const subjects = execFileSync('git', ['log', '--format=%s', `session/${id}`], { cwd: repo.dir, encoding: 'utf8' });
    expect(subjects.split('\n').filter((s) => s.startsWith('T-001'))).toHaveLength(1);
    expect(subjects.split('\n').filter((s) => s.startsWith('T-002'))).toHaveLength(1);
  });

  it('a frozen worker loses its run once its lease is out; woken while another worker runs it, everything it writes is refused', async () => {
    const [id] = await preparedSessions(1);
    hangFor.add('T-001');
    const server = await serve();
    const frozen = await startWorker();
    await server.api('POST', `/api/sessions/${id}/run`, {});
    await until('the run waiting on the model', () => (events(id!).some((e) => e.type === 'prompt_assembled') ? true : undefined));
    const other = await startWorker();
    killGroup(frozen.child, 'SIGSTOP');
    // The lease runs out (3 s here); the server takes the session back within 5 s more.
    await until('stopped within the lease plus 5 s', () => (checkpoint(id!).status === 'stopped' ? true : undefined), 3_000 + 5_000);
    expect(checkpoint(id!).last_stop).toBe('crash');

    hangFor.clear();
    replyMs = 1_500;
    const resumed = await server.api('POST', `/api/sessions/${id}/run`, {});
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(202);
    await until('the other worker running it', () => (runnersOf(id!).length === 2 ? true : undefined));
    killGroup(frozen.child, 'SIGCONT'); // wakes mid-run: its model call ends, it tries to record a stop
    await until('all_done', () => (checkpoint(id!).status === 'all_done' ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // time for anything late from the woken worker

    expectDense(id!);
    expect(checkpoint(id!).status).toBe('all_done');
    expect(runnersOf(id!).map((r) => r?.endsWith(`:${other.child.pid}`))).toEqual([false, true]);
    expect(events(id!).flatMap((e) => (e.type === 'stop' ? [e.data.reason] : []))).toEqual(['crash', 'all_done']);
  });

  it('a guidance note reaches the worker running the session exactly once', async () => {
    const [id] = await preparedSessions(1);
    replyMs = 2_500;
    const server = await serve();
    await startWorker();
    await server.api('POST', `/api/sessions/${id}/run`, {});
    await until('the run waiting on the model', () => (events(id!).some((e) => e.type === 'prompt_assembled') ? true : undefined));
    const sent = await server.api('POST', `/api/sessions/${id}/notes`, { text: 'Keep the function one line.' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const noteId = (sent.body as { note: { note_id: string } }).note.note_id;
    await until('all_done', () => (checkpoint(id!).status === 'all_done' ? true : undefined));

    expectDense(id!);
    // Logged once as it arrived, once as the worker model was given it.
    const notes = events(id!).flatMap((e) => (e.type === 'steering_note' ? [e.data] : []));
    expect(notes.map((n) => [n.note_id, n.consumed_by === undefined])).toEqual([
      [noteId, true],
      [noteId, false],
    ]);
    const file = fs
      .readFileSync(path.join(home, 'sessions', id!, 'steering.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(file).toHaveLength(1);
    expect(JSON.parse(file[0]!)).toMatchObject({ note_id: noteId, text: 'Keep the function one line.', consumed_at: expect.any(String) });
    // The worker model saw it: in the first call after it arrived.
    const seen = fake.requests.filter((r) => r.model === WORKER && JSON.stringify(r.messages).includes('Keep the function one line.'));
    expect(seen.length).toBeGreaterThan(0);
  });

  it('says so at once when Redis is gone: Run, Stop and the settings page answer, with what to check', async () => {
    const [id] = await preparedSessions(1);
    const server = await serve();
    await redis.stop();
    const asked = Date.now();
    const run = await server.api('POST', `/api/sessions/${id}/run`, {});
    expect(Date.now() - asked).toBeLessThan(8_000);
    expect(run.status).toBe(503);
    expect(run.body).toMatchObject({ error: { code: 'queue_unavailable', message: expect.stringMatching(/Could not queue the run: .* Is Redis running\?/) } });
    const stop = await server.api('POST', `/api/sessions/${id}/stop`, {});
    expect(stop.status).toBe(503);
    const { body } = await server.api('GET', '/api/config');
    expect((body as ConfigResponse).queue?.problem).toBeTruthy();
    expect(checkpoint(id!).status).toBe('prepared');
  });

  it('tilth serve with no Redis at TILTH_QUEUE exits 1 within seconds saying what to do', async () => {
    const port = redis.port;
    await redis.stop(); // nothing listens there now
    const started = Date.now();
    const result = await new Promise<{ code: number | null; out: string }>((resolve) => {
      execFile(
        process.execPath,
        ['bin/tilth.js', 'serve', '--port', '0'],
        { cwd: ROOT, env: { ...process.env, ...env(), TILTH_QUEUE: `redis://127.0.0.1:${port}` }, timeout: 30_000 },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, out: stdout + stderr }),
      );
    });
    expect(result.code, result.out).toBe(1);
    expect(result.out).toContain(`the run queue at redis://127.0.0.1:${port} did not answer`);
    expect(result.out).toContain('unset TILTH_QUEUE');
    expect(Date.now() - started).toBeLessThan(25_000);
  });
});

describe('the queue takes only what its own Tilth signed (written straight into a real Redis)', { timeout: 180_000 }, () => {
  let injector: Queue | null = null;
  let publisher: Redis | null = null;
  const sessionsDir = () => path.join(home, 'sessions');
  const queue = () => queueName(sessionsDir());
  /** The key `tilth serve` made and its workers share. */
  const realKey = () => Buffer.from(fs.readFileSync(path.join(home, QUEUE_KEY_FILE), 'utf8').trim(), 'hex');

  afterEach(async () => {
    await injector?.close();
    await publisher?.quit().catch(() => {});
    injector = null;
    publisher = null;
  });

  function queueClient(): Queue {
    injector ??= new Queue(queue(), { connection: connectionOf(redis.url) });
    return injector;
  }

  /** Adds `data` as the session's run job, as anyone who reaches Redis can; resolves once a worker took it and it is gone. */
  async function injectJob(sessionId: string, data: unknown): Promise<void> {
    await queueClient().add('run', data, { jobId: runJobId(sessionId), removeOnComplete: true, removeOnFail: true });
    await until('the injected job taken and gone', async () => ((await queueClient().getJob(runJobId(sessionId))) ? undefined : true));
  }

  async function publish(message: unknown): Promise<void> {
    publisher ??= new Redis(redis.url);
    await publisher.publish(controlChannel(queue()), typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The run request the session's job names, read from Redis while the job is there. */
  async function requestOf(sessionId: string): Promise<string> {
    const job = await queueClient().getJob(runJobId(sessionId));
    return (job!.data as RunJobData).body.request;
  }

  /** Signed as the server signs, whatever the body (seal holds bodies to their limits; this does not). */
  function signedByHand(key: Buffer, kind: MessageKind, session: string, body: Record<string, string>, at = Date.now()): Record<string, unknown> {
    const fields = { v: 1 as const, kind, queue: queue(), session, at, nonce: randomBytes(16).toString('hex'), body };
    return { ...fields, sig: createHmac('sha256', key).update(canonical(fields)).digest('hex') };
  }

  /** What a session looks like on disk: its files (not the worktree's), its checkpoint and log whole. */
  function snapshot(id: string): unknown {
    const dir = path.join(sessionsDir(), id);
    const files = (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => !f.startsWith('workspace')).sort();
    return { files, checkpoint: checkpoint(id), events: events(id) };
  }

  const linesOf = (output: string, pattern: RegExp) => output.split('\n').filter((line) => pattern.test(line));

  it('an unsigned run job, and one signed with another key, start nothing: the session stays as it was, one line says so', async () => {
    const [id] = await preparedSessions(1);
    const server = await serve();
    const worker = await startWorker();
    // Even with a request open, a job signed with another key is not run.
    const store = new SessionStore(sessionsDir());
    const { request_id } = store.session(id!).runRequest.open();
    store.close();
    const before = snapshot(id!);
    await injectJob(id!, { sessionId: id });
    await injectJob(id!, seal(randomBytes(32), 'run', { queue: queue(), session: id! }, { request: request_id }));
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // time for anything a run would start
    expect(snapshot(id!)).toEqual(before);
    expect(fake.requests).toHaveLength(0);
    expect(await statusOf(server, id!)).toBe('prepared');
    expect(linesOf(worker.output(), /ignored run job .*not signed with this Tilth's queue key/)).toHaveLength(1);

    // A Run asked through the API still runs.
    const asked = await server.api('POST', `/api/sessions/${id}/run`, {});
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    await until('all_done', () => (checkpoint(id!).status === 'all_done' ? true : undefined));
  });

  it('an unsigned stop, one signed with another key and a stale one signed with the right key leave the run going to its end', async () => {
    const [id] = await preparedSessions(1);
    replyMs = 3_000;
    const server = await serve();
    const worker = await startWorker();
    await server.api('POST', `/api/sessions/${id}/run`, {});
    await until('the run waiting on the model', () => (events(id!).some((e) => e.type === 'prompt_assembled') ? true : undefined));
    const request = await requestOf(id!);
    await publish({ stop: id, reason: 'forged' });
    await publish(seal(randomBytes(32), 'stop', { queue: queue(), session: id! }, { request, reason: 'forged' }));
    await publish(seal(realKey(), 'stop', { queue: queue(), session: id! }, { request, reason: 'replayed' }, Date.now() - 2 * 60_000));
    // The log's stop event, not the checkpoint: the checkpoint is written first.
    await until('the run ended', () => (events(id!).some((e) => e.type === 'stop') ? true : undefined));
    expect(events(id!).flatMap((e) => (e.type === 'stop' ? [e.data.reason] : []))).toEqual(['all_done']);
    expect(linesOf(worker.output(), /ignored a control message: it is not signed with this Tilth's queue key/)).toHaveLength(1);
    expect(linesOf(worker.output(), /ignored a stop for .*: it is an old or repeated control message/)).toHaveLength(1);
  });

  it('a 3 MiB note, signed or not, and a signed one over 4,000 characters are dropped; a note within the API limit still reaches the worker', async () => {
    const [id] = await preparedSessions(1);
    replyMs = 2_500;
    const server = await serve();
    const worker = await startWorker();
    await server.api('POST', `/api/sessions/${id}/run`, {});
    await until('the run waiting on the model', () => (events(id!).some((e) => e.type === 'prompt_assembled') ? true : undefined));
    const request = await requestOf(id!);
    const note = (noteId: string, text: string) => ({ request, note_id: noteId, ts: new Date().toISOString(), text });
    const huge = 'x'.repeat(3 * 1024 * 1024);
    await publish({ note: id, note_id: 'n-0000000b', ts: new Date().toISOString(), text: huge });
    await publish(signedByHand(realKey(), 'note', id!, note('n-0000000c', huge)));
    await publish(signedByHand(realKey(), 'note', id!, note('n-0000000d', 'y'.repeat(4_001))));
    const sent = await server.api('POST', `/api/sessions/${id}/notes`, { text: 'Keep the function one line.' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await until('all_done', () => (checkpoint(id!).status === 'all_done' ? true : undefined));
    const texts = events(id!).flatMap((e) => (e.type === 'steering_note' && e.data.consumed_by === undefined ? [e.data.text] : []));
    expect(texts.map((t) => (t.length > 100 ? `${t.length} characters` : t))).toEqual(['Keep the function one line.']);
    expect(fs.statSync(path.join(home, 'sessions', id!, 'steering.jsonl')).size).toBeLessThan(1_000);
    expect(linesOf(worker.output(), /ignored a control message: it is larger than any message the API can cause/)).toHaveLength(1);
    expect(linesOf(worker.output(), /ignored a control message: it is signed, but outside the API's limits/)).toHaveLength(1);
  });

  it('a correctly signed replay of an old run job, for a session nobody asked to run again, is ignored; Resume still runs it', async () => {
    const [id] = await preparedSessions(1);
    fake.respondWith(WORKER, () => ({ fault: 'hang' }));
    const server = await serve();
    const worker = await startWorker();
    await server.api('POST', `/api/sessions/${id}/run`, {});
    await until('running', () => (checkpoint(id!).status === 'running' ? true : undefined));
    const seen = (await queueClient().getJob(runJobId(id!)))!.data as unknown;
    await server.api('POST', `/api/sessions/${id}/stop`, {});
    expect(checkpoint(id!).status).toBe('stopped');
    const before = snapshot(id!);
    await injectJob(id!, seen);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(snapshot(id!)).toEqual(before);
    expect(runnersOf(id!)).toHaveLength(1);
    expect(linesOf(worker.output(), /ignored the run job for .*: its session was not asked to run, or that request was already taken/)).toHaveLength(1);

    fake.respondWith(WORKER, (request: ChatRequest) => {
      if (!request.tools || request.tools.length === 0) return noLearning;
      const toolResults = request.messages.filter((m) => (m as { role?: string }).role === 'tool').length;
      return toolResults === 0 ? writeTurn('src/double.js', 'export function double(n) {\n  return n * 2;\n}\n') : caseTurn();
    });
    const resumed = await server.api('POST', `/api/sessions/${id}/run`, {});
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(202);
    await until('all_done', () => (checkpoint(id!).status === 'all_done' ? true : undefined));
    expect(runnersOf(id!)).toHaveLength(2);
  });
});
