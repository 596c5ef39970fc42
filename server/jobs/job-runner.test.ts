import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConflictError } from '../errors/app-error.ts';
import { silentLogger, useTempStore } from '../testing/test-app.ts';
import { JobRunner, logJobFailure, recoverAfterCrash } from './job-runner.ts';

const temp = useTempStore();

const newSession = (status: 'running' | 'interviewing' | 'prepared' | 'all_done') =>
  temp.store.create({ source: '/repo', brief: 'b', baseBranch: 'main', baseSha: 'abc', status }).session_id;

describe('logJobFailure', () => {
  it('logs a failure Tilth names with a code as one line with no stack, and anything else with its stack', () => {
    const lines: [string, string, Record<string, unknown> | undefined][] = [];
    const logger = {
      info: () => {},
      warn: (msg: string, extra?: Record<string, unknown>) => lines.push(['warn', msg, extra]),
      error: (msg: string, extra?: Record<string, unknown>) => lines.push(['error', msg, extra]),
    };
    logJobFailure(logger, 'interview job for s1 failed', new ConflictError('job_running', 'the provider said no'));
    const bug = new TypeError('x is undefined');
    logJobFailure(logger, 'run job for s1 failed', bug);
    logJobFailure(logger, 'run job for s1 failed', 'a string');
    expect(lines).toEqual([
      ['warn', 'interview job for s1 failed: the provider said no', { code: 'job_running' }],
      ['error', 'run job for s1 failed', { err: bug.stack }],
      ['error', 'run job for s1 failed', { err: 'a string' }],
    ]);
  });
});

describe('JobRunner', () => {
  it('runs a job with a context whose emit lands in the session log, then forgets it', async () => {
    const id = newSession('prepared');
    const runner = new JobRunner(temp.store, silentLogger);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    runner.start('run', id, async (ctx) => {
      expect(ctx.session.id).toBe(id);
      ctx.emit({ type: 'question_answered', data: { question_id: 'q1', answer: 'yes' } });
      await gate;
    });
    expect(runner.list()).toHaveLength(1);
    expect(runner.forSession(id)?.kind).toBe('run');
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(runner.list()).toHaveLength(0);
    expect(
      temp.store
        .session(id)
        .log()
        .readAfter(0, 10)
        .map((e) => e.type),
    ).toContain('question_answered');
  });

  it('allows one job per session', () => {
    const id = newSession('prepared');
    const runner = new JobRunner(temp.store, silentLogger);
    runner.start('run', id, () => new Promise(() => {}));
    expect(() => runner.start('interview', id, async () => {})).toThrow(ConflictError);
  });

  it('stops a job through its abort signal and waits for it to finish', async () => {
    const id = newSession('prepared');
    const runner = new JobRunner(temp.store, silentLogger);
    let sawAbort = false;
    runner.start(
      'run',
      id,
      (ctx) =>
        new Promise<void>((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            sawAbort = true;
            setTimeout(resolve, 20);
          });
        }),
    );
    expect(await runner.stop(id)).toBe(true);
    expect(sawAbort).toBe(true);
    expect(runner.list()).toEqual([]);
    expect(await runner.stop(id)).toBe(false);
  });

  it('leaves a live session stopped/interrupted when its job is stopped, not crashed', async () => {
    const id = newSession('running');
    const runner = new JobRunner(temp.store, silentLogger);
    runner.start('run', id, (ctx) => new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve())));
    await runner.stopAll();
    expect(temp.store.session(id).checkpoint.read()).toMatchObject({ status: 'stopped', last_stop: 'interrupted' });
    expect(recoverAfterCrash(temp.store, silentLogger)).toEqual([]);
  });

  it('logs a job that throws and keeps going', async () => {
    const id = newSession('prepared');
    const errors: string[] = [];
    const runner = new JobRunner(temp.store, { ...silentLogger, error: (m) => errors.push(m) });
    runner.start('run', id, async () => {
      throw new Error('boom');
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(errors).toEqual([`run job for ${id} failed`]);
    expect(runner.list()).toEqual([]);
  });
});

describe('recoverAfterCrash', () => {
  it('marks sessions left running or interviewing as stopped by a crash, and leaves the rest', () => {
    const running = newSession('running');
    const interviewing = newSession('interviewing');
    const prepared = newSession('prepared');
    const done = newSession('all_done');
    const recovered = recoverAfterCrash(temp.store, silentLogger);
    expect(recovered.sort()).toEqual([running, interviewing].sort());
    expect(temp.store.session(running).checkpoint.read()).toMatchObject({ status: 'stopped', last_stop: 'crash' });
    expect(temp.store.session(interviewing).checkpoint.read()).toMatchObject({ status: 'stopped', last_stop: 'crash' });
    expect(temp.store.session(prepared).checkpoint.read().status).toBe('prepared');
    expect(temp.store.session(done).checkpoint.read().status).toBe('all_done');
    const types = temp.store
      .session(running)
      .log()
      .readAfter(0, 100)
      .map((e) => e.type);
    expect(types.slice(-2)).toEqual(['stop', 'status_changed']);
  });

  it('removes the temp files a kill left mid-write, but not those of a session another process runs', () => {
    const crashed = newSession('running');
    const elsewhere = newSession('running');
    const temps = ['.checkpoint.json.0123456789ab.tmp', 'ledger/.T-001.jsonl.ba9876543210.tmp'];
    for (const id of [crashed, elsewhere]) {
      fs.mkdirSync(path.join(temp.store.session(id).dir, 'ledger'));
      for (const t of temps) fs.writeFileSync(path.join(temp.store.session(id).dir, t), '{"half":');
    }
    // A live process that is not this one holds `elsewhere` (a headless `tilth run`, a queue worker).
    const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(path.join(temp.store.session(elsewhere).dir, 'run.lock'), JSON.stringify({ pid: holder.pid, kind: 'run' }));
      const info: string[] = [];
      recoverAfterCrash(temp.store, { ...silentLogger, info: (m) => info.push(m) });
      expect(info).toEqual([`removed 2 temp file(s) an interrupted write left in session ${crashed}`]);
      // The one another process runs is alive: neither its temps nor its status are touched.
      expect(temp.store.session(elsewhere).checkpoint.read().status).toBe('running');
      for (const t of temps) {
        expect(fs.existsSync(path.join(temp.store.session(crashed).dir, t))).toBe(false);
        expect(fs.existsSync(path.join(temp.store.session(elsewhere).dir, t))).toBe(true);
      }
      expect(fs.readdirSync(temp.store.session(crashed).dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('says which phase each crashed session stopped in', () => {
    const running = newSession('running');
    const interviewing = newSession('interviewing');
    recoverAfterCrash(temp.store, silentLogger);
    const stopOf = (id: string) =>
      temp.store
        .session(id)
        .log()
        .readAfter(0, 100)
        .find((e) => e.type === 'stop')?.data;
    expect(stopOf(running)).toEqual({ reason: 'crash', phase: 'run', error: 'The server stopped while this session was active.' });
    expect(stopOf(interviewing)).toEqual({ reason: 'crash', phase: 'interview', error: 'The server stopped while this session was active.' });
  });

  it('hands interviews to the caller to continue, and stops only runs', () => {
    const running = newSession('running');
    const interviewing = newSession('interviewing');
    const continued: string[] = [];
    expect(recoverAfterCrash(temp.store, silentLogger, (id) => continued.push(id))).toEqual([running]);
    expect(continued).toEqual([interviewing]);
    expect(temp.store.session(interviewing).checkpoint.read().status).toBe('interviewing');
    expect(temp.store.session(running).checkpoint.read()).toMatchObject({ status: 'stopped', last_stop: 'crash' });
  });

  it('skips a session whose checkpoint is corrupt and says so', () => {
    const id = newSession('running');
    fs.writeFileSync(path.join(temp.store.session(id).dir, 'checkpoint.json'), '{');
    const warnings: string[] = [];
    const details: unknown[] = [];
    expect(
      recoverAfterCrash(temp.store, {
        ...silentLogger,
        warn: (m, d) => {
          warnings.push(m);
          details.push(d);
        },
      }),
    ).toEqual([]);
    expect(warnings).toEqual([`could not check session ${id} after restart`]);
    expect(details[0]).toEqual({ err: expect.stringMatching(/checkpoint\.json is corrupt/) });
  });
});

describe('JobRunner.startAfter', () => {
  it('starts the follow-up once the current job ends, and not at all if the session was stopped meanwhile', async () => {
    const id = temp.store.create({ source: '/repo', brief: 'b', baseBranch: 'main', baseSha: 'abc', status: 'prepared' }).session_id;
    const runner = new JobRunner(temp.store, silentLogger);
    let release!: () => void;
    runner.start('interview', id, () => new Promise<void>((r) => (release = r)));
    const ran: string[] = [];
    runner.startAfter('interview', id, async () => void ran.push('follow-up'));
    expect(ran).toEqual([]);
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(ran).toEqual(['follow-up']);

    runner.start('interview', id, (ctx) => new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r())));
    runner.startAfter('interview', id, async () => void ran.push('should not run'));
    await runner.stop(id);
    await new Promise((r) => setTimeout(r, 10));
    expect(ran).toEqual(['follow-up']);
  });
});
