/**
 * How each event reads, for the web and the terminal alike: one table with an entry per event
 * type (`Record<EventType, …>`), so a new event type does not compile until someone decides how it
 * reads, which filter group it joins, whether it is trouble and what `tilth run` prints for it.
 * Pure text (no DOM); the web's cards add their rendering on top (web/src/dashboard/events/event-card.tsx).
 *
 * One line per event: `#123 12:01:02 tool_call T-001 iter 3 read_file {"path":"src/x.js"}`.
 * Model-written text (tool arguments, previews, concerns) is squeezed onto one line and clipped,
 * so one event is always one row.
 */
import type { EventData, EventType, StopReason, TilthEvent } from './events.ts';
import { formatCount, formatTime, formatUsd } from './format.ts';

const MAX_DETAIL_CHARS = 240;
const MAX_STRING_ARG_CHARS = 60;

/** The event stream's filter groups. */
export const EVENT_KINDS = ['model', 'tools', 'checks', 'verdicts', 'tasks', 'guidance', 'session', 'interview'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

interface EventText<T extends EventType> {
  /** The filter group (an event of the interview phase is always in 'interview'). */
  kind: EventKind;
  /** What the event says after its seq, time and type; `describeEvent` squeezes it onto one line. */
  detail: (data: EventData<T>) => string;
  /** The dashboard card's head summary, when it differs from `detail` (the head shows task and iteration itself). */
  head?: (data: EventData<T>) => string;
  /** The terminal line `tilth run` prints while a person watches, or null: not worth a line. */
  progress: ((data: EventData<T>) => string | null) | null;
  /** Something went wrong, or was refused: what a user scanning for trouble wants to see. */
  problem: boolean | ((data: EventData<T>) => boolean);
  /** Part of the exchange between worker and evaluator (the "Worker ↔ evaluator" preset). */
  dialogue: boolean | ((data: EventData<T>) => boolean);
}

type EventTexts = { [T in EventType]: EventText<T> };

/** Whitespace runs (newlines included) become one space; longer than `max` ends in "…". */
export function oneLine(text: string, max = MAX_DETAIL_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Tool arguments as compact JSON; a long string (a file's content, say) shows its start and size. */
export function compactArgs(args: unknown): string {
  try {
    const json = JSON.stringify(args, (_key, value: unknown) =>
      typeof value === 'string' && value.length > MAX_STRING_ARG_CHARS ? `${value.slice(0, MAX_STRING_ARG_CHARS - 1)}… (${value.length} chars)` : value,
    );
    return json ?? '';
  } catch {
    return '(arguments not shown)';
  }
}

/** A phase or a model role in words: `self_improve` is the learnings step. */
export function roleWords(name: string): string {
  return name === 'self_improve' ? 'learnings' : name === 'prep' ? 'interviewer' : name;
}

/** "T-001 iter 3", "evaluator T-001", "interview": where in the session an event happened (iteration 0 is the set-up before the first). */
function where(data: { task_id?: string | undefined; iter?: number | undefined; phase?: string | undefined }): string {
  return [data.phase && roleWords(data.phase), data.task_id, data.iter ? `iter ${data.iter}` : undefined].filter((p) => p !== undefined && p !== '').join(' ');
}

function join(...parts: (string | null | undefined | false)[]): string {
  return parts.filter((p): p is string => typeof p === 'string' && p !== '').join(' ');
}

function tokens(data: EventData<'model_call'>): string {
  const cost = data.cost_usd === null || data.cost_usd === undefined ? null : formatUsd(data.cost_usd);
  return join(`${data.prompt_tokens}+${data.eval_tokens} tokens`, cost);
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function failedChecks(data: EventData<'validator_run'>): string {
  return data.results
    .filter((r) => !r.passed)
    .map((r) => r.name)
    .join(', ');
}

/**
 * "provider busy, retrying in 8 s — attempt 2 of 6: HTTP 429 …". A live view passes the wait
 * still left (`waitMs`); once it has run out the next attempt is under way: "retrying now".
 */
export function retryLine(data: EventData<'model_retry'>, waitMs: number = data.wait_ms): string {
  const when = waitMs <= 0 ? 'now' : `in ${Math.max(1, Math.round(waitMs / 1000))} s`;
  const busy = data.status === 429 ? 'provider busy' : 'model call failed';
  return `${busy}, retrying ${when} — attempt ${data.attempt + 1} of ${data.max_attempts}: ${data.reason}`;
}

/** Why the worktree's environment was prepared. */
const ENV_REASONS: Record<EventData<'env_prepared'>['reason'], string> = {
  prep: 'at prep:',
  resume: 'before the run:',
  recreated: 'worktree re-created:',
  setup_changed: 'setup command changed:',
  packages_changed: 'installed packages changed:',
  merge_preview: 'merge preview:',
  mutation_probe: 'mutation probe:',
};

const SUBMIT_CASE = 'submit_case';

/**
 * Every event type's name on screen. The types keep their log names (`steering_note`,
 * `prompt_assembled`), which are for logs and tools; a person reading the stream gets words.
 */
export const EVENT_NAMES: Record<EventType, string> = {
  log_opened: 'log opened',
  session_start: 'session started',
  status_changed: 'status',
  session_prepared: 'plan ready',
  seed_committed: 'plan committed',
  seed_written: 'plan written',
  seed_edited: 'plan edited',
  task_added: 'task added',
  add_task_started: 'adding a task',
  add_task_failed: 'task not added',
  task_sent_back: 'task sent back',
  question_asked: 'question',
  question_answered: 'answer',
  session_resume: 'resumed',
  rewound: 'rewound',
  context_reset: 'fresh conversation',
  memory_load: 'learnings read',
  prompt_assembled: 'instructions sent',
  model_call: 'model call',
  model_retry: 'retry',
  context_elided: 'old output dropped',
  provider_notice: 'provider notice',
  empty_model_response: 'empty reply',
  tool_call: 'tool call',
  hook_run: 'hook',
  tool_result: 'tool result',
  pre_tool_block: 'tool blocked',
  case_parse_error: 'unreadable case',
  mutation_probe_started: 'mutation probe started',
  mutation_probe_planned: 'mutants made',
  mutation_probe: 'mutation probe',
  coverage_gap: 'criteria left out',
  revision_unchanged: 'revision changed nothing',
  validator_run: 'checks',
  evaluator_parse_error: 'unreadable verdict',
  evaluator_verdict: 'verdict',
  ledger_appended: 'verdict recorded',
  task_done: 'task done',
  task_failed: 'task failed',
  proposed_learnings: 'learnings proposed',
  commit: 'commit',
  steering_note: 'your note',
  merge: 'merged',
  push: 'pushed',
  pr: 'pull request',
  cleanse: 'cleansed',
  env_prepared: 'environment ready',
  setup_started: 'setup started',
  setup_output: 'setup output',
  setup_finished: 'setup finished',
  stop: 'stopped',
};

/** An event's name on screen: `steering_note` → "your note". */
export function eventName(event: TilthEvent): string {
  return EVENT_NAMES[event.type];
}

/** A status in words: `all_done` → "all done". */
const spaced = (value: string): string => value.replaceAll('_', ' ');

/** Why a run stopped, in a few words (the dashboard's headline says more, with the caps). */
export const STOP_WORDS: Record<StopReason, string> = {
  all_done: 'all tasks done',
  wall_clock: 'wall-clock cap reached',
  token_cap: 'token cap reached',
  dollar_cap: 'dollar cap reached',
  iter_cap: 'iteration cap reached',
  evaluator_cap: 'evaluator cap reached',
  empty_responses: 'empty replies from the model',
  no_case: 'the work was never submitted',
  provider_failure: 'the provider kept failing',
  git_tampered: "the worktree's git was changed",
  evaluator_unreadable: 'unreadable verdicts',
  context_overflow: 'the context window is full',
  setup_failed: 'the environment setup failed',
  sent_back: 'a task was sent back',
  task_added: 'a task was added',
  interrupted: 'interrupted',
  crash: 'the server went down',
  error: 'an error',
};

/** A status change's reason: a stop reason in words, anything else as it was said. */
const reasonWords = (reason: string): string => (reason in STOP_WORDS ? STOP_WORDS[reason as StopReason] : reason);

/** Why a task left no learning, in words. */
const LEARNING_SKIPS: Record<NonNullable<EventData<'proposed_learnings'>['reason']>, string> = {
  no_proposal: 'none proposed',
  empty_learning: 'the proposal was empty',
  unparseable: 'the reply could not be read',
  error: 'the call failed',
};

/** Every event type: how it reads, where it is filed, and what the terminal prints for it. */
export const EVENT_TEXT: EventTexts = {
  log_opened: { kind: 'session', detail: (d) => `log version ${d.log_version}`, progress: null, problem: false, dialogue: false },
  session_start: {
    kind: 'session',
    detail: ({ phase, caps, models, sandbox }) =>
      join(
        phase,
        models && `worker ${models.worker}, evaluator ${models.evaluator}`,
        caps && `· caps: ${caps.max_iterations_per_task} iterations/task, $${caps.max_dollars}, ${caps.max_wall_clock_minutes} min`,
        sandbox &&
          (sandbox.available ? `· shell sandboxed${sandbox.network ? ' (network allowed)' : ', no network'}` : `· shell NOT sandboxed: ${sandbox.detail}`),
      ),
    progress: null,
    problem: false,
    dialogue: false,
  },
  status_changed: {
    kind: 'session',
    detail: (d) => join(`${d.from === null ? '(new)' : spaced(d.from)} → ${spaced(d.to)}`, d.reason && `(${reasonWords(d.reason)})`),
    progress: null,
    problem: (d) => d.to === 'stopped' || d.to === 'failed',
    dialogue: false,
  },
  session_prepared: {
    kind: 'interview',
    detail: (d) => `${plural(d.prd_entries, 'task')}, ${plural(d.test_files, 'test file')}`,
    progress: null,
    problem: false,
    dialogue: false,
  },
  seed_committed: { kind: 'interview', detail: (d) => `${d.sha} on ${d.branch}`, progress: null, problem: false, dialogue: false },
  seed_written: {
    kind: 'interview',
    detail: (d) => join(d.task_ids.join(', '), `· checks ${d.checks_preset}`),
    progress: null,
    problem: false,
    dialogue: false,
  },
  seed_edited: { kind: 'interview', detail: (d) => d.changed.join(', '), progress: null, problem: false, dialogue: false },
  task_added: {
    kind: 'tasks',
    detail: (d) => `${d.task_id} ${d.title} · ${d.test_file}`,
    progress: (d) => `+ ${d.task_id} added`,
    problem: false,
    dialogue: true,
  },
  add_task_started: {
    kind: 'tasks',
    detail: (d) => `the model is writing the test of "${d.title}"`,
    progress: (d) => `+ adding "${d.title}"`,
    problem: false,
    dialogue: false,
  },
  add_task_failed: {
    kind: 'tasks',
    detail: (d) => `"${d.title}" was not added: ${d.message}`,
    progress: (d) => `✗ "${d.title}" not added (${d.code})`,
    problem: true,
    dialogue: true,
  },
  task_sent_back: {
    kind: 'tasks',
    detail: (d) =>
      join(`${d.task_id} sent back as revision ${d.revision}`, d.comments > 0 && `· ${plural(d.comments, 'comment')}`, d.note && `· ${oneLine(d.note)}`),
    progress: (d) => `↩ ${d.task_id} rev ${d.revision}`,
    problem: false,
    dialogue: true,
  },
  question_asked: { kind: 'interview', detail: (d) => d.text, progress: null, problem: false, dialogue: false },
  question_answered: { kind: 'interview', detail: (d) => d.answer, progress: null, problem: false, dialogue: false },
  session_resume: {
    kind: 'session',
    detail: (d) =>
      join(
        d.last_stop !== null && `after ${d.last_stop}`,
        d.retried.length > 0 && `· retrying ${d.retried.join(', ')}`,
        `· pending ${d.pending.length > 0 ? d.pending.join(', ') : 'none'}`,
      ),
    progress: (d) => `resuming: ${d.plan}`,
    problem: false,
    dialogue: false,
  },
  rewound: {
    kind: 'session',
    detail: (d) =>
      join(
        `to after ${d.after === 'seed' ? 'the seed' : d.after} (${d.to_sha.slice(0, 12)})`,
        `· ${d.tasks.length > 0 ? `pending again: ${d.tasks.join(', ')}` : 'no task reset'}`,
        `· old tip kept as ${d.backup_ref}`,
      ),
    progress: (d) => `rewound to after ${d.after === 'seed' ? 'the seed' : d.after}; pending again: ${d.tasks.join(', ') || 'none'}`,
    problem: false,
    dialogue: false,
  },
  context_reset: { kind: 'tasks', detail: (d) => `${d.task_id} fresh context`, progress: (d) => `▶ ${d.task_id}`, problem: false, dialogue: true },
  memory_load: { kind: 'tasks', detail: (d) => `${d.task_id} ${d.user_prompt_chars} prompt chars`, progress: null, problem: false, dialogue: false },
  prompt_assembled: {
    kind: 'model',
    detail: (d) => join(where(d), `${roleWords(d.role)} prompt, ${d.chars} chars`, d.truncated && '(truncated)'),
    head: (d) => join(`${roleWords(d.role)} prompt, ${formatCount(d.chars)} characters`, d.truncated && '(truncated)'),
    progress: null,
    problem: false,
    dialogue: false,
  },
  model_call: {
    kind: 'model',
    detail: (d) =>
      join(
        where(d),
        d.role !== d.phase && d.role, // "evaluator" once, not twice
        d.model,
        tokens(d),
        d.health !== undefined && d.health !== 'ok' && `health ${d.health}`,
      ),
    head: (d) =>
      `${d.model ?? 'model'} · ${formatCount(d.prompt_tokens)} in / ${formatCount(d.eval_tokens)} out${d.cost_usd === null || d.cost_usd === undefined ? '' : ` · ${formatUsd(d.cost_usd)}`}`,
    progress: null,
    problem: (d) => d.health !== undefined && d.health !== 'ok',
    dialogue: (d) => d.role === 'evaluator' || d.phase === 'evaluator',
  },
  model_retry: {
    kind: 'model',
    detail: (d) => join(where(d), retryLine(d)),
    progress: (d) => `  ${d.role} ${retryLine(d)}`,
    problem: true,
    dialogue: false,
  },
  context_elided: {
    kind: 'model',
    detail: (d) =>
      join(where(d), `dropped ${plural(d.dropped_messages, 'old tool output')} (${d.dropped_chars} chars) to fit the ${d.window_tokens}-token window`),
    progress: null,
    problem: false,
    dialogue: false,
  },
  provider_notice: {
    kind: 'model',
    detail: (d) => join(where(d), d.role !== d.phase && roleWords(d.role), d.message),
    head: (d) => d.message,
    progress: null,
    problem: true,
    dialogue: false,
  },
  empty_model_response: {
    kind: 'model',
    detail: (d) => join(where(d), `empty reply (${d.streak} in a row)`),
    progress: null,
    problem: true,
    dialogue: false,
  },
  tool_call: {
    kind: 'tools',
    detail: (d) => join(where(d), d.tool, compactArgs(d.args)),
    head: (d) => d.tool,
    progress: (d) => (d.phase ? null : `  ${d.task_id ?? ''} iter ${d.iter ?? '?'} · ${d.tool}`),
    problem: false,
    dialogue: (d) => d.tool === SUBMIT_CASE,
  },
  hook_run: {
    kind: 'tools',
    detail: (d) => join(where(d), d.tool, `${d.hook} ${d.outcome}`, d.reason && `: ${d.reason}`),
    head: (d) => `${d.tool} · ${d.hook} ${d.outcome}`,
    progress: null,
    problem: (d) => d.outcome === 'block',
    dialogue: false,
  },
  tool_result: {
    kind: 'tools',
    detail: (d) => join(where(d), d.tool, `→ ${d.result_preview}`),
    head: (d) => `${d.tool} →`,
    progress: null,
    problem: false,
    dialogue: (d) => d.tool === SUBMIT_CASE,
  },
  pre_tool_block: {
    kind: 'tools',
    detail: (d) => join(where(d), d.tool, `blocked: ${d.result_preview}`),
    head: (d) => `${d.tool} →`,
    progress: (d) => `  ${d.task_id} blocked ${d.tool}: ${d.result_preview.split('\n')[0]}`,
    problem: true,
    dialogue: false,
  },
  case_parse_error: { kind: 'verdicts', detail: (d) => join(where(d), d.error), progress: null, problem: true, dialogue: true },
  mutation_probe_started: {
    kind: 'checks',
    detail: (d) => `${d.task_id}: checking its tests against small changes to its code`,
    progress: null,
    problem: false,
    dialogue: false,
  },
  mutation_probe_planned: {
    kind: 'checks',
    detail: (d) => `${d.task_id}: ${d.mutants} small ${d.mutants === 1 ? 'change' : 'changes'} to its code to try against its tests`,
    progress: null,
    problem: false,
    dialogue: false,
  },
  mutation_probe: {
    kind: 'checks',
    detail: (d) =>
      join(
        d.task_id,
        d.status === 'off' ? 'mutation probe off' : `${d.killed} mutants killed, ${d.survived} survived`,
        ...d.survivors.slice(0, 3).map((s) => `${s.file}:${s.line} ${s.description}`),
        d.note ?? '',
      ),
    head: (d) => (d.status === 'off' ? 'mutation probe off' : `mutation probe: ${d.killed} killed, ${d.survived} survived`),
    progress: (d) => (d.status === 'off' ? null : `  ${d.task_id} mutation probe: ${d.killed} killed, ${d.survived} survived`),
    problem: (d) => d.survived > 0,
    dialogue: false,
  },
  coverage_gap: {
    kind: 'verdicts',
    detail: (d) => join(where(d), `case leaves ${d.missing.length} of ${d.criteria} criteria uncovered: ${d.missing.join('; ')}`),
    head: (d) => `coverage gap: ${d.missing.length} of ${d.criteria} criteria uncovered`,
    progress: (d) => `  ${d.task_id} case sent back: ${d.missing.length} of ${d.criteria} criteria uncovered`,
    problem: true,
    dialogue: true,
  },
  revision_unchanged: {
    kind: 'verdicts',
    detail: (d) => join(where(d), `revision ${d.revision}'s case changes nothing since the task was sent back`),
    head: (d) => `revision ${d.revision} changed nothing`,
    progress: (d) => `  ${d.task_id} case sent back: revision ${d.revision} changes nothing the reviewer asked for`,
    problem: true,
    dialogue: true,
  },
  validator_run: {
    kind: 'checks',
    detail: (d) => join(d.task_id, d.passed ? 'passed' : `FAILED ${failedChecks(d)}`),
    head: (d) => (d.passed ? 'checks passed' : `checks FAILED: ${failedChecks(d)}`),
    progress: (d) => `  ${d.task_id} checks ${d.passed ? 'passed' : `FAILED (${failedChecks(d)})`}`,
    problem: (d) => !d.passed,
    dialogue: true,
  },
  evaluator_parse_error: {
    kind: 'verdicts',
    detail: (d) => join(d.task_id, `attempt ${d.attempt}:`, d.error),
    progress: null,
    problem: true,
    dialogue: true,
  },
  evaluator_verdict: {
    kind: 'verdicts',
    detail: (d) =>
      join(
        d.task_id,
        d.verdict,
        d.rejection_category && `· ${d.rejection_category}`,
        d.parse_failed === true && '(parse failed)',
        d.concern !== '' && `— ${d.concern}`,
      ),
    head: (d) => (d.verdict === 'accept' ? 'accepted' : `rejected${d.rejection_category ? ` · ${d.rejection_category.replace(/_/g, ' ')}` : ''}`),
    progress: (d) => `  ${d.task_id} evaluator: ${d.verdict}${d.rejection_category ? ` · ${d.rejection_category}` : ''} — ${d.concern}`,
    problem: (d) => d.verdict === 'reject',
    dialogue: true,
  },
  ledger_appended: { kind: 'verdicts', detail: (d) => join(d.task_id, d.verdict_summary), progress: null, problem: false, dialogue: false },
  task_done: { kind: 'tasks', detail: (d) => join(d.task_id, d.summary), progress: (d) => `✓ ${d.task_id} done`, problem: false, dialogue: true },
  task_failed: {
    kind: 'tasks',
    detail: (d) => join(d.task_id, d.reason, d.detail && `— ${d.detail}`),
    progress: (d) => `✗ ${d.task_id} failed (${d.reason})`,
    problem: true,
    dialogue: true,
  },
  proposed_learnings: {
    kind: 'tasks',
    detail: (d) => join(d.task_id, d.emitted ? `learning: ${d.entry ?? ''}` : `no learning (${LEARNING_SKIPS[d.reason ?? 'no_proposal']})`),
    progress: (d) => (d.emitted ? `  ${d.task_id} proposed a learning: ${d.entry ?? ''}` : null),
    problem: (d) => d.reason === 'error',
    dialogue: false,
  },
  commit: {
    kind: 'tasks',
    detail: (d) => join(d.task_id, d.sha?.slice(0, 12) ?? '(nothing to commit)'),
    progress: (d) => `  ${d.task_id} committed ${d.sha?.slice(0, 12) ?? '(nothing to commit)'}`,
    problem: false,
    dialogue: false,
  },
  steering_note: {
    kind: 'guidance',
    detail: (d) => join(`“${d.text}”`, d.consumed_by && `read by ${d.consumed_by.task_id} iter ${d.consumed_by.iter}`),
    progress: null,
    problem: false,
    dialogue: true,
  },
  merge: { kind: 'session', detail: (d) => `${d.strategy} into ${d.into} at ${d.sha.slice(0, 12)}`, progress: null, problem: false, dialogue: false },
  push: { kind: 'session', detail: (d) => `${d.branch} to ${d.remote}`, progress: null, problem: false, dialogue: false },
  pr: { kind: 'session', detail: (d) => `${d.url} (${d.via})`, progress: null, problem: false, dialogue: false },
  cleanse: {
    kind: 'session',
    detail: (d) => join(d.removed_worktree && 'worktree removed', d.removed_branch && 'branch removed'),
    progress: null,
    problem: false,
    dialogue: false,
  },
  env_prepared: {
    kind: 'session',
    detail: (d) =>
      join(
        ENV_REASONS[d.reason],
        d.node_modules_from && `node_modules: ${plural(d.linked, 'entry', 'entries')} linked from ${d.node_modules_from}`,
        d.venv && `python: ${d.venv}`,
        d.python_path.length > 0 && `PYTHONPATH first: ${d.python_path.join(', ')}`,
      ),
    progress: null,
    problem: false,
    dialogue: false,
  },
  setup_started: {
    kind: 'session',
    detail: (d) =>
      join(
        d.step === 'install' ? 'offline install' : `setup (${d.origin === 'committed' ? 'committed' : 'from seed review'})`,
        ENV_REASONS[d.reason],
        `$ ${oneLine(d.command, 120)}`,
        d.network ? 'with network' : 'no network',
      ),
    progress: null,
    problem: false,
    dialogue: false,
  },
  setup_output: { kind: 'session', detail: (d) => oneLine(d.text), progress: null, problem: false, dialogue: false },
  setup_finished: {
    kind: 'session',
    detail: (d) =>
      join(
        d.step,
        d.passed ? 'done' : d.timed_out ? 'timed out' : `FAILED (exit ${d.exit_code ?? 'none'})`,
        `in ${(d.duration_ms / 1000).toFixed(1)} s`,
        d.problem && `— ${oneLine(d.problem)}`,
      ),
    progress: null,
    problem: (d) => !d.passed,
    dialogue: false,
  },
  stop: {
    kind: 'session',
    detail: (d) => join(d.phase, STOP_WORDS[d.reason], d.error && `— ${d.error}`),
    // A run that finished is not "stopped": it says so, and any other stop in words.
    progress: (d) => (d.reason === 'all_done' ? 'finished: all tasks done' : `stopped: ${STOP_WORDS[d.reason]}${d.error ? ` — ${d.error}` : ''}`),
    problem: (d) => d.reason !== 'all_done',
    dialogue: false,
  },
};

/**
 * The entry for an event's type. TypeScript cannot see that `EVENT_TEXT[event.type]` and
 * `event.data` belong to the same type (the union is not correlated), so this one cast states it;
 * the table itself is checked entry by entry.
 */
function entry(event: TilthEvent): EventText<EventType> {
  return EVENT_TEXT[event.type] as EventText<EventType>;
}

function decide(rule: boolean | ((data: EventData<EventType>) => boolean), event: TilthEvent): boolean {
  return typeof rule === 'boolean' ? rule : rule(event.data);
}

/** What an event says, after its seq, time and type. */
export function describeEvent(event: TilthEvent): string {
  return oneLine(entry(event).detail(event.data));
}

/** The dashboard card's head summary: the one-liner, minus what the head already shows. */
export function headLine(event: TilthEvent): string {
  const { head } = entry(event);
  return head === undefined ? describeEvent(event) : head(event.data);
}

/** The whole line, as in a log file: `#seq time type detail`. */
export function eventLine(event: TilthEvent): string {
  return join(`#${event.seq}`, formatTime(event.ts), event.type, describeEvent(event));
}

/** One terminal line for the events a person watching a run cares about; null for the rest. */
export function progressLine(event: TilthEvent): string | null {
  const { progress } = entry(event);
  return progress === null ? null : progress(event.data);
}

export function eventKind(event: TilthEvent): EventKind {
  if ('phase' in event.data && event.data.phase === 'interview') return 'interview';
  return EVENT_TEXT[event.type].kind;
}

/** Something went wrong, or was refused. */
export function isProblem(event: TilthEvent): boolean {
  return decide(entry(event).problem, event);
}

/**
 * The exchange between worker and evaluator: each case the worker submits, the checks run on it,
 * the evaluator's call and verdict, and the task boundaries and guidance around them.
 */
export function isDialogue(event: TilthEvent): boolean {
  return decide(entry(event).dialogue, event);
}
