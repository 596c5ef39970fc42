/**
 * The evaluator (SPEC §6, reference §7.7): a fresh context per call that sees the task, its
 * criteria, the project context files, the task's last verdicts, the case, the acceptance test
 * as it is on disk, the full check output and the task's diff (new files included), and answers
 * with exactly one `submit_verdict`. Two attempts; then a fail-closed reject marked
 * `parse_failed`, so a confused evaluator can never accept by accident, and the task stops with
 * `evaluator_unreadable` (one sentence on what the model sent) instead of looping the worker.
 */
import { z } from 'zod';
import { RejectionCategorySchema } from '../../shared/events.ts';
import { VerdictSchema, type Case, type LedgerEntry, type PrdEntry, type SendBack, type Verdict } from '../../shared/files.ts';
import { Agent, type AgentOptions, type CallInfo, type NoticeKind } from '../agent/runtime.ts';
import { defineTool, type ArgsCheck } from '../agent/tools.ts';
import type { ChatResult, ModelClient, RetryNotice } from '../llm/client.ts';
import { reasoningText } from '../llm/reply.ts';
import { loadPrompt } from '../agent/prompts.ts';
import type { CheckResult } from '../proof/checks.ts';
import { formatSendBack } from './send-back-prompt.ts';
import { criteriaLines } from './worker-prompt.ts';

/** Reference §3.5 caps. */
export const JUDGE_DIFF_MAX_CHARS = 12_000;
export const SEED_TEST_INJECT_CAP = 6_000;
export const VALIDATOR_OUTPUT_INJECT_CAP = 4_000;
export const EVALUATOR_ATTEMPTS = 2;
/** Heads the evaluator's earlier verdicts on the task in its prompt. */
export const EVALUATOR_LEDGER_HEADER = '## Your earlier verdicts on this task (oldest first)';

export const SUBMIT_VERDICT_TOOL = defineTool(
  'submit_verdict',
  'Your verdict on this task: the only acceptable response.',
  z.strictObject({
    verdict: z.enum(['accept', 'reject']),
    rejection_category: RejectionCategorySchema.nullish(),
    concern: z.string().describe('1-3 sentences.'),
    evidence: z.array(z.string()).describe('Pointers: file:line, test names, output lines.'),
    next_step: z.string().nullish().describe('When rejecting: one concrete instruction for the worker. Null when accepting.'),
    criteria: z
      .array(z.strictObject({ n: z.number().int().positive(), met: z.boolean(), note: z.string() }))
      .nullish()
      .describe('Your word on each acceptance criterion, by its number: met or not, and why in one sentence.'),
  }),
  { read: readVerdict },
);

/**
 * One `submit_verdict` call's arguments as sent, read once, here: JSON, an object, nulls taken
 * for absent, the verdict's schema, and a reject's required fields.
 */
function readVerdict(raw: string): ArgsCheck<Verdict> {
  let args: unknown;
  try {
    args = JSON.parse(raw);
  } catch {
    return { ok: false, message: 'submit_verdict arguments are not valid JSON' };
  }
  if (typeof args !== 'object' || args === null) return { ok: false, message: 'submit_verdict arguments are not an object' };
  const cleaned = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null));
  const parsed = VerdictSchema.safeParse(cleaned);
  if (!parsed.success)
    return { ok: false, message: `submit_verdict arguments do not fit: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
  const v = parsed.data;
  if (v.verdict === 'reject' && (!v.rejection_category || !v.next_step)) return { ok: false, message: 'a reject needs a rejection_category and a next_step' };
  return { ok: true, args: v };
}

export interface EvaluationInput {
  task: PrdEntry;
  contextFiles: { name: string; text: string }[];
  ledger: LedgerEntry[];
  case: Case | null;
  /** The task's acceptance test(s) as on disk now, by path. */
  tests: Record<string, string>;
  checks: CheckResult[];
  diff: string;
  /** The reviewer's send-back this revision answers: its note and comments are requirements too. */
  sendBack?: SendBack | null;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n... [truncated, total ${text.length} chars]` : text;
}

export function evaluatorUserPrompt(input: EvaluationInput): string {
  const { task } = input;
  const parts: string[] = [`# Task to evaluate: ${task.id} — ${task.title}`, '', task.description.trim()];
  if (task.acceptance_criteria.length > 0) parts.push('', '## Acceptance criteria (and the test cases that check each)', ...criteriaLines(task, true));
  if (input.sendBack) parts.push('', formatSendBack(input.sendBack, 'evaluator'));
  if (input.contextFiles.length > 0) {
    parts.push(
      '',
      `## Project context (${input.contextFiles.map((f) => f.name).join(', ')})`,
      '',
      input.contextFiles.map((f) => f.text.trimEnd()).join('\n\n'),
    );
  }
  if (input.ledger.length > 0) {
    parts.push('', EVALUATOR_LEDGER_HEADER);
    for (const e of input.ledger) {
      const v = e.verdict;
      parts.push(
        `- iteration ${e.iter}: ${v.verdict}${v.rejection_category ? ` (${v.rejection_category})` : ''} — ${v.concern}${v.next_step ? ` Next step given: ${v.next_step}` : ''}`,
      );
    }
  }
  if (input.case) {
    parts.push('', "## The worker's case", '', input.case.summary.trim(), '', '### Criteria coverage');
    for (const c of input.case.ac_coverage) parts.push(`- ${c.criterion} — addressed by ${c.addressed_by}${c.evidence ? ` (evidence: ${c.evidence})` : ''}`);
    if (input.case.work_arounds?.length) parts.push('', '### Work-arounds', ...input.case.work_arounds.map((w) => `- ${w}`));
    if (input.case.uncertainties?.length) parts.push('', '### Uncertainties', ...input.case.uncertainties.map((u) => `- ${u}`));
  }
  const tests = Object.entries(input.tests).sort(([a], [b]) => a.localeCompare(b));
  if (tests.length > 0) {
    parts.push('', '## Acceptance test (as the checks ran it)', '');
    let budget = SEED_TEST_INJECT_CAP;
    for (const [file, body] of tests) {
      if (budget <= 0) break;
      const shown = body.length > budget ? `${body.slice(0, budget)}\n... [truncated]` : body;
      budget -= body.length;
      parts.push(`\`${file}\`:`, '```', shown.trimEnd(), '```');
    }
  }
  parts.push('', '## Check output', '');
  if (input.checks.length === 0) parts.push('(no checks ran)');
  for (const c of input.checks) {
    parts.push(`### ${c.name} — ${c.passed ? 'PASS' : 'FAIL'}`, '```', cut(c.output?.trim() || '(no output)', VALIDATOR_OUTPUT_INJECT_CAP), '```', '');
  }
  parts.push(
    '## Diff of this task (working tree vs the last commit, new files included)',
    '',
    '```diff',
    input.diff.trim() ? cut(input.diff, JUDGE_DIFF_MAX_CHARS) : '(empty diff)',
    '```',
  );
  parts.push('', 'Answer by calling `submit_verdict`: that tool call is the only acceptable response.');
  return parts.join('\n');
}

export type RawCall = { name: string; arguments: string };
export type ParsedVerdict = { ok: true; verdict: Verdict } | { ok: false; error: string; raw: RawCall[] };

/**
 * Exactly one submit_verdict call with arguments that fit the schema and its rules. With the
 * task's number of criteria, its word per criterion must name real ones, and an accept may not
 * call one unmet.
 */
export function parseVerdict(calls: readonly RawCall[], criteriaCount?: number): ParsedVerdict {
  const raw = calls.map((c) => ({ name: c.name, arguments: c.arguments.slice(0, 16_000) }));
  const verdicts = calls.filter((c) => c.name === 'submit_verdict');
  if (verdicts.length !== 1) return { ok: false, error: `expected exactly one submit_verdict call, got ${verdicts.length}`, raw };
  const read = SUBMIT_VERDICT_TOOL.read(verdicts[0]!.arguments);
  if (!read.ok) return { ok: false, error: read.message, raw };
  const v = read.args;
  const words = v.criteria ?? [];
  const outside = criteriaCount === undefined ? undefined : words.find((w) => w.n > criteriaCount);
  if (outside) return { ok: false, error: `criteria names criterion ${outside.n}, but the task has ${criteriaCount}`, raw };
  const unmet = words.filter((w) => !w.met).map((w) => w.n);
  if (v.verdict === 'accept' && unmet.length > 0) {
    return { ok: false, error: `an accept may not call a criterion unmet (you said ${unmet.join(', ')} is not met): reject, or mark it met`, raw };
  }
  const said = words.length > 0 ? { criteria: words } : {};
  return { ok: true, verdict: v.verdict === 'accept' ? { verdict: 'accept', concern: v.concern, evidence: v.evidence, ...said } : v };
}

export interface EvaluatorEvents {
  /** Before each model call; may throw to stop (the run's spend caps). */
  beforeCall?(prompt: string, attempt: number): void;
  onResult?(attempt: number, result: ChatResult, info: CallInfo): void;
  onParseError?(attempt: number, error: string, raw: RawCall[]): void;
  onRetry?(notice: RetryNotice): void;
  onNotice?(kind: NoticeKind, message: string): void;
}

export type Evaluation = {
  verdict: Verdict;
  attempts: number;
  prompt: string;
  /**
   * Set when no attempt could be read as a verdict: one sentence on what the model sent instead.
   * The verdict is then a fail-closed reject marked `parse_failed` (for the ledger), and the
   * task stops with `evaluator_unreadable` rather than sending the worker round again.
   */
  unreadable?: string;
};

/**
 * Runs the evaluator; never throws for a bad answer, only for provider failure or abort. A second
 * attempt sees its first answer and what was wrong with it.
 */
export async function evaluate(
  llm: ModelClient,
  input: EvaluationInput,
  options: {
    signal?: AbortSignal;
    events?: EvaluatorEvents;
    agent?: Pick<AgentOptions, 'contextWindow' | 'windowAssumed' | 'price' | 'dollarCapSet' | 'notices'>;
  } = {},
): Promise<Evaluation> {
  const prompt = evaluatorUserPrompt(input);
  const events = options.events;
  let attempt = 0;
  const agent = new Agent({
    llm,
    role: 'evaluator',
    messages: [
      { role: 'system', content: loadPrompt('evaluator', {}) },
      { role: 'user', content: prompt },
    ],
    tools: [SUBMIT_VERDICT_TOOL],
    ...(options.signal ? { signal: options.signal } : {}),
    ...options.agent,
    // An empty answer is an unreadable attempt, not something to wait out.
    maxEmptyStreak: 1,
    hooks: {
      beforeCall: () => events?.beforeCall?.(prompt, attempt + 1),
      onModelCall: (result, info) => events?.onResult?.(++attempt, result, info),
      ...(events?.onRetry ? { onRetry: events.onRetry } : {}),
      ...(events?.onNotice ? { onNotice: events.onNotice } : {}),
    },
  });
  let lastError = '';
  let sent = '';
  for (let tries = 1; tries <= EVALUATOR_ATTEMPTS; tries++) {
    const turn = await agent.turn();
    if (turn.kind === 'empty') {
      lastError = 'an empty reply';
      sent = turn.result.filtered
        ? "a reply its provider's content filter blocked"
        : reasoningText(turn.result.message) !== ''
          ? 'only reasoning, with no verdict'
          : 'an empty reply';
      events?.onParseError?.(attempt, 'empty reply: no verdict and no text', []);
      agent.say(`Your reply was empty. Call \`submit_verdict\` exactly once with a valid payload.`);
      continue;
    }
    const raw = turn.calls.map((c) => ({ name: c.name, arguments: c.rawArgs }));
    const parsed = parseVerdict(raw, input.task.acceptance_criteria.length);
    if (parsed.ok) {
      for (const c of turn.calls) if (c.name !== 'submit_verdict') agent.answer(c, 'Not run: only submit_verdict is available.');
      return { verdict: parsed.verdict, attempts: tries, prompt };
    }
    lastError = parsed.error;
    sent = describeSent(turn.text, raw, parsed.error);
    events?.onParseError?.(attempt, parsed.error, parsed.raw);
    const retry = `Your answer could not be used: ${parsed.error}. Call \`submit_verdict\` exactly once with a valid payload.`;
    if (turn.calls.length === 0) agent.say(retry);
    else for (const c of turn.calls) agent.answer(c, retry);
  }
  return {
    verdict: {
      verdict: 'reject',
      rejection_category: 'acceptance_gap',
      concern: `The evaluator did not give a usable verdict (${lastError}); rejected to be safe.`,
      evidence: [],
      next_step: 'Re-check every acceptance criterion against the tests and submit the case again.',
      parse_failed: true,
    },
    attempts: EVALUATOR_ATTEMPTS,
    prompt,
    unreadable: `the evaluator model answered ${EVALUATOR_ATTEMPTS} times in a row without a usable submit_verdict call; the last time it sent ${sent}`,
  };
}

/** What an unreadable answer was, in a few words, for the stop sentence. */
function describeSent(text: string, calls: RawCall[], error: string): string {
  const clip = (t: string, n: number) => {
    const flat = t.replace(/\s+/g, ' ').trim();
    return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
  };
  if (calls.length === 0) return text.trim() === '' ? 'nothing usable' : `text instead of a tool call: "${clip(text, 160)}"`;
  const names = calls.map((c) => c.name);
  if (!names.includes('submit_verdict')) return `a call to ${names.map((n) => `'${clip(n, 40)}'`).join(', ')} instead of submit_verdict`;
  return `a submit_verdict call that could not be used (${clip(error, 200)})`;
}
