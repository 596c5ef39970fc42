/**
 * The seeding interview as a background job (SPEC §5, reference §6.1).
 *
 * The conversation lives in `interview.json`, rewritten atomically after every model turn. The
 * job never waits for a person: when the model calls `ask_user`, the job records the pending
 * question, emits `question_asked` and ends. Answering (see `answerQuestion`) appends the answer
 * to the conversation on disk and starts the job again, which picks up from the file. So a server
 * restart while a question waits loses nothing and repeats no model call, and a crash during a
 * model call repeats only that call (the turn was not yet saved).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { z } from 'zod';
import type { Checkpoint, InterviewState } from '../../shared/files.ts';
import { testFileRule } from '../../shared/seed.ts';
import { ConflictError, ValidationError } from '../errors/app-error.ts';
import type { JobContext } from '../jobs/job-runner.ts';
import { ConfinedRoot } from '../tools/read-tools.ts';
import type { ReadToolContext } from '../tools/tool-schema.ts';
import { shownArgs } from '../agent/tools.ts';
import { prepareSessionEnvironment } from '../env/session-env.ts';
import { removeStaleSessionLocks } from '../git/repo.ts';
import { addCallToUsage, modelCallFields } from '../llm/call-record.ts';
import type { ModelClient } from '../llm/client.ts';
import { ProviderFailureError } from '../llm/errors.ts';
import { Agent, answerCall, ContextOverflowError, type AgentCall } from '../agent/runtime.ts';
import type { Price } from '../../shared/price.ts';
import type { HistoryMessage } from '../agent/history.ts';
import { retryFields } from '../agent/events.ts';
import { loadPrompt } from '../agent/prompts.ts';
import type { SessionHandle } from '../store/session-handle.ts';
import { describePresetForPrompt } from '../env/presets.ts';
import { existingTaskIds, finishSeed, tryWriteSeed } from '../seed/write-seed.ts';
import { type ASK_USER_TOOL, interviewTools } from '../tools/interview-tools.ts';

export const MAX_INTERVIEW_ITERATIONS = 60;
const PREVIEW_CHARS = 500;
const SEED_PREVIEW_CHARS = 200;

export interface InterviewDeps {
  llm: ModelClient;
  /** Backoff between empty replies; injectable so tests do not wait. */
  emptyBackoffMs?: (attempt: number) => number;
  /** The prep role's configured context window (else discovered) and prices, from the settings. */
  model?: { contextWindow: number | null; price: Price | null };
}

function spanId(): string {
  return randomBytes(8).toString('hex');
}

function firstUserMessage(checkpoint: Checkpoint): string {
  return [
    '## Source repository',
    checkpoint.source,
    '',
    '## Feature brief',
    checkpoint.brief.trim(),
    '',
    'Begin with step 1 of the workflow. One question per `ask_user` call.',
  ].join('\n');
}

function newInterview(checkpoint: Checkpoint, existingIds: string[]): InterviewState {
  const preset = checkpoint.checks_preset ?? 'custom';
  const system = loadPrompt('interview', {
    checks_preset: describePresetForPrompt(preset, checkpoint.custom_checks ?? undefined, checkpoint.project_env),
    test_file_pattern: testFileRule(preset, checkpoint.project_env).describe,
    existing_task_ids: existingIds.length > 0 ? existingIds.join(', ') : 'none',
  });
  return {
    trace_id: randomUUID().replaceAll('-', ''),
    started_at: new Date().toISOString(),
    iterations: 0,
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: firstUserMessage(checkpoint) },
    ],
    pending: null,
    history: [],
  };
}

class InterviewFailure extends Error {}

/** The worktree could not get the project's environment before the interview (session-env.ts). */
class SetupFailure extends InterviewFailure {}

/**
 * Records the user's answer to the pending question, on disk, before anything else happens.
 * Only the pending question can be answered; anything else is a 409.
 */
export function answerQuestion(session: SessionHandle, questionId: string, answer: string): void {
  const checkpoint = session.checkpoint.read();
  const state = session.interview.read();
  const pending = state?.pending;
  if (checkpoint.status !== 'interviewing' || !state || !pending) {
    throw new ConflictError('question_not_pending', 'No question is waiting for an answer in this session.');
  }
  if (pending.question_id !== questionId) {
    throw new ConflictError('question_not_pending', `Question ${questionId} is not the one waiting; the pending question is ${pending.question_id}.`);
  }
  const text = answer.trim();
  if (text === '') throw new ValidationError('answer must not be empty');
  const messages = state.messages as HistoryMessage[];
  answerCall(messages, { id: pending.tool_call_id, name: 'ask_user', fromText: pending.via_text === true }, text);
  for (const skipped of pending.skipped_tool_call_ids) answerCall(messages, { id: skipped, name: 'skipped', fromText: false }, NOT_RUN_AFTER_ASK);
  state.history.push({ question_id: pending.question_id, text: pending.text, ...(pending.options ? { options: pending.options } : {}), answer: text });
  state.pending = null;
  session.interview.write(state);
  session.emit({ type: 'question_answered', data: { question_id: questionId, answer: text } });
}

/** The job. Runs model turns until a question is asked, the seed is written, or it fails. */
export async function runInterview(ctx: JobContext, deps: InterviewDeps): Promise<void> {
  const { session, signal } = ctx;
  try {
    const checkpoint = session.checkpoint.read();
    if (checkpoint.status !== 'interviewing') return;
    if (!fs.existsSync(checkpoint.worktree)) throw new InterviewFailure(`the session's worktree ${checkpoint.worktree} is missing`);
    if (!fs.existsSync(checkpoint.source)) throw new InterviewFailure(`the source repository ${checkpoint.source} is gone`);
    if (session.hasSeed()) {
      // The seed was written but the server stopped before the session was marked prepared:
      // finish that, rather than ask the model for a second seed. A kill during the seed commit
      // leaves git's lock behind; no git of ours runs on this session now (one job at a time).
      await removeStaleSessionLocks(checkpoint.source, checkpoint.worktree, checkpoint.branch);
      await finishSeed(ctx, checkpoint, session.interview.read()?.trace_id ?? randomUUID().replaceAll('-', ''));
      return;
    }
    const preset = checkpoint.checks_preset ?? 'custom';
    let state = session.interview.read();
    if (!state) {
      state = newInterview(checkpoint, existingTaskIds(checkpoint.worktree, preset, checkpoint.project_env));
      session.interview.write(state);
      ctx.emit({ type: 'session_start', data: { source: checkpoint.source, phase: 'prep-feature', worktree: checkpoint.worktree, branch: checkpoint.branch } });
    }
    if (state.pending) return; // waiting for the user; answering starts us again
    // Prep's last step before the interview reads anything: the worktree gets the project's
    // environment, so the seed's contract check and the run find it ready. Cheap once done.
    const git = checkpoint.git_dir && checkpoint.git_common_dir ? { gitDir: checkpoint.git_dir, commonDir: checkpoint.git_common_dir } : null;
    const env = await prepareSessionEnvironment({ session, signal, emit: (e) => ctx.emit(e) }, { reason: 'prep', git });
    if (!env.ok) throw new SetupFailure(env.problem);
    if (signal.aborted) return;
    await interviewLoop(ctx, deps, checkpoint, state);
  } catch (err) {
    if (signal.aborted) return; // stopped: the file holds everything up to the last whole turn
    const reason =
      err instanceof InterviewFailure || err instanceof ContextOverflowError
        ? err.message
        : err instanceof ProviderFailureError
          ? `the interviewer model failed: ${err.message}`
          : `the interview crashed: ${(err as Error).message}`;
    ctx.logger.warn(`interview for ${session.id} failed: ${reason}`);
    const stop =
      err instanceof ProviderFailureError
        ? 'provider_failure'
        : err instanceof ContextOverflowError
          ? 'context_overflow'
          : err instanceof SetupFailure
            ? 'setup_failed'
            : 'error';
    session.checkpoint.setStatus('failed', { reason: stop, phase: 'interview', error: reason });
  }
}

const NOT_RUN_AFTER_ASK = 'Not run: the turn paused at ask_user. Call it again if you still need it.';

async function interviewLoop(ctx: JobContext, deps: InterviewDeps, checkpoint: Checkpoint, state: InterviewState): Promise<void> {
  const { session, signal } = ctx;
  const root = new ConfinedRoot(checkpoint.source);
  const preset = checkpoint.checks_preset ?? 'custom';
  const base = { phase: 'interview' as const, trace_id: state.trace_id };
  let iterForEvents = state.iterations + 1;
  const window = await deps.llm.contextWindow('prep', deps.model?.contextWindow ?? null, { signal });
  const agent = new Agent({
    llm: deps.llm,
    role: 'prep',
    messages: state.messages as HistoryMessage[],
    tools: interviewTools(testFileRule(preset, checkpoint.project_env).describe),
    signal,
    ...(deps.emptyBackoffMs ? { emptyBackoffMs: deps.emptyBackoffMs } : {}),
    contextWindow: window.tokens,
    ...(window.assumed ? { windowAssumed: true } : {}),
    price: deps.model?.price ?? null,
    hooks: {
      onModelCall: (result, info) => {
        const usage = session.checkpoint.update((cp) => ({ interview_usage: addCallToUsage(cp.interview_usage, result) })).interview_usage;
        ctx.emit({ type: 'model_call', data: { ...base, span_id: spanId(), iter: iterForEvents, role: 'prep', ...modelCallFields(result, usage), ...info } });
      },
      onRetry: (notice) => ctx.emit({ type: 'model_retry', data: { ...base, iter: iterForEvents, ...retryFields(notice) } }),
      onNotice: (kind, message) =>
        ctx.emit({ type: 'provider_notice', data: { phase: 'interview', role: 'prep', model: deps.llm.describeEndpoint('prep')?.model ?? '', kind, message } }),
    },
  });
  while (state.iterations < MAX_INTERVIEW_ITERATIONS) {
    signal.throwIfAborted();
    iterForEvents = state.iterations + 1;
    const turn = await agent.turn();
    if (turn.kind === 'empty') throw new InterviewFailure(turn.detail);
    state.iterations++;
    if (turn.calls.length === 0) {
      const said = turn.text.trim().slice(0, 300);
      throw new InterviewFailure(`the interviewer stopped without writing the seed${said ? `. Its last message: "${said}"` : ''}`);
    }
    const outcome = await handleToolCalls(agent, turn.calls, { ctx, state, root, checkpoint, base, span: spanId() });
    session.interview.write(state);
    if (outcome === 'asked' || outcome === 'seeded') return;
  }
  throw new InterviewFailure(`the interview hit its cap of ${MAX_INTERVIEW_ITERATIONS} model turns without writing the seed`);
}

interface TurnContext {
  ctx: JobContext;
  state: InterviewState;
  root: ConfinedRoot;
  checkpoint: Checkpoint;
  base: { phase: 'interview'; trace_id: string };
  span: string;
}

type Outcome = 'continue' | 'asked' | 'seeded';

async function handleToolCalls(agent: Agent<ReadToolContext>, calls: AgentCall[], turn: TurnContext): Promise<Outcome> {
  const { ctx, state } = turn;
  const toolCall = (tool: string, args: unknown, argsChars?: number) =>
    ctx.emit({ type: 'tool_call', data: { ...turn.base, span_id: turn.span, tool, args, ...(argsChars !== undefined ? { args_chars: argsChars } : {}) } });
  const toolResult = (tool: string, content: string) =>
    ctx.emit({
      type: 'tool_result',
      data: { ...turn.base, span_id: turn.span, tool, result_preview: content.slice(0, PREVIEW_CHARS), result_chars: content.length },
    });
  const reply = (call: AgentCall, content: string) => {
    agent.answer(call, content);
    toolResult(call.name, content);
  };

  let outcome: Outcome = 'continue';
  // The read tools run themselves; ask_user and write_seed end what the interview is doing, so
  // they are read and answered here, in the order the model sent them.
  await agent.dispatch(
    calls,
    { root: turn.root },
    {
      called: (call, args, fit) => toolCall(call.name, args, fit ? undefined : call.rawArgs.length),
      answered: (call, answer) => toolResult(call.name, answer.output),
    },
    async (call, i) => {
      const tool = call.name;
      const checked = agent.check<Record<string, unknown>>(call);
      if (!checked.ok) {
        toolCall(tool, shownArgs(call.rawArgs), call.rawArgs.length);
        reply(call, tool === 'write_seed' ? `${checked.message} Keep test bodies short (one assert per criterion).` : checked.message);
        return false;
      }
      const args = checked.args;
      toolCall(tool, tool === 'write_seed' ? redactSeed(args) : args);

      if (tool === 'ask_user') {
        const { question, options } = args as z.infer<typeof ASK_USER_TOOL.args>;
        const opts = options ?? undefined;
        const questionId = `q${state.history.length + 1}-${randomBytes(3).toString('hex')}`;
        const later = calls.slice(i + 1);
        // Calls written as text are answered "not run" now, in the same results message the answer joins.
        for (const skipped of later) if (skipped.fromText) agent.answer(skipped, NOT_RUN_AFTER_ASK);
        state.pending = {
          question_id: questionId,
          tool_call_id: call.id,
          text: question,
          ...(opts && opts.length > 0 ? { options: opts } : {}),
          asked_at: new Date().toISOString(),
          skipped_tool_call_ids: later.filter((c) => !c.fromText).map((c) => c.id),
          ...(call.fromText ? { via_text: true } : {}),
        };
        ctx.session.interview.write(state); // on disk before anyone is told
        ctx.emit({ type: 'question_asked', data: { question_id: questionId, text: question, ...(opts && opts.length > 0 ? { options: opts } : {}) } });
        outcome = 'asked';
        return true;
      }

      const written = await tryWriteSeed(args, turn);
      if (written === null) {
        for (const later of calls.slice(i + 1)) agent.answer(later, 'Not run: write_seed ended the interview.');
        reply(call, 'Seed written. The interview is over; call no more tools.');
        outcome = 'seeded';
        return true;
      }
      reply(call, written);
      return false;
    },
  );
  return outcome;
}

/** write_seed args for the event log: test files cut to a preview, so the log stays small. */
function redactSeed(args: Record<string, unknown>): Record<string, unknown> {
  const files = args.test_files;
  if (typeof files !== 'object' || files === null) return args;
  const short: Record<string, unknown> = {};
  for (const [name, content] of Object.entries(files)) {
    short[name] =
      typeof content === 'string' && content.length > SEED_PREVIEW_CHARS
        ? `${content.slice(0, SEED_PREVIEW_CHARS)}… [+${content.length - SEED_PREVIEW_CHARS} chars]`
        : content;
  }
  return { ...args, test_files: short };
}
