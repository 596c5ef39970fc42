/**
 * The demo end to end through the API with no provider configured: the real interview, seed, run
 * and merge, with the scripted demo model; the user's answers shape the seed.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../testing/test-app.ts';
import { post, sessionApi } from '../testing/session-api.ts';
import { DEMO_MODEL } from './demo.ts';

let t: TestApp;

beforeEach(async () => {
  // No provider at all; the mutation probe on, as a real server has it.
  t = await makeTestApp({ env: { TILTH_MUTATION_SECONDS: '60' } });
});
afterEach(async () => {
  await t.close();
});

const { detail, until, answer, events } = sessionApi(() => t, 60_000);

describe('demo mode', () => {
  it('runs the whole journey with no provider: answers shape the seed, a check failure is fixed, one reject, then merge', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/demo', headers: post });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().session.id as string;
    expect((await detail(id)).demo).toBe(true);

    await answer(id, 'A priority');
    await answer(id, 'Sort out what matters first thing in the morning.');
    await answer(id, 'Yes, show it in the listing');
    const prepared = await until(id, 'the seed', (d) => d.session.status === 'prepared');
    expect(prepared.tasks.map((x) => [x.id, x.title])).toEqual([
      ['T-001', 'Todos carry a priority'],
      ['T-002', 'The listing shows the priority'],
    ]);
    // The answer reads as the middle of the sentence it ends.
    expect(prepared.tasks[0]!.description).toContain('so a user can sort out what matters first thing in the morning.');

    expect((await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/run`, headers: post })).statusCode).toBe(202);
    const done = await until(id, 'the run', (d) => d.run.state === 'idle' && d.session.status !== 'running' && d.session.status !== 'prepared');
    expect(done.session.status, done.last_error ?? '').toBe('all_done');
    const all = events(id);
    // The first case forgets a criterion: the coverage gate answers it before anything runs.
    // The probe finds what T-001's tests would not notice: a priority level nobody tests.
    // Probes run beside the next task, so T-002's may end first.
    const probes = all.flatMap((e) => (e.type === 'mutation_probe' ? [e.data] : [])).sort((a, b) => a.task_id.localeCompare(b.task_id));
    expect(probes.map((p) => p.task_id)).toEqual(['T-001', 'T-002']);
    // Told with the criteria whose cases run its line: both of T-001's run the list of levels.
    expect(probes[0]!.survivors).toContainEqual({
      file: 'src/todo.js',
      line: expect.any(Number),
      description: "changes the string 'low' to 'mutant'",
      criteria: [0, 1],
    });
    expect(probes[0]!.killed).toBeGreaterThan(0);
    const gaps = all.filter((e) => e.type === 'coverage_gap');
    expect(gaps.map((e) => e.type === 'coverage_gap' && e.data.missing)).toEqual([['setPriority throws an Error for a value it does not accept']]);
    expect(gaps[0]!.seq).toBeLessThan(all.find((e) => e.type === 'validator_run')!.seq);
    expect(all.filter((e) => e.type === 'validator_run').map((e) => e.type === 'validator_run' && e.data.passed)).toEqual([false, true, true, true]);
    expect(all.filter((e) => e.type === 'evaluator_verdict').map((e) => e.type === 'evaluator_verdict' && e.data.verdict)).toEqual([
      'reject',
      'accept',
      'accept',
    ]);
    // The evaluator's word per criterion: the reject names the second one unmet, the accept both met.
    const words = all.flatMap((e) => (e.type === 'evaluator_verdict' && e.data.task_id === 'T-001' ? [e.data.criteria?.map((w) => w.met)] : []));
    expect(words).toEqual([
      [true, false],
      [true, true],
    ]);
    const models = all.filter((e) => e.type === 'model_call').map((e) => (e.type === 'model_call' ? e.data.model : ''));
    expect(new Set(models).size).toBe(1);
    expect(models[0]).toContain(DEMO_MODEL);

    const cp = t.store.session(id).checkpoint.read();
    const merged = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/merge`, headers: post, payload: { strategy: 'merge' } });
    expect(merged.statusCode, merged.body).toBe(200);
    const log = execFileSync('git', ['log', '--format=%s', 'main'], { cwd: cp.source, encoding: 'utf8' });
    expect(log).toContain('T-001: Todos carry a priority');
    expect(log).toContain('T-002: The listing shows the priority');
  }, 120_000);

  it('the other answers give another seed: a due date, data only', async () => {
    const id = (await t.app.inject({ method: 'POST', url: '/api/demo', headers: post })).json().session.id as string;
    await answer(id, 'A due date');
    await answer(id, 'Know what is late.');
    await answer(id, 'No, data only for now');
    const prepared = await until(id, 'the seed', (d) => d.session.status === 'prepared');
    expect(prepared.tasks.map((x) => x.title)).toEqual(['Todos carry a due date']);
  }, 60_000);
});
