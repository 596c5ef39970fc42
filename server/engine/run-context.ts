/**
 * What one run carries between its tasks: the session's settings read once at start, the spend
 * ledger with the caps checked before every model call, and the summary accumulator fed by every
 * event the run emits.
 */
import { randomBytes } from 'node:crypto';
import type { EventInput, StopReason, TilthEvent } from '../../shared/events.ts';
import type { Caps, Checkpoint, CustomChecks, SeedMeta, Usage } from '../../shared/files.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';
import { addToSummary, type Summary } from '../../shared/summary.ts';
import type { JobContext } from '../jobs/job-runner.ts';
import { addCallToUsage, modelCallFields } from '../llm/call-record.ts';
import type { ChatResult, ModelClient } from '../llm/client.ts';
import type { WorktreeRef } from '../git/worktree-git.ts';
import type { AgentOptions, CallInfo, NoticeKind } from '../agent/runtime.ts';
import type { Price } from '../../shared/price.ts';
import type { Role as LlmRole } from '../llm/types.ts';
import type { UntrustedScope } from '../proc/untrusted.ts';
import type { SessionHandle } from '../store/session-handle.ts';
import { planOf, sessionScope } from '../env/session-env.ts';
import { shadowRuleFor } from '../proof/python-runner-modules.ts';
import type { ShadowRule } from '../proof/test-machinery.ts';

export interface RunDeps {
  llm: ModelClient;
  caps: Caps;
  /** Workspace files shown to the worker and evaluator (TILTH_CONTEXT_FILES). */
  contextFiles: string[];
  /** Backoff after an empty reply; injectable so tests do not wait (default 2 s × streak). */
  emptyBackoffMs?: (streak: number) => number;
  bashTimeoutMs?: number;
  checkTimeoutMs?: number;
  /** The mutation probe's budget per task (TILTH_MUTATION_SECONDS); 0 turns it off; default 60 s. */
  mutationBudgetMs?: number;
  /** Runs of each named case in the green proof (TILTH_PROOF_REPEATS); default 2. */
  proofRepeats?: number;
  now?: () => number;
  /** Per role: the configured context window in tokens (else discovered at run start). */
  contextWindows?: Partial<Record<LlmRole, number | null>>;
  /** Per role: prices per million tokens, for providers that report no cost. */
  prices?: Partial<Record<LlmRole, Price | null>>;
  /** Which process runs it, named in session_start (see runLocked). */
  runner?: string;
}

/** A session-level cap reached before a model call; the current task stays pending. */
export class CapReached extends Error {
  constructor(
    readonly reason: Extract<StopReason, 'dollar_cap' | 'token_cap' | 'wall_clock'>,
    message: string,
  ) {
    super(message);
  }
}

/** A dollar cap as the user wrote it: whole cents as `5.00`, anything finer in full (`0.125`, not `0.13`). */
function dollarsAsSet(usd: number): string {
  const cents = usd.toFixed(2);
  return Number(cents) === usd ? cents : String(usd);
}

export const spanId = (): string => randomBytes(8).toString('hex');
export const traceId = (): string => randomBytes(16).toString('hex');

export type Role = 'worker' | 'evaluator' | 'self_improve';
/** Where in a task an event belongs: the task's trace, the span of one iteration. */
export interface IterSpan {
  task_id: string;
  trace_id: string;
  span_id: string;
  iter: number;
}
/** Reference §3.5: how much of an assembled prompt its event keeps. */
export const PROMPT_ASSEMBLED_CHAR_CAP = 16_000;

export class RunContext {
  readonly startedAt: number;
  usage: Usage;

  constructor(
    readonly job: JobContext,
    readonly deps: RunDeps,
    readonly checkpoint: Checkpoint,
    readonly seedMeta: SeedMeta,
    readonly summary: Summary,
  ) {
    this.startedAt = this.now();
    this.usage = checkpoint.usage;
  }

  get id(): string {
    return this.job.sessionId;
  }
  get worktree(): string {
    return this.checkpoint.worktree;
  }
  get session(): SessionHandle {
    return this.job.session;
  }
  get signal(): AbortSignal {
    return this.job.signal;
  }
  /** Where this session's shell and checks run, in the session's sandbox (proc/untrusted.ts adds the rest of the policy). */
  get scope(): UntrustedScope {
    return sessionScope(this.session.sandbox, this.checkpoint, this.worktree, this.ref);
  }

  /** Set at run start (run.ts): the worktree with the git dirs recorded at prep. */
  ref!: WorktreeRef;
  get preset(): ChecksPreset {
    return this.seedMeta.checks_preset;
  }
  /** The environment the seed was written for; null for seeds from before it was recorded. */
  get projectEnv(): ProjectEnv | null {
    return this.seedMeta.project_env ?? null;
  }
  get customChecks(): CustomChecks | undefined {
    return this.checkpoint.custom_checks ?? this.seedMeta.custom_checks;
  }

  private shadow: Promise<ShadowRule | undefined> | undefined;
  /** A Python runner's modules the worktree may not stand in for (proof/python-runner-modules.ts), asked once per run. */
  shadowRule(): Promise<ShadowRule | undefined> {
    this.shadow ??= shadowRuleFor({
      preset: this.preset,
      env: this.projectEnv,
      plan: planOf(this.checkpoint),
      lockedTests: Object.keys(this.seedMeta.locked_tests),
      scope: this.scope,
      own: [this.checkpoint.source, this.worktree],
      signal: this.signal,
    });
    return this.shadow;
  }

  now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  emit(event: EventInput): TilthEvent {
    const stored = this.job.emit(event);
    addToSummary(this.summary, stored);
    return stored;
  }

  /** Session caps that stop the run before a model call: spend (dollars, then tokens). 0 = off. */
  checkSpend(): void {
    const { max_dollars, max_tokens } = this.deps.caps;
    if (max_dollars > 0 && this.usage.cost_usd >= max_dollars) {
      throw new CapReached('dollar_cap', `dollar cap reached: $${this.usage.cost_usd.toFixed(4)} of $${dollarsAsSet(max_dollars)} (TILTH_MAX_DOLLARS)`);
    }
    if (max_tokens > 0 && this.usage.total_tokens >= max_tokens) {
      throw new CapReached('token_cap', `token cap reached: ${this.usage.total_tokens} of ${max_tokens} tokens (TILTH_MAX_TOKENS)`);
    }
  }

  /** Between tasks: the wall clock (per run, as the Python edition) and spend. */
  checkSessionCaps(): void {
    const minutes = this.deps.caps.max_wall_clock_minutes;
    if (minutes > 0 && this.now() - this.startedAt >= minutes * 60_000) {
      throw new CapReached('wall_clock', `wall clock reached: ${minutes} minutes (TILTH_MAX_WALL_CLOCK_MINUTES)`);
    }
    this.checkSpend();
  }

  /**
   * Adds a call's spend to the run's and saves it, so the caps hold across a crash. The write is
   * atomic but not fsynced: a killed process leaves it in the page cache, and a model call per
   * fsync would slow every iteration.
   */
  account(result: ChatResult): Usage {
    this.usage = addCallToUsage(this.usage, result);
    const usage = this.usage;
    this.session.checkpoint.update(() => ({ usage }), { durable: false });
    return usage;
  }

  /** The `model_call` event for a run call, with the running totals and what the runtime knows. */
  modelCallEvent(
    result: ChatResult,
    role: Role,
    base: { task_id: string; trace_id: string; span_id: string; iter?: number; attempt?: number },
    info?: CallInfo,
  ): void {
    const usage = this.account(result);
    this.emit({
      type: 'model_call',
      data: {
        ...base,
        ...(role === 'worker' ? {} : { phase: role }),
        role: role === 'evaluator' ? 'evaluator' : 'worker',
        ...modelCallFields(result, usage),
        ...info,
      },
    });
  }

  /** The `prompt_assembled` event: the prompt a role was given, cut at the cap with its full length. */
  promptEvent(base: { task_id: string; trace_id: string; span_id: string }, role: Role, content: string): void {
    const truncated = content.length > PROMPT_ASSEMBLED_CHAR_CAP;
    this.emit({
      type: 'prompt_assembled',
      data: {
        ...base,
        iter: 0,
        role,
        content: truncated ? `${content.slice(0, PROMPT_ASSEMBLED_CHAR_CAP)}\n... [truncated]` : content,
        chars: content.length,
        truncated,
      },
    });
  }

  /** Notice kinds said in this run: each once per role. */
  readonly notices = new Set<string>();
  /** Context windows in effect for this run (configured or discovered at its start); null unknown. */
  readonly windows: Partial<Record<'worker' | 'evaluator', number | null>> = {};
  /** Roles whose window is a default Tilth assumes rather than one the server reported. */
  readonly windowsAssumed = new Set<'worker' | 'evaluator'>();
  /** Mutation probes of accepted tasks, running beside the next task (run.ts waits for them). */
  readonly probes: Promise<void>[] = [];

  /** What the agent runtime needs from the run for a role: window, price, the dollar cap, notices. */
  agentOptions(role: 'worker' | 'evaluator'): Pick<AgentOptions, 'contextWindow' | 'windowAssumed' | 'price' | 'dollarCapSet' | 'notices'> {
    return {
      contextWindow: this.windows[role] ?? null,
      windowAssumed: this.windowsAssumed.has(role),
      price: this.deps.prices?.[role] ?? null,
      dollarCapSet: this.deps.caps.max_dollars > 0,
      notices: this.notices,
    };
  }

  notice(role: 'worker' | 'evaluator', kind: NoticeKind, message: string, taskId: string): void {
    const model = this.deps.llm.describeEndpoint(role)?.model ?? '';
    this.emit({
      type: 'provider_notice',
      data: { task_id: taskId, ...(role === 'evaluator' ? { phase: 'evaluator' as const } : {}), role, model, kind, message },
    });
  }
}
