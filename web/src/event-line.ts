/**
 * Every event as one line of plain text: `#123 12:01:02 tool_call T-001 iter 3 read_file
 * {"path":"src/x.js"}`. The event list shows the parts in columns; the wording lives here, pure,
 * so it is tested without a browser. Model-written text (tool arguments, previews, concerns) is
 * squeezed onto one line and clipped, so one event is always one row.
 */
import type { EventData, TilthEvent } from '../../shared/events.ts';
import { formatTime, formatUsd } from '../../shared/format.ts';

const MAX_DETAIL_CHARS = 240;
const MAX_STRING_ARG_CHARS = 60;

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

/** "T-001 iter 3", "evaluator T-001", "interview": where in the session an event happened. */
function where(data: { task_id?: string | undefined; iter?: number | undefined; phase?: string | undefined }): string {
  return [data.phase, data.task_id, data.iter !== undefined ? `iter ${data.iter}` : undefined].filter((p) => p !== undefined && p !== '').join(' ');
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

/**
 * "provider busy, retrying in 8 s — attempt 2 of 6: HTTP 429 …". A live view passes the wait
 * still left (`waitMs`); once it has run out the next attempt is under way: "retrying now".
 */
export function retryLine(data: EventData<'model_retry'>, waitMs: number = data.wait_ms): string {
  const when = waitMs <= 0 ? 'now' : `in ${Math.max(1, Math.round(waitMs / 1000))} s`;
  const busy = data.status === 429 ? 'provider busy' : 'model call failed';
  return `${busy}, retrying ${when} — attempt ${data.attempt + 1} of ${data.max_attempts}: ${data.reason}`;
}

/** "at prep", "worktree re-created", …: why the worktree's environment was prepared. */
function envReason(reason: EventData<'env_prepared'>['reason']): string {
  switch (reason) {
    case 'prep':
      return 'at prep:';
    case 'resume':
      return 'before the run:';
    case 'recreated':
      return 'worktree re-created:';
    case 'setup_changed':
      return 'setup command changed:';
    case 'merge_preview':
      return 'merge preview:';
  }
}

/** What an event says, after its seq, time and type. */
export function describeEvent(event: TilthEvent): string {
  return oneLine(detail(event));
}

function detail(event: TilthEvent): string {
  switch (event.type) {
    case 'log_opened':
      return `log version ${event.data.log_version}`;
    case 'session_start': {
      const { caps, models, sandbox } = event.data;
      return join(
        event.data.phase,
        models && `worker ${models.worker}, evaluator ${models.evaluator}`,
        caps && `· caps: ${caps.max_iterations_per_task} iterations/task, $${caps.max_dollars}, ${caps.max_wall_clock_minutes} min`,
        sandbox &&
          (sandbox.available ? `· shell sandboxed${sandbox.network ? ' (network allowed)' : ', no network'}` : `· shell NOT sandboxed: ${sandbox.detail}`),
      );
    }
    case 'status_changed':
      return join(`${event.data.from ?? '(new)'} → ${event.data.to}`, event.data.reason && `(${event.data.reason})`);
    case 'session_prepared':
      return `${plural(event.data.prd_entries, 'task')}, ${plural(event.data.test_files, 'test file')}`;
    case 'seed_committed':
      return `${event.data.sha} on ${event.data.branch}`;
    case 'seed_written':
      return join(event.data.task_ids.join(', '), `· checks ${event.data.checks_preset}`);
    case 'seed_edited':
      return event.data.changed.join(', ');
    case 'question_asked':
      return event.data.text;
    case 'question_answered':
      return event.data.answer;
    case 'session_resume':
      return join(
        event.data.last_stop !== null && `after ${event.data.last_stop}`,
        event.data.retried.length > 0 && `· retrying ${event.data.retried.join(', ')}`,
        `· pending ${event.data.pending.length > 0 ? event.data.pending.join(', ') : 'none'}`,
      );
    case 'context_reset':
      return `${event.data.task_id} fresh context`;
    case 'memory_load':
      return `${event.data.task_id} ${event.data.user_prompt_chars} prompt chars`;
    case 'prompt_assembled':
      return join(where(event.data), `${event.data.role} prompt, ${event.data.chars} chars`, event.data.truncated && '(truncated)');
    case 'model_call':
      return join(
        where(event.data),
        event.data.role !== event.data.phase && event.data.role, // "evaluator" once, not twice
        event.data.model,
        tokens(event.data),
        event.data.health !== undefined && event.data.health !== 'ok' && `health ${event.data.health}`,
      );
    case 'empty_model_response':
      return join(where(event.data), `empty reply (${event.data.streak} in a row)`);
    case 'model_retry':
      return join(where(event.data), retryLine(event.data));
    case 'context_elided':
      return join(
        where(event.data),
        `dropped ${plural(event.data.dropped_messages, 'old tool output')} (${event.data.dropped_chars} chars) to fit the ${event.data.window_tokens}-token window`,
      );
    case 'provider_notice':
      return join(where(event.data), event.data.role, event.data.message);
    case 'tool_call':
      return join(where(event.data), event.data.tool, compactArgs(event.data.args));
    case 'hook_run':
      return join(where(event.data), event.data.tool, `${event.data.hook} ${event.data.outcome}`, event.data.reason && `: ${event.data.reason}`);
    case 'tool_result':
      return join(where(event.data), event.data.tool, `→ ${event.data.result_preview}`);
    case 'pre_tool_block':
      return join(where(event.data), event.data.tool, `blocked: ${event.data.result_preview}`);
    case 'case_parse_error':
      return join(where(event.data), event.data.error);
    case 'validator_run': {
      const failed = event.data.results.filter((r) => !r.passed).map((r) => r.name);
      return join(event.data.task_id, event.data.passed ? 'passed' : `FAILED ${failed.join(', ')}`);
    }
    case 'evaluator_parse_error':
      return join(event.data.task_id, `attempt ${event.data.attempt}:`, event.data.error);
    case 'evaluator_verdict':
      return join(
        event.data.task_id,
        event.data.verdict,
        event.data.rejection_category && `· ${event.data.rejection_category}`,
        event.data.parse_failed === true && '(parse failed)',
        event.data.concern !== '' && `— ${event.data.concern}`,
      );
    case 'ledger_appended':
      return join(event.data.task_id, event.data.verdict_summary);
    case 'task_done':
      return join(event.data.task_id, event.data.summary);
    case 'task_failed':
      return join(event.data.task_id, event.data.reason, event.data.detail && `— ${event.data.detail}`);
    case 'proposed_learnings':
      return join(event.data.task_id, event.data.emitted ? `learning: ${event.data.entry ?? ''}` : `no learning (${event.data.reason ?? 'none'})`);
    case 'commit':
      return join(event.data.task_id, event.data.sha?.slice(0, 12) ?? '(nothing to commit)');
    case 'steering_note':
      return join(`“${event.data.text}”`, event.data.consumed_by && `read by ${event.data.consumed_by.task_id} iter ${event.data.consumed_by.iter}`);
    case 'merge':
      return `${event.data.strategy} into ${event.data.into} at ${event.data.sha.slice(0, 12)}`;
    case 'push':
      return `${event.data.branch} to ${event.data.remote}`;
    case 'pr':
      return `${event.data.url} (${event.data.via})`;
    case 'cleanse':
      return join(event.data.removed_worktree && 'worktree removed', event.data.removed_branch && 'branch removed');
    case 'env_prepared':
      return join(
        envReason(event.data.reason),
        event.data.node_modules_from && `node_modules: ${plural(event.data.linked, 'entry', 'entries')} linked from ${event.data.node_modules_from}`,
        event.data.venv && `python: ${event.data.venv}`,
        event.data.python_path.length > 0 && `PYTHONPATH first: ${event.data.python_path.join(', ')}`,
      );
    case 'setup_started':
      return join(
        event.data.step === 'install' ? 'offline install' : `setup (${event.data.origin === 'committed' ? 'committed' : 'from seed review'})`,
        envReason(event.data.reason),
        `$ ${oneLine(event.data.command, 120)}`,
        event.data.network ? 'with network' : 'no network',
      );
    case 'setup_output':
      return oneLine(event.data.text);
    case 'setup_finished':
      return join(
        event.data.step,
        event.data.passed ? 'done' : event.data.timed_out ? 'timed out' : `FAILED (exit ${event.data.exit_code ?? 'none'})`,
        `in ${(event.data.duration_ms / 1000).toFixed(1)} s`,
        event.data.problem && `— ${oneLine(event.data.problem)}`,
      );
    case 'stop':
      return join(event.data.phase, event.data.reason, event.data.error && `— ${event.data.error}`);
    default: {
      // A new event type gets its own wording above; until then it still shows as one line.
      const unknown: never = event;
      return compactArgs((unknown as { data: unknown }).data);
    }
  }
}

/** The whole line, as in a log file: `#seq time type detail`. */
export function eventLine(event: TilthEvent): string {
  return join(`#${event.seq}`, formatTime(event.ts), event.type, describeEvent(event));
}
