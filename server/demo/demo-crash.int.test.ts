/**
 * The issue's crash test: `kill -9` of a real `tilth serve` (its whole process group) at 20
 * random moments of a demo session — interview and run — then a restart on the same sessions
 * folder and a resume as the browser would do it (answer the question that waits, press Run on a
 * stopped session). Every trial must reach all_done with both tasks committed once; after the
 * kill and at the end every JSON file of the session parses, every JSONL line parses (only a last
 * line torn by the kill may not), and events.jsonl is dense (seq 1..N).
 *
 * A moment is a place in the session, drawn from a seeded generator: a fraction of the events a
 * whole demo session writes (counted once, by a session run to the end first), then a few random
 * milliseconds more, so the kill falls between or during whatever comes next. Measured in events
 * rather than seconds, the moments stay inside the session however loaded the machine is, and
 * the same seed gives the same moments: the seed is logged, TILTH_CRASH_SEED=<seed> replays it.
 *
 * A server start costs seconds of CPU, so the trials share them. Two trials run at a time on one
 * server, and one kill serves both: the session that must die later starts first, the other when
 * the first is as far ahead as it should be at the kill, by the timeline of a whole session (its
 * events' timestamps) — so both land near their own moment. The server restarted after a kill
 * resumes those two to the end, then hosts the next two, until its own kill: one sessions folder,
 * eleven server starts for twenty kills, and at the end every session is checked again.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointSchema, InterviewStateSchema, PrdSchema, SeedMetaSchema } from '../../shared/files.ts';
import { SummarySchema } from '../../shared/summary.ts';
import { ensureWebBuild } from '../cli/serve.ts';
import { EventLog } from '../store/event-log.ts';
import { demoDetail, driveDemo, type DemoAnswers, type DemoApi } from '../testing/demo-driver.ts';
import { silentLogger, tempDir } from '../testing/test-app.ts';
import { prng } from '../testing/prng.ts';
import { startTilth, type TilthProcess } from '../testing/tilth-process.ts';

const TRIALS = 20;
const SEED = Number(process.env.TILTH_CRASH_SEED ?? 20_261_126);
const HOME_PREFIX = 'tilth-demo-crash-';
/** The demo needs no provider: make sure none leaks in from the environment. */
const NO_PROVIDER = { TILTH_BASE_URL: '', TILTH_API_KEY: '', TILTH_WORKER_MODEL: '', TILTH_PREP_MODEL: '', TILTH_EVALUATOR_MODEL: '' };

const live = new Set<TilthProcess>();
const homes: string[] = [];

async function boot(home: string): Promise<TilthProcess> {
  const server = await startTilth({ home, env: NO_PROVIDER });
  live.add(server);
  void server.exited.then(() => live.delete(server));
  return server;
}

function apiOf(server: TilthProcess): DemoApi {
  return async (method, url, body) => {
    const res = await fetch(`${server.origin}${url}`, {
      method,
      headers: { authorization: `Bearer ${server.token}`, ...(method === 'POST' ? { origin: server.origin, 'content-type': 'application/json' } : {}) },
      ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
    });
    return { status: res.status, body: await res.json() };
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Every harness file of the session parses: JSON files whole (and against their schema), JSONL
 * files line by line where only a last line without its newline — torn by the kill — may not,
 * and the event log is dense. The worktree and the scratch worktrees (the merge's and the mutation
 * probe's, both removed before they are used again) hold the repository's own files and are left out.
 */
const REPO_COPIES = new Set(['workspace', 'merge-scratch', 'probe-scratch']);

function assertSessionFiles(dir: string): void {
  const schemas: Record<string, { parse(v: unknown): unknown }> = {
    'checkpoint.json': CheckpointSchema,
    'prd.json': PrdSchema,
    'seed-meta.json': SeedMetaSchema,
    'interview.json': InterviewStateSchema,
    'summary.json': SummarySchema,
  };
  const walk = (folder: string): string[] =>
    fs.readdirSync(folder, { withFileTypes: true }).flatMap((e) => {
      const full = path.join(folder, e.name);
      if (e.isDirectory()) return folder === dir && REPO_COPIES.has(e.name) ? [] : walk(full);
      return [full];
    });
  for (const file of walk(dir)) {
    const name = path.relative(dir, file);
    const text = fs.readFileSync(file, 'utf8');
    if (file.endsWith('.json')) {
      let value: unknown;
      expect(() => (value = JSON.parse(text)), `${name} is not JSON`).not.toThrow();
      schemas[name]?.parse(value);
    } else if (file.endsWith('.jsonl')) {
      const lines = text.split('\n');
      lines.pop(); // after the last newline: nothing, or a line torn by the kill
      for (const [i, line] of lines.entries()) expect(() => JSON.parse(line), `${name} line ${i + 1} is not JSON`).not.toThrow();
    }
  }
  const seqs = fs
    .readFileSync(path.join(dir, 'events.jsonl'), 'utf8')
    .split('\n')
    .slice(0, -1)
    .map((line) => (JSON.parse(line) as { seq: number }).seq);
  expect(seqs, 'events.jsonl seqs must be 1..N').toEqual(seqs.map((_, i) => i + 1));
  const log = new EventLog(path.join(dir, 'events.jsonl'), path.basename(dir));
  expect(log.readAfter(0, 1_000_000)).toHaveLength(log.lastSeq); // every event valid against its schema
  log.close();
}

/** Where the kill landed: the status, and the last event on disk. */
function landing(dir: string): string {
  const status = (JSON.parse(fs.readFileSync(path.join(dir, 'checkpoint.json'), 'utf8')) as { status: string }).status;
  const lines = fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8').split('\n').slice(0, -1);
  const last = JSON.parse(lines.at(-1)!) as { type: string; data: { role?: string; tool?: string } };
  return `${status}/${last.type}${last.data.role ? `:${last.data.role}` : ''}${last.data.tool ? `:${last.data.tool}` : ''}`;
}

/** No accepted task lost or committed twice: each task's commit is on the branch once. */
function expectBothTasksOnce(dir: string, answers: DemoAnswers): void {
  const [t1, t2] = /priorit/i.test(answers[0])
    ? ['Todos carry a priority', 'The listing shows the priority']
    : ['Todos carry a due date', 'The listing shows the due date'];
  const subjects = execFileSync('git', ['log', '--format=%s'], { cwd: path.join(dir, 'workspace'), encoding: 'utf8' })
    .trim()
    .split('\n');
  expect(subjects.filter((s) => /^T-\d+: /.test(s))).toEqual([`T-002: ${t2}`, `T-001: ${t1}`]);
}

const POLL_MS = 100;

async function createDemo(api: DemoApi): Promise<string> {
  const res = await api('POST', '/api/demo', {});
  if (res.status !== 201) throw new Error(`POST /api/demo answered ${res.status}: ${JSON.stringify(res.body)}`);
  return (res.body as { session: { id: string } }).session.id;
}

/** Complete events on disk (a torn last line does not count). */
function eventsOnDisk(dir: string): number {
  try {
    const buf = fs.readFileSync(path.join(dir, 'events.jsonl'));
    let n = 0;
    for (const byte of buf) if (byte === 0x0a) n++;
    return n;
  } catch {
    return 0;
  }
}

const statusOnDisk = (dir: string): string => (JSON.parse(fs.readFileSync(path.join(dir, 'checkpoint.json'), 'utf8')) as { status: string }).status;

/** Statuses a session does not leave by itself: waiting for its events to grow is pointless. */
const SETTLED = new Set(['all_done', 'failed', 'stopped']);

/** Until the session has written `events` events (or has settled: done, or dead ended). */
async function untilEvents(dir: string, events: number): Promise<void> {
  for (const deadline = Date.now() + 120_000; eventsOnDisk(dir) < events && !SETTLED.has(statusOnDisk(dir)); ) {
    if (Date.now() > deadline) throw new Error(`the session in ${dir} never wrote ${events} events`);
    await sleep(10);
  }
}

/** A whole session: how many events it writes, and when each came (ms after the first). */
type Timeline = { events: number; at: number[]; ms: number };

/** A demo session played to the end without a kill, for its timeline. */
async function wholeSession(server: TilthProcess): Promise<Timeline> {
  const api = apiOf(server);
  const id = await createDemo(api);
  const started = Date.now();
  await driveDemo(api, id, { timeoutMs: 300_000, pollMs: POLL_MS });
  const lines = fs
    .readFileSync(path.join(server.sessionsDir, id, 'events.jsonl'), 'utf8')
    .split('\n')
    .slice(0, -1);
  const ts = lines.map((line) => Date.parse((JSON.parse(line) as { ts: string }).ts));
  return { events: lines.length, at: ts.map((t) => t - ts[0]!), ms: Date.now() - started };
}

type Trial = { n: number; fraction: number; answers: DemoAnswers };
type Round = { trials: [Trial, Trial]; jitterMs: number };
type Session = { trial: Trial; id: string; dir: string; landed: string; error?: string };

/**
 * Two trials on `server`: start both, one kill -9, restart on the same folder, resume both to the
 * end. Returns the restarted server, which the next round uses.
 */
async function runRound(server: TilthProcess, round: Round, whole: Timeline, sessions: Session[]): Promise<TilthProcess> {
  const [first, second] = [...round.trials].sort((a, b) => b.fraction - a.fraction) as [Trial, Trial];
  const ours: Session[] = [];
  const drivers: Promise<unknown>[] = [];
  const start = async (trial: Trial) => {
    const api = apiOf(server);
    const id = await createDemo(api);
    const session: Session = { trial, id, dir: path.join(server.sessionsDir, id), landed: '(not killed)' };
    ours.push(session);
    sessions.push(session);
    // The user plays along until the kill cuts the server off mid-stride.
    drivers.push(driveDemo(api, id, { answers: trial.answers, timeoutMs: 300_000, pollMs: POLL_MS }).catch(() => undefined));
  };
  const event = (fraction: number) => Math.max(1, Math.round(fraction * whole.events));
  const [killAt, secondAt] = [event(first.fraction), event(second.fraction)];
  // The second starts when the first has as long to go to its moment as the second needs to reach its own.
  const head = whole.at[killAt - 1]! - whole.at[secondAt - 1]!;
  await start(first);
  await untilEvents(ours[0]!.dir, whole.at.findIndex((t) => t >= head) + 1);
  await start(second);
  await untilEvents(ours[0]!.dir, killAt);
  await sleep(round.jitterMs);
  await server.kill();
  await Promise.all(drivers);
  for (const s of ours) {
    s.landed = `${landing(s.dir)} at event ${eventsOnDisk(s.dir)}/${whole.events}`;
    try {
      assertSessionFiles(s.dir);
    } catch (err) {
      s.error = `after the kill: ${(err as Error).message}`;
    }
  }

  const restarted = await boot(path.dirname(server.sessionsDir));
  const api = apiOf(restarted);
  await Promise.all(
    ours.map(async (s) => {
      if (s.error) return;
      try {
        await driveDemo(api, s.id, { answers: s.trial.answers, timeoutMs: 300_000, pollMs: POLL_MS });
        assertSessionFiles(s.dir);
        expectBothTasksOnce(s.dir, s.trial.answers);
      } catch (err) {
        s.error = `${(err as Error).message}\n--- server output (tail) ---\n${restarted.output().split('\n').slice(-15).join('\n')}`;
      }
    }),
  );
  return restarted;
}

beforeAll(async () => {
  // One build of the SPA up front; otherwise the first two servers would both start one.
  await ensureWebBuild(silentLogger);
}, 600_000);

afterAll(async () => {
  await Promise.all([...live].map((s) => s.kill()));
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
  // No server (or anything it started) may outlive the test.
  let stray = '';
  try {
    stray = execFileSync('pgrep', ['-f', HOME_PREFIX], { encoding: 'utf8' }).trim();
  } catch {
    stray = ''; // pgrep exits 1 when nothing matches
  }
  expect(stray, 'processes left behind').toBe('');
}, 60_000);

describe('demo crash safety', () => {
  it(`kill -9 of tilth serve at ${TRIALS} random moments of a demo session, restart and resume: every trial reaches all_done with valid files`, async () => {
    const began = Date.now();
    const random = prng(SEED);
    const trial = (n: number): Trial => ({
      n,
      fraction: random(),
      answers: [random() < 0.5 ? 'A priority' : 'A due date', 'Sort out what matters first.', 'Yes, show it in the listing'],
    });
    const rounds: Round[] = Array.from({ length: TRIALS / 2 }, (_, i) => ({
      trials: [trial(2 * i + 1), trial(2 * i + 2)],
      jitterMs: Math.floor(random() * 250),
    }));
    const home = tempDir(HOME_PREFIX);
    homes.push(home);
    let server = await boot(home);
    const whole = await wholeSession(server);
    console.log(`demo crash test: seed ${SEED} (TILTH_CRASH_SEED); a whole demo session writes ${whole.events} events (${whole.ms} ms here)`);

    const sessions: Session[] = [];
    for (const round of rounds) server = await runRound(server, round, whole, sessions);
    // The later kills left the finished sessions as they were.
    const api = apiOf(server);
    for (const s of sessions.filter((x) => !x.error)) {
      try {
        expect((await demoDetail(api, s.id)).session.status).toBe('all_done');
        assertSessionFiles(s.dir);
      } catch (err) {
        s.error = `after the later kills: ${(err as Error).message}`;
      }
    }
    await server.stop();

    const outcomes = sessions.sort((a, b) => a.trial.n - b.trial.n);
    for (const o of outcomes) {
      console.log(
        `  trial ${String(o.trial.n).padStart(2)}: kill at ${(o.trial.fraction * 100).toFixed(0).padStart(2)}% of the session's events, ${o.trial.answers[0]}, landed in ${o.landed} → ${o.error ? 'FAILED' : 'all_done'}`,
      );
    }
    const passed = outcomes.filter((o) => !o.error).length;
    console.log(`demo crash test: ${passed}/${TRIALS} reached all_done; wall time ${((Date.now() - began) / 1000).toFixed(0)} s`);
    expect(outcomes.filter((o) => o.error).map((o) => `trial ${o.trial.n} (${o.landed}): ${o.error}`)).toEqual([]);
    expect(passed).toBe(TRIALS);
  }, 1_200_000);
});
