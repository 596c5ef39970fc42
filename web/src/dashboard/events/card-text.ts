/**
 * Text for the event cards beyond their one-line summary (`event-line.ts`): the model's
 * reasoning, tool arguments as labelled fields, where an event happened. Pure.
 */
import { roleWords } from '../../../../shared/event-text.ts';
import type { EventData, TilthEvent } from '../../../../shared/events.ts';

/** The reasoning a model call carries: its `reasoning` text, else the text parts of `reasoning_details`. */
export function reasoningText(data: EventData<'model_call'>): string {
  if (data.reasoning !== undefined && data.reasoning.trim() !== '') return data.reasoning;
  const parts: string[] = [];
  for (const detail of data.reasoning_details ?? []) {
    if (typeof detail === 'string') parts.push(detail);
    else if (detail !== null && typeof detail === 'object') {
      for (const key of ['text', 'summary', 'content'] as const) {
        const value = (detail as Record<string, unknown>)[key];
        if (typeof value === 'string' && value.trim() !== '') {
          parts.push(value);
          break;
        }
      }
    }
  }
  return parts.join('\n\n');
}

export interface ArgField {
  name: string;
  value: string;
  /** Code or a command: shown in a monospace block rather than inline. */
  block: boolean;
}

/** Arguments whose text reads best as a block (file contents, commands, replacements). */
const BLOCK_ARGS = new Set(['content', 'command', 'old_string', 'new_string', 'summary', 'patch']);

/** A tool call's arguments as labelled fields, strings verbatim and anything else as compact JSON. */
export function argFields(args: unknown): ArgField[] {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return [{ name: 'arguments', value: typeof args === 'string' ? args : (JSON.stringify(args) ?? ''), block: true }];
  }
  return Object.entries(args as Record<string, unknown>).map(([name, value]) => {
    const text =
      typeof value === 'string' ? value : (JSON.stringify(value, null, value !== null && typeof value === 'object' ? 2 : undefined) ?? String(value));
    return { name, value: text, block: BLOCK_ARGS.has(name) || text.includes('\n') || text.length > 80 };
  });
}

/** "T-001 · iteration 3", "evaluator · T-002", "interview": where an event happened. */
export function whereOf(event: TilthEvent): string {
  const d = event.data as { task_id?: string; iter?: number; phase?: string; role?: string };
  const parts: string[] = [];
  if (d.phase !== undefined) parts.push(roleWords(d.phase));
  else if (event.type === 'model_call' && d.role !== undefined) parts.push(roleWords(d.role));
  if (d.task_id !== undefined) parts.push(d.task_id);
  if (d.iter !== undefined && d.iter > 0) parts.push(`iteration ${d.iter}`);
  return parts.join(' · ');
}

/** Lines in a text, for "12 lines" labels. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < text.length - 1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export interface CaseView {
  summary: string;
  coverage: { criterion: string; addressedBy: string; evidence: string | null }[];
  workArounds: string[];
  uncertainties: string[];
}

const strings = (value: unknown): string[] =>
  typeof value === 'string' ? (value.trim() === '' ? [] : [value]) : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/** The worker's `submit_case` arguments as the card shows them; null when they do not look like a case. */
export function caseView(args: unknown): CaseView | null {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return null;
  const a = args as Record<string, unknown>;
  if (typeof a.summary !== 'string' || !Array.isArray(a.ac_coverage)) return null;
  const coverage = a.ac_coverage.flatMap((item) => {
    if (item === null || typeof item !== 'object') return [];
    const c = item as Record<string, unknown>;
    return [
      {
        criterion: String(c.criterion ?? ''),
        addressedBy: String(c.addressed_by ?? ''),
        evidence: typeof c.evidence === 'string' && c.evidence !== '' ? c.evidence : null,
      },
    ];
  });
  return { summary: a.summary, coverage, workArounds: strings(a.work_arounds), uncertainties: strings(a.uncertainties) };
}

/** A command on one line for a sentence: its first line, cut to `max` characters. */
export function oneLineCommand(command: string, max = 80): string {
  const lines = command.trim().split('\n');
  const first = lines[0] ?? '';
  const cut = first.length > max ? `${first.slice(0, max - 1)}…` : first;
  return lines.length > 1 && cut === first ? `${cut} …` : cut;
}
