import { describe, expect, it } from 'vitest';
import type { TilthEvent } from '../../../../shared/events.ts';
import { oneLineCommand } from '../events/card-text.ts';
import { nowLine, retryWords, toolWords, type NowInput } from './now-line.ts';
import { RunLog } from '../test-run.ts';

const running = { state: 'running', queue_position: null } as const;
const idle = { state: 'idle', queue_position: null } as const;
const TRACE = 'a'.repeat(32);
const SPAN = 'b'.repeat(16);
const at = (iter: number) => ({ task_id: 'T-001', trace_id: TRACE, span_id: SPAN, iter });

function input(events: readonly TilthEvent[], over: Partial<NowInput> = {}): NowInput {
  const last = events.at(-1);
  return {
    events,
    status: 'running',
    run: running,
    active: true,
    lastStop: null,
    headline: 'running',
    titles: { 'T-001': 'Double a number', 'T-002': 'Triple a number' },
    maxTurns: 8,
    now: last === undefined ? 0 : Date.parse(last.ts) + 5000,
    ...over,
  };
}

/** The activity after each step of a task, the way the engine logs it. */
function steps(): { log: RunLog; seen: [string, string][] } {
  const log = new RunLog().start();
  const seen: [string, string][] = [];
  const note = () => {
    const line = nowLine(input(log.events));
    seen.push([line.activity, line.text]);
  };
  log.task('T-001');
  note();
  log.workerCall('T-001', 1);
  log.add({ type: 'tool_call', data: { ...at(1), tool: 'bash', args: { command: 'npm test' } } });
  note();
  log.add({ type: 'tool_result', data: { ...at(1), tool: 'bash', result_preview: 'ok', result_chars: 2 } });
  note();
  log.workerCall('T-001', 2);
  log.add({ type: 'tool_call', data: { ...at(2), tool: 'submit_case', args: { summary: 'done' } } });
  note();
  log.checks('T-001', 2, true);
  note();
  log.verdict('T-001', 2, 'accept');
  note();
  log.done('T-001');
  note();
  return { log, seen };
}

describe('nowLine', () => {
  it('follows a task through the worker, a tool, the checks, the evaluator and the commit', () => {
    expect(steps().seen).toEqual([
      ['thinking', 'the worker is thinking (turn 1 of 8)'],
      ['tool', 'the worker is running `npm test`'],
      ['thinking', 'the worker is thinking (turn 2 of 8)'],
      ['checks', "running the checks on the worker's case: the acceptance tests and the project's own"],
      ['evaluator', 'the evaluator is judging the case'],
      ['committing', 'the case was accepted; committing the work'],
      ['learnings', 'noting what the task taught'],
    ]);
  });

  it('names the mutation probe while it is all the run does, and the next task once that begins', () => {
    const { log } = steps();
    const probe = log.add({ type: 'mutation_probe_started', data: { task_id: 'T-001' } });
    log.add({ type: 'proposed_learnings', data: { task_id: 'T-001', trace_id: TRACE, learnings: [] } } as never);
    // After the last task's learnings only the probe runs: it is named, and timed from its start.
    const waiting = nowLine(input(log.events));
    expect([waiting.activity, waiting.text, waiting.task?.id, waiting.since]).toEqual([
      'checks',
      "checking T-001's tests against small changes to its code (the mutation probe)",
      'T-001',
      Date.parse(probe.ts),
    ]);
    // Once it has made its mutants, it says how many; still timed from the probe's start.
    log.add({ type: 'mutation_probe_planned', data: { task_id: 'T-001', mutants: 14 } });
    const counted = nowLine(input(log.events));
    expect([counted.text, counted.since]).toEqual(["checking T-001's tests against 14 small changes to its code (the mutation probe)", Date.parse(probe.ts)]);
    // The next task's work is newer than the probe beside it: that is what the line says.
    log.task('T-002');
    expect(nowLine(input(log.events)).text).toBe('the worker is thinking (turn 1 of 8)');
    // Once the probe has reported, picking the next task is picking the next task again.
    const other = new RunLog().start();
    other.task('T-001').done('T-001');
    other.add({ type: 'mutation_probe_started', data: { task_id: 'T-001' } });
    other.add({ type: 'mutation_probe', data: { task_id: 'T-001', status: 'done', killed: 3, survived: 0, survivors: [], note: null, duration_ms: 900 } });
    other.add({ type: 'task_sent_back', data: { task_id: 'T-001', revision: 2, note: 'x', comments: 0 } });
    expect(nowLine(input(other.events)).text).toBe('picking the next task');
    // The last probe reports after the work went quiet: the run is wrapping up, not picking a task
    // (the moment before its status says it ended).
    const ending = new RunLog().start();
    ending.task('T-001').done('T-001');
    ending.add({ type: 'mutation_probe_started', data: { task_id: 'T-001' } });
    ending.add({ type: 'proposed_learnings', data: { task_id: 'T-001', trace_id: TRACE, learnings: [] } } as never);
    ending.add({ type: 'mutation_probe', data: { task_id: 'T-001', status: 'done', killed: 3, survived: 0, survivors: [], note: null, duration_ms: 900 } });
    expect(nowLine(input(ending.events)).text).toBe('the mutation probe has reported; wrapping up the run');
    // A probe the last run started and a stop cut short is not running in the next run.
    const resumed = new RunLog().start();
    resumed.task('T-001').done('T-001');
    resumed.add({ type: 'mutation_probe_started', data: { task_id: 'T-001' } });
    resumed.stop('interrupted').start();
    resumed.add({ type: 'task_sent_back', data: { task_id: 'T-001', revision: 2, note: 'x', comments: 0 } });
    expect(nowLine(input(resumed.events)).text).toBe('picking the next task');
  });

  it('names the task and its title, and times the activity from the event that began it', () => {
    const log = new RunLog().start().task('T-001').workerCall('T-001', 1);
    const call = log.add({ type: 'tool_call', data: { ...at(1), tool: 'write_file', args: { path: 'src/double.js', content: 'x' } } });
    log.add({ type: 'steering_note', data: { note_id: 'n1', text: 'be brief' } });
    const line = nowLine(input(log.events));
    expect(line.text).toBe('the worker is using write_file on src/double.js');
    expect(line.task).toEqual({ id: 'T-001', title: 'Double a number' });
    // The note landed beside the tool; the tool is still what runs, since its call.
    expect(line.since).toBe(Date.parse(call.ts));
    expect(line.latest).toMatchObject({ seq: log.events.at(-1)!.seq });
    expect(line.latest!.text).toContain('be brief');
  });

  it('gives the newest tool call or prompt in words, not as JSON or "iter 0"', () => {
    const log = new RunLog().start().task('T-001').workerCall('T-001', 1);
    log.add({ type: 'tool_call', data: { ...at(1), tool: 'bash', args: { command: 'npm test' } } });
    expect(nowLine(input(log.events)).latest!.text).toBe('bash: running `npm test`');
    log.add({ type: 'tool_call', data: { ...at(1), tool: 'submit_case', args: { summary: 'Added double().' } } });
    expect(nowLine(input(log.events)).latest!.text).toBe('the worker submitted its case: Added double().');
    log.add({
      type: 'prompt_assembled',
      data: { ...at(0), role: 'evaluator', content: 'Judge this.', chars: 2429, truncated: false },
    });
    expect(nowLine(input(log.events)).latest!.text).toBe("the evaluator's prompt is ready (2,429 characters)");
  });

  it('sends the worker back to thinking after failed checks or a reject', () => {
    const failed = new RunLog().start().task('T-001').workerCall('T-001', 1).checks('T-001', 1, false);
    expect(nowLine(input(failed.events)).text).toBe('the worker is thinking (turn 2 of 8)');
    const rejected = new RunLog().start().task('T-001').workerCall('T-001', 3).checks('T-001', 3, true).verdict('T-001', 3, 'reject', 'weak_test');
    expect(nowLine(input(rejected.events)).activity).toBe('thinking');
    expect(nowLine(input(rejected.events)).text).toBe('the worker is thinking (turn 4 of 8)');
  });

  it('shows a provider retry counting down, until the call answers', () => {
    const log = new RunLog().start().task('T-001');
    const retry = log.add({
      type: 'model_retry',
      data: { ...at(0), role: 'worker', model: 'm', attempt: 1, max_attempts: 5, wait_ms: 8000, reason: 'HTTP 429: slow down', status: 429 },
    });
    const due = Date.parse(retry.ts);
    expect(nowLine(input(log.events, { now: due })).text).toBe('the provider returned 429; retrying in 8 s (attempt 2 of 5)');
    expect(nowLine(input(log.events, { now: due + 7_200 })).text).toBe('the provider returned 429; retrying in 1 s (attempt 2 of 5)');
    // The wait is over: the call is made again, and the worker is thinking.
    expect(nowLine(input(log.events, { now: due + 8_000 }))).toMatchObject({ activity: 'thinking', text: 'the worker is thinking (turn 1 of 8)' });
    log.workerCall('T-001', 1);
    expect(nowLine(input(log.events)).activity).toBe('thinking');
  });

  it('says a failed call in its own words when there is no HTTP status', () => {
    const data = { role: 'evaluator' as const, model: 'm', attempt: 2, max_attempts: 6, wait_ms: 500, reason: 'socket hang up', status: null };
    expect(retryWords(data, 400)).toBe("the evaluator's model call failed; retrying in 1 s (attempt 3 of 6)");
  });

  it('waits for the user when an interview asks a question', () => {
    const log = new RunLog();
    log.add({ type: 'question_asked', data: { question_id: 'q1', text: 'Which date format?' } });
    const line = nowLine(input(log.events, { status: 'interviewing', active: false, run: idle }));
    expect(line).toMatchObject({ activity: 'question', text: 'waiting for your answer: Which date format?' });
  });

  it('says paused, stopped or done when no run is going, without repeating the headline', () => {
    const log = new RunLog().start().task('T-001').workerCall('T-001', 1).stop('interrupted');
    const off = { active: false, run: idle, status: 'stopped' as const };
    expect(nowLine(input(log.events, { ...off, lastStop: 'interrupted', headline: 'stopped: interrupted' }))).toMatchObject({
      activity: 'paused',
      text: 'Nothing is running: paused, Resume goes on from here',
      since: null,
    });
    expect(nowLine(input(log.events, { ...off, lastStop: 'dollar_cap', headline: 'stopped: dollar cap reached' })).activity).toBe('stopped');
    // A task sent back or added is the user's own doing: a pause to resume, not a stop to worry about.
    expect(nowLine(input(log.events, { ...off, lastStop: 'sent_back' })).activity).toBe('paused');
    expect(nowLine(input(log.events, { ...off, lastStop: 'task_added' })).activity).toBe('paused');
    expect(nowLine(input(log.events, { ...off, status: 'all_done', headline: 'finished: all tasks done' })).activity).toBe('done');
    expect(nowLine(input(log.events, { run: { state: 'queued', queue_position: 1 }, active: true, headline: 'queued' })).activity).toBe('queued');
  });

  it('reads a resumed run from its newest events, not from what came before its start', () => {
    const log = new RunLog().start().task('T-001').workerCall('T-001', 1).stop('interrupted').start();
    expect(nowLine(input(log.events))).toMatchObject({ activity: 'starting', task: null });
    expect(nowLine(input([]))).toMatchObject({ activity: 'starting', latest: null });
  });
});

describe('toolWords and oneLineCommand', () => {
  it('quotes a command on one line and names what other tools work on', () => {
    expect(toolWords('bash', { command: 'npm test -- --run\necho done' })).toBe('running `npm test -- --run …`');
    expect(toolWords('grep', { pattern: 'TODO' })).toBe('using grep on TODO');
    expect(toolWords('glob', {})).toBe('using glob');
    expect(oneLineCommand('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});
