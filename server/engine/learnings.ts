/**
 * The self-improve step after an accepted, committed task (reference §10): the worker model, with
 * no tools, may propose one durable lesson about this codebase; it goes to
 * `proposed-learnings.md` for the user, and nothing reads it back. It runs after the commit, so a
 * failure here (or a crash) can never cost the task — the Python edition's bug.
 */
import type { PrdEntry } from '../../shared/files.ts';
import { lastCommitDiff } from '../git/worktree-git.ts';
import { ProviderFailureError } from '../llm/errors.ts';
import { retryFields } from '../agent/events.ts';
import { Agent } from '../agent/runtime.ts';
import { loadPrompt } from '../agent/prompts.ts';
import { formatLedgerSection } from './case.ts';
import { JUDGE_DIFF_MAX_CHARS } from './evaluator.ts';
import { CapReached, spanId, type RunContext } from './run-context.ts';
import { combineContext, loadContextFiles } from './worker-prompt.ts';

const RAW_PREVIEW_CHARS = 500;

/** The first fenced block, else the whole text, that parses to a JSON object. */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/.exec(text)?.[1];
  for (const candidate of [fenced, text]) {
    if (candidate === undefined) continue;
    try {
      const value: unknown = JSON.parse(candidate.trim());
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // try the next candidate
    }
  }
  return null;
}

export async function proposeLearning(run: RunContext, task: PrdEntry, traceId: string, caseSummary: string): Promise<void> {
  const base = { task_id: task.id, trace_id: traceId, span_id: spanId() };
  const context = loadContextFiles(run.worktree, run.deps.contextFiles);
  const label = context.loaded.map((f) => f.name).join(', ') || run.deps.contextFiles[0] || 'AGENTS.md';
  const combined = combineContext(context.loaded);
  const diff = await lastCommitDiff(run.ref);
  const ledger = formatLedgerSection(run.session.ledger.read(task.id), "## The evaluator's verdicts on this task");
  const prompt = [
    `Task just completed: ${task.id} — ${task.title}`,
    '',
    `Description:\n${task.description.trim()}`,
    '',
    `The worker's case: ${caseSummary}`,
    '',
    `## Current project context (${label})`,
    '',
    combined.trim() || `(no ${label} in this project)`,
    '',
    '## Diff produced',
    '```diff',
    diff.trim() ? (diff.length > JUDGE_DIFF_MAX_CHARS ? `${diff.slice(0, JUDGE_DIFF_MAX_CHARS)}\n... [truncated]` : diff.trimEnd()) : '(empty)',
    '```',
    ...(ledger ? ['', ledger] : []),
    '',
    'Respond with strict JSON only.',
  ].join('\n');
  run.promptEvent(base, 'self_improve', prompt);
  const skip = (reason: 'unparseable' | 'no_proposal' | 'empty_learning' | 'error', raw?: string) =>
    run.emit({ type: 'proposed_learnings', data: { ...base, emitted: false, reason, ...(raw !== undefined ? { raw: raw.slice(0, RAW_PREVIEW_CHARS) } : {}) } });
  let content: string;
  try {
    const agent = new Agent({
      llm: run.deps.llm,
      role: 'worker',
      messages: [
        { role: 'system', content: loadPrompt('learnings', {}) },
        { role: 'user', content: prompt },
      ],
      tools: [],
      signal: run.signal,
      ...run.agentOptions('worker'),
      // An empty answer here is "no learning", not something to wait out.
      maxEmptyStreak: 1,
      hooks: {
        beforeCall: () => run.checkSpend(),
        onModelCall: (result, info) => run.modelCallEvent(result, 'self_improve', base, info),
        onRetry: (notice) => run.emit({ type: 'model_retry', data: { ...base, phase: 'self_improve', ...retryFields(notice) } }),
      },
    });
    const turn = await agent.turn();
    content = turn.kind === 'reply' ? turn.text.trim() : '';
  } catch (err) {
    if (err instanceof ProviderFailureError || err instanceof CapReached) {
      skip('error', err.message);
      return;
    }
    throw err;
  }
  const parsed = parseJsonObject(content);
  if (!parsed) return void skip('unparseable', content);
  const learning = parsed.learning;
  if (learning === null || learning === undefined || learning === false) return void skip('no_proposal');
  if (typeof learning !== 'string' || learning.trim() === '') return void skip('empty_learning', JSON.stringify(parsed));
  run.session.learnings.append(task, learning);
  const entry = learning.trim();
  run.emit({ type: 'proposed_learnings', data: { ...base, emitted: true, entry } });
}
