/**
 * The worker's user prompt (reference §7.3), rebuilt from disk at the start of every task: the
 * project's context files, the progress tail, the whole plan as context, the seed-meta slice, the
 * task, its own ledger, the user's pending guidance notes and the workspace root. Sizes and order
 * are the Python edition's. No harness file name (progress.txt, prd.json, …) appears in it: the
 * harness turns its files into prose.
 *
 * Also returns the `memory_load` manifest, which says what went in and how much.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { LedgerEntry, PrdEntry, SeedMeta, SendBack, SteeringNote } from '../../shared/files.ts';
import { formatLedgerSection } from './case.ts';
import { formatSendBack } from './send-back-prompt.ts';

/** Reference §3.5. */
export const AGENTS_MD_MAX_CHARS = 8_000;
export const FULL_PRD_MAX_CHARS = 6_000;
export const SEED_META_MAX_CHARS = 4_000;

const sha8 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);

export interface ContextFile {
  name: string;
  text: string;
}

/** The configured context files present at the worktree root, in order (symlinks out are ignored). */
export function loadContextFiles(
  worktree: string,
  names: string[],
): { loaded: ContextFile[]; files: { name: string; present: boolean; chars: number; sha256_8: string | null }[] } {
  const loaded: ContextFile[] = [];
  const files = names.map((name) => {
    const file = path.join(worktree, name);
    let text: string | null = null;
    try {
      const real = fs.realpathSync(file);
      const root = fs.realpathSync(worktree);
      if (real.startsWith(root + path.sep) && fs.statSync(real).isFile()) text = fs.readFileSync(real, 'utf8');
    } catch {
      text = null;
    }
    if (text !== null && text.trim() !== '') loaded.push({ name, text });
    return { name, present: text !== null, chars: text?.length ?? 0, sha256_8: text === null ? null : sha8(text) };
  });
  return { loaded, files };
}

/** One body as is, several as `### name` sections (reference §7.3 item 1). */
export function combineContext(loaded: ContextFile[]): string {
  if (loaded.length === 1) return loaded[0]!.text;
  return loaded.map((f) => `### ${f.name}\n\n${f.text.trimEnd()}`).join('\n\n');
}

/** Heads the task's earlier verdicts in the worker's prompt. */
export const WORKER_LEDGER_HEADER = '## Prior iterations on this task (from the evaluator)';

export interface WorkerPromptInput {
  worktree: string;
  task: PrdEntry;
  prd: PrdEntry[];
  seedMeta: SeedMeta | null;
  progress: string;
  ownLedger: LedgerEntry[];
  notes: SteeringNote[];
  context: ReturnType<typeof loadContextFiles>;
  /** The reviewer's send-back this revision answers; absent or null for a first revision. */
  sendBack?: SendBack | null;
}

function capped(text: string, max: number, marker: string): { text: string; truncated: boolean } {
  return text.length > max ? { text: `${text.slice(0, max)}${marker}`, truncated: true } : { text, truncated: false };
}

export function buildWorkerPrompt(input: WorkerPromptInput): { prompt: string; channels: Record<string, unknown> } {
  const sections: string[] = [];
  const channels: Record<string, unknown> = {};

  const combined = combineContext(input.context.loaded);
  const agents = capped(combined, AGENTS_MD_MAX_CHARS, '\n\n[... project context truncated; consider compacting it]');
  if (combined.trim() !== '') sections.push(`## Project context (${input.context.loaded.map((f) => f.name).join(', ')})\n\n${agents.text.trimEnd()}\n`);
  channels.agents_md = {
    present: combined.trim() !== '',
    chars: combined.length,
    truncated: agents.truncated,
    sha256_8: sha8(combined),
    files: input.context.files,
    loaded: input.context.loaded.map((f) => f.name),
  };

  const progressLines = input.progress.split('\n').filter((l) => l.trim() !== '');
  if (input.progress.trim() !== '') sections.push(`## Recent progress (the latest task outcomes in this session)\n${input.progress}\n`);
  channels.progress_tail = { present: input.progress.trim() !== '', chars: input.progress.length, lines: progressLines.length };

  if (input.prd.length > 0) {
    const lines = [
      '## Full feature plan (all tasks — context, not work to do)',
      '',
      'Only the task under **Your task** below is yours. The others are listed so you understand the whole feature; do not start them.',
      '',
    ];
    for (const t of input.prd) {
      if (t.id === input.task.id) {
        lines.push(`### ${t.id} — ${t.title}  [${t.status}]  ← **your task** (full detail below)`, '');
        continue;
      }
      lines.push(`### ${t.id} — ${t.title}  [${t.status}]`);
      if (t.description.trim()) lines.push(t.description.trim());
      lines.push(...t.acceptance_criteria.map((c) => `- ${c}`), '');
    }
    const plan = capped(lines.join('\n').trimEnd(), FULL_PRD_MAX_CHARS, '\n... [full plan truncated]');
    sections.push(`${plan.text}\n`);
    channels.full_prd = { present: true, chars: plan.text.length, truncated: plan.truncated, n_tasks: input.prd.length };
  } else {
    channels.full_prd = { present: false, chars: 0, truncated: false, n_tasks: 0 };
  }

  const meta = input.seedMeta;
  const metaParts: string[] = [];
  const fields: string[] = [];
  if (meta) {
    const add = (field: string, title: string, value: string | string[]) => {
      const body = Array.isArray(value)
        ? value
            .filter((s) => s.trim() !== '')
            .map((s) => `- ${s.trim()}`)
            .join('\n')
        : value.trim();
      if (body === '') return;
      fields.push(field);
      metaParts.push(`### ${title}\n${body}`);
    };
    add('tldr', 'TL;DR', meta.tldr);
    add('scope_notes', 'Scope notes', meta.scope_notes);
    add('blockers', 'Blockers / contradictions', meta.blockers);
    add('open_questions', 'Open questions', meta.open_questions);
  }
  if (metaParts.length > 0) {
    const seed = capped(
      `## Seed context (why this feature was scoped this way)\n\n${metaParts.join('\n\n')}`,
      SEED_META_MAX_CHARS,
      '\n... [seed context truncated]',
    );
    sections.push(`${seed.text}\n`);
    channels.seed_meta = { present: true, chars: seed.text.length, truncated: seed.truncated, fields };
  } else {
    channels.seed_meta = { present: false, chars: 0, truncated: false, fields: [] };
  }

  const task = input.task;
  const taskLines = ['## Your task', '', `**ID:** ${task.id}`, `**Title:** ${task.title}`, '', task.description.trim()];
  if (task.acceptance_criteria.length > 0) taskLines.push('', '### Acceptance criteria (and the test cases that check each)', ...criteriaLines(task));
  if (task.may_change_test_setup?.length) {
    taskLines.push(
      '',
      `The user lets this task change these files that decide how the tests run: ${task.may_change_test_setup.map((p) => `\`${p}\``).join(', ')}.`,
    );
  }
  sections.push(taskLines.join('\n'));

  const sent = input.sendBack ?? null;
  if (sent) sections.push(`\n${formatSendBack(sent, 'worker')}`);
  channels.send_back = { present: sent !== null, revision: sent?.revision ?? null, comments: sent?.comments.length ?? 0 };

  const ledger = formatLedgerSection(input.ownLedger, WORKER_LEDGER_HEADER);
  if (ledger) sections.push(`\n${ledger}`);
  channels.own_ledger = { present: ledger !== '', chars: ledger.length, entries: input.ownLedger.length };

  if (input.notes.length > 0) sections.push(`\n${formatNotes(input.notes)}`);
  channels.steering_notes = { present: input.notes.length > 0, notes: input.notes.length };

  sections.push(
    `\n**Workspace root:** ${path.resolve(input.worktree)}\n\nBegin work now. When the work is complete and verified, present it by calling \`submit_case\`.`,
  );
  return { prompt: sections.join('\n'), channels };
}

/** Guidance from the user, shown once: at task start here, or mid-task as a user message. */
export function formatNotes(notes: SteeringNote[]): string {
  return ['## Guidance from the user (follow it)', '', ...notes.map((n) => `- ${n.text}`)].join('\n');
}

/**
 * The task's criteria as the worker and the evaluator read them: each with the test cases the
 * seed names for it, so both know which test speaks for which criterion.
 */
export function criteriaLines(task: PrdEntry, numbered = false): string[] {
  return task.acceptance_criteria.map((c, i) => {
    const tests = task.criteria_tests?.[i] ?? [];
    const head = `${numbered ? `${i + 1}.` : '-'} ${c}`;
    return tests.length > 0 ? `${head}\n  checked by: ${tests.map((t) => `\`${t}\``).join(', ')}` : head;
  });
}
