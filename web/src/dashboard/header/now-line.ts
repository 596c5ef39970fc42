/**
 * The dashboard's "now" line: what the run is doing at this moment, in words, since when, and its
 * newest event. It is read from the newest events alone (the stream's window, which a reload
 * fills from the log's tail), so a reloaded page says the same as the one that watched. Pure.
 *
 * The engine logs most activities when they end: a model call when it answers, the checks when
 * they finish, the evaluator with its verdict. So what runs now is read from the last event
 * before it (see `activityAfter`): after a tool's `tool_call` that tool runs; after the worker's
 * `submit_case` the checks run; after checks that passed the evaluator judges; after anything
 * else inside a task (its prompt, a tool's result, failed checks, a reject) the worker's next
 * model call is in flight. A `model_retry` with nothing after it is a call waiting to be tried
 * again (until its wait is over), and a `question_asked` with no answer waits for the user.
 */
import type { RunState } from '../../../../shared/api.ts';
import { describeEvent } from '../../../../shared/event-text.ts';
import { formatInt } from '../../../../shared/format.ts';
import type { EventType, SessionStatus, StopReason, TilthEvent } from '../../../../shared/events.ts';
import { oneLineCommand } from '../events/card-text.ts';
import { DELIBERATE } from './run-words.ts';

export type Activity =
  | 'starting'
  | 'setup'
  | 'thinking'
  | 'tool'
  | 'checks'
  | 'evaluator'
  | 'committing'
  | 'learnings'
  | 'retry'
  | 'question'
  | 'queued'
  | 'paused'
  | 'stopped'
  | 'done'
  | 'idle'
  | 'offline';

export interface NowLine {
  activity: Activity;
  /** What is happening, as a sentence without its full stop. */
  text: string;
  /** The task it is about, when there is one. */
  task: { id: string; title: string | null } | null;
  /** When it began (ms since the epoch); null for a state that is not an activity (done, stopped). */
  since: number | null;
  /** The newest event, in words. */
  latest: { seq: number; ts: string; text: string } | null;
}

export interface NowInput {
  /** The newest events, oldest first. */
  events: readonly TilthEvent[];
  status: SessionStatus | null;
  run: RunState;
  /** A run is going (the server's run state, or the session's status). */
  active: boolean;
  /** Why the last run stopped. */
  lastStop: StopReason | null;
  /** What the header says about a run that is not going ("stopped: dollar cap reached"). */
  headline: string;
  /** Task titles by id, from the plan. */
  titles: Readonly<Record<string, string>>;
  /** The worker's turns per task (the iteration cap); 0 when unknown or off. */
  maxTurns: number;
  /** The clock, for a retry's countdown. */
  now: number;
  /** The server stopped answering (the live connection is offline): what the page shows is as last seen. */
  offline?: boolean;
}

/** Events that land beside the work without changing what runs now. */
const BESIDE = new Set<EventType>(['log_opened', 'steering_note', 'provider_notice', 'hook_run', 'mutation_probe', 'setup_output', 'status_changed']);

/** How far back to look for the activity; a run's newest events always hold it well within this. */
const SCAN = 200;

interface Found {
  activity: Activity;
  text: string;
  taskId: string | null;
  since: string;
}

const taskOf = (event: TilthEvent): string | null => {
  const d = event.data as { task_id?: unknown };
  return typeof d.task_id === 'string' ? d.task_id : null;
};
const iterOf = (event: TilthEvent): number => {
  const d = event.data as { iter?: unknown };
  return typeof d.iter === 'number' ? d.iter : 0;
};

/** "turn 2 of 8" for the worker's next model call after `event`. */
function turnWords(event: TilthEvent, maxTurns: number): string {
  const turn = Math.max(1, iterOf(event) + 1);
  return maxTurns > 0 ? `turn ${Math.min(turn, maxTurns)} of ${maxTurns}` : `turn ${turn}`;
}

/** A tool the worker runs, in words: "running `npm test`", "using write_file on src/a.js". */
export function toolWords(tool: string, args: unknown): string {
  const a = args !== null && typeof args === 'object' ? (args as Record<string, unknown>) : {};
  if (tool === 'bash' && typeof a.command === 'string') return `running \`${oneLineCommand(a.command)}\``;
  const target = [a.path, a.file_path, a.pattern].find((v): v is string => typeof v === 'string' && v !== '');
  return target === undefined ? `using ${tool}` : `using ${tool} on ${target}`;
}

/** "the provider returned 429; retrying in 8 s (attempt 2 of 5)", while the wait lasts. */
export function retryWords(data: Extract<TilthEvent, { type: 'model_retry' }>['data'], dueInMs: number): string {
  const what = data.status === null ? `the ${data.role === 'prep' ? 'interviewer' : data.role}'s model call failed` : `the provider returned ${data.status}`;
  return `${what}; retrying in ${Math.max(1, Math.ceil(dueInMs / 1000))} s (attempt ${data.attempt + 1} of ${data.max_attempts})`;
}

/**
 * What runs after `event`, the newest event that says anything about it; null when the event
 * says nothing (the scan goes on to an older one).
 */
function activityAfter(event: TilthEvent, input: NowInput): Found | null {
  const task = taskOf(event);
  const at = { taskId: task, since: event.ts };
  const thinking = (): Found => ({ activity: 'thinking', text: `the worker is thinking (${turnWords(event, input.maxTurns)})`, ...at });
  switch (event.type) {
    case 'session_start':
    case 'session_resume':
    case 'env_prepared':
    case 'setup_finished':
    case 'rewound':
      return { activity: 'starting', text: 'starting the run', ...at };
    case 'setup_started':
      return { activity: 'setup', text: `setting up the worktree: running \`${oneLineCommand(event.data.command)}\``, ...at };
    case 'question_asked':
      return { activity: 'question', text: `waiting for your answer: ${event.data.text}`, ...at };
    case 'question_answered':
      return { activity: 'thinking', text: 'the interviewer is reading your answer', ...at };
    case 'model_retry': {
      // Once its wait is over the call is made again: what runs is what the call was for.
      const dueIn = Date.parse(event.ts) + event.data.wait_ms - input.now;
      return dueIn > 0 ? { activity: 'retry', text: retryWords(event.data, dueIn), ...at } : null;
    }
    case 'context_reset':
    case 'memory_load':
    case 'context_elided':
    case 'tool_result':
    case 'pre_tool_block':
    case 'case_parse_error':
    case 'coverage_gap':
    case 'revision_unchanged':
    case 'empty_model_response':
      return thinking();
    case 'prompt_assembled':
      if (event.data.role === 'evaluator') return { activity: 'evaluator', text: 'the evaluator is judging the case', ...at };
      if (event.data.role === 'self_improve') return { activity: 'learnings', text: 'noting what the task taught', ...at };
      return thinking();
    case 'model_call':
      if (event.data.role === 'evaluator') return { activity: 'evaluator', text: 'the evaluator is judging the case', ...at };
      if (event.data.phase === 'self_improve') return { activity: 'learnings', text: 'noting what the task taught', ...at };
      // The worker's tools and case are logged as soon as its reply is in: with nothing after it,
      // the reply had neither and the worker is asked again.
      return event.data.role === 'worker' ? thinking() : null;
    case 'tool_call':
      if (event.data.tool === 'submit_case') {
        return { activity: 'checks', text: "running the checks on the worker's case: the acceptance tests and the project's own", ...at };
      }
      return { activity: 'tool', text: `the worker is ${toolWords(event.data.tool, event.data.args)}`, ...at };
    case 'validator_run':
      return event.data.passed ? { activity: 'evaluator', text: 'the evaluator is judging the case', ...at } : thinking();
    case 'evaluator_parse_error':
      return { activity: 'evaluator', text: 'the evaluator is judging the case', ...at };
    case 'evaluator_verdict':
    case 'ledger_appended': {
      const accepted = event.type === 'evaluator_verdict' ? event.data.verdict === 'accept' : event.data.verdict_summary.startsWith('accept');
      return accepted ? { activity: 'committing', text: 'the case was accepted; committing the work', ...at } : thinking();
    }
    case 'task_done':
      return { activity: 'committing', text: 'the case was accepted; committing the work', ...at };
    case 'commit':
      return { activity: 'learnings', text: 'noting what the task taught', ...at };
    case 'proposed_learnings':
    case 'task_added':
    case 'add_task_started':
    case 'add_task_failed':
    case 'task_sent_back':
      return { activity: 'starting', text: PICKING, taskId: null, since: event.ts };
    case 'task_failed':
      return { activity: 'starting', text: 'the task failed; stopping the run', ...at };
    default:
      return null;
  }
}

const PICKING = 'picking the next task';
const WRAPPING_UP = 'the mutation probe has reported; wrapping up the run';
export const OFFLINE = 'the server is not answering: this is the run as last seen, and it updates when the server is back';

/** A mutation probe at work, in words: with the number of its mutants once it has made them. */
export function probeWords(taskId: string, mutants: number | null = null): string {
  const changes = mutants === null ? 'small changes' : `${mutants} small ${mutants === 1 ? 'change' : 'changes'}`;
  return `checking ${taskId}'s tests against ${changes} to its code (the mutation probe)`;
}

/**
 * The mutation probe still running, newest first, and its mutants once counted: a probe runs
 * beside the next task, and at the end of the run it is all that runs. Null when every probe in
 * the window has reported.
 */
function runningProbe(events: readonly TilthEvent[]): Found | null {
  const reported = new Set<string>();
  const planned = new Map<string, number>();
  for (let i = events.length - 1; i >= Math.max(0, events.length - SCAN); i--) {
    const event = events[i]!;
    // A probe of an earlier run ended with it, reported or not.
    if (event.type === 'stop') break;
    if (event.type === 'mutation_probe') reported.add(event.data.task_id);
    else if (event.type === 'mutation_probe_planned' && !planned.has(event.data.task_id)) planned.set(event.data.task_id, event.data.mutants);
    else if (event.type === 'mutation_probe_started' && !reported.has(event.data.task_id)) {
      const task = event.data.task_id;
      return { activity: 'checks', text: probeWords(task, planned.get(task) ?? null), taskId: task, since: event.ts };
    }
  }
  return null;
}

/** A tool call read as words rather than its arguments' JSON. */
function toolCallWords(data: Extract<TilthEvent, { type: 'tool_call' }>['data']): string {
  if (data.tool !== 'submit_case') return `${data.tool}: ${toolWords(data.tool, data.args)}`;
  const summary = data.args !== null && typeof data.args === 'object' ? (data.args as { summary?: unknown }).summary : undefined;
  return typeof summary === 'string' ? `the worker submitted its case: ${summary}` : 'the worker submitted its case';
}

/** An event in words; the few whose log line is code-like (JSON arguments, "iter 0") get their own. */
function latestText(event: TilthEvent): string {
  if (event.type === 'tool_call') return toolCallWords(event.data);
  if (event.type === 'prompt_assembled') {
    const whose = event.data.role === 'self_improve' ? 'the learnings' : `the ${event.data.role}'s`;
    return `${whose} prompt is ready (${formatInt(event.data.chars)} characters)`;
  }
  return describeEvent(event);
}

/** The newest event worth naming, in words. */
function latestWords(events: readonly TilthEvent[]): NowLine['latest'] {
  for (let i = events.length - 1; i >= Math.max(0, events.length - SCAN); i--) {
    const event = events[i]!;
    if (event.type === 'log_opened' || event.type === 'setup_output') continue;
    return { seq: event.seq, ts: event.ts, text: latestText(event) };
  }
  return null;
}

/** The "now" line for the dashboard. */
export function nowLine(input: NowInput): NowLine {
  const latest = latestWords(input.events);
  const withTask = (found: Found): NowLine => ({
    activity: found.activity,
    text: found.text,
    task: found.taskId === null ? null : { id: found.taskId, title: input.titles[found.taskId] ?? null },
    since: Date.parse(found.since),
    latest,
  });
  // A page whose server is gone cannot know what runs: it says so rather than count on.
  if (input.offline === true && (input.active || input.status === 'interviewing')) {
    return { activity: 'offline', text: OFFLINE, task: null, since: null, latest };
  }
  if (input.run.state === 'queued') {
    return { activity: 'queued', text: input.headline, task: null, since: null, latest };
  }
  if (input.active) {
    const { events } = input;
    const probe = runningProbe(events);
    // A probe that reported after the work went quiet: the run was waiting for it.
    let probeReported = false;
    for (let i = events.length - 1; i >= Math.max(0, events.length - SCAN); i--) {
      const event = events[i]!;
      if (event.type === 'mutation_probe') probeReported = true;
      if (BESIDE.has(event.type)) continue;
      // A probe that has reported, or that runs beside newer work, says nothing of what runs now.
      if (event.type === 'mutation_probe_started' || event.type === 'mutation_probe_planned') continue;
      if (event.type === 'stop') break;
      const found = activityAfter(event, input);
      if (found === null) continue;
      // Between tasks, and after the last one, a running probe is what the run is doing.
      if (found.text === PICKING && probe !== null) {
        return withTask(probe);
      }
      // The last probe has just reported: the run is ending (or, rarely, about to take a task
      // that a send-back reopened), not looking for work it was already done with.
      if (found.text === PICKING && probeReported) return withTask({ ...found, text: WRAPPING_UP });
      return withTask(found);
    }
    return { activity: 'starting', text: 'starting the run', task: null, since: null, latest };
  }
  // An interview waiting for its answer is the one thing outside a run that waits on the user.
  if (input.status === 'interviewing') {
    const last = input.events.findLast((e) => !BESIDE.has(e.type));
    if (last?.type === 'question_asked') return withTask(activityAfter(last, input)!);
  }
  const activity = idleActivity(input);
  return { activity, text: IDLE_TEXT[activity], task: null, since: null, latest };
}

/**
 * What the line says when no run is going. The header below already says why the run ended, so
 * this only says that nothing is happening, and what comes next.
 */
const IDLE_TEXT: Record<'done' | 'paused' | 'stopped' | 'idle', string> = {
  done: 'Nothing is running: the run is over',
  paused: 'Nothing is running: paused, Resume goes on from here',
  stopped: 'Nothing is running: the run stopped (the reason is below)',
  idle: 'Nothing is running yet',
};

function idleActivity(input: NowInput): 'done' | 'paused' | 'stopped' | 'idle' {
  switch (input.status) {
    case 'all_done':
    case 'merged':
      return 'done';
    case 'stopped':
      return input.lastStop !== null && DELIBERATE.has(input.lastStop) ? 'paused' : 'stopped';
    default:
      return 'idle';
  }
}
