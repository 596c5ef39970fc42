/**
 * The event stream's filters: a preset (everything, worker↔evaluator, problems only), kind
 * toggles and a text search. Pure. Filtering is incremental: when the loaded events only grow at
 * one end, only the new events are tested (`refilter`), so a live event costs O(1), not O(loaded).
 */
import type { TilthEvent } from '../../../shared/events.ts';

export const EVENT_KINDS = ['model', 'tools', 'checks', 'verdicts', 'tasks', 'guidance', 'session', 'interview'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export const KIND_LABELS: Record<EventKind, string> = {
  model: 'model calls',
  tools: 'tools',
  checks: 'checks',
  verdicts: 'verdicts',
  tasks: 'tasks',
  guidance: 'guidance',
  session: 'session',
  interview: 'interview',
};

export function eventKind(event: TilthEvent): EventKind {
  if ('phase' in event.data && event.data.phase === 'interview') return 'interview';
  switch (event.type) {
    case 'model_call':
    case 'empty_model_response':
    case 'prompt_assembled':
    case 'model_retry':
    case 'context_elided':
    case 'provider_notice':
      return 'model';
    case 'tool_call':
    case 'tool_result':
    case 'hook_run':
    case 'pre_tool_block':
      return 'tools';
    case 'validator_run':
      return 'checks';
    case 'evaluator_verdict':
    case 'evaluator_parse_error':
    case 'case_parse_error':
    case 'ledger_appended':
      return 'verdicts';
    case 'context_reset':
    case 'memory_load':
    case 'task_done':
    case 'task_failed':
    case 'commit':
    case 'proposed_learnings':
      return 'tasks';
    case 'steering_note':
      return 'guidance';
    case 'question_asked':
    case 'question_answered':
    case 'session_prepared':
    case 'seed_committed':
    case 'seed_written':
    case 'seed_edited':
      return 'interview';
    default:
      return 'session';
  }
}

export type Preset = 'everything' | 'dialogue' | 'problems';

export const PRESET_LABELS: Record<Preset, string> = {
  everything: 'Everything',
  dialogue: 'Worker ↔ evaluator',
  problems: 'Problems only',
};

/** Something went wrong, or was refused: what a user scanning for trouble wants to see. */
export function isProblem(event: TilthEvent): boolean {
  switch (event.type) {
    case 'stop':
      return event.data.reason !== 'all_done';
    case 'status_changed':
      return event.data.to === 'stopped' || event.data.to === 'failed';
    case 'task_failed':
    case 'pre_tool_block':
    case 'case_parse_error':
    case 'evaluator_parse_error':
    case 'empty_model_response':
    case 'model_retry':
    case 'provider_notice':
      return true;
    case 'hook_run':
      return event.data.outcome === 'block';
    case 'validator_run':
    case 'setup_finished':
      return !event.data.passed;
    case 'evaluator_verdict':
      return event.data.verdict === 'reject';
    case 'model_call':
      return event.data.health !== undefined && event.data.health !== 'ok';
    case 'proposed_learnings':
      return event.data.reason === 'error';
    default:
      return false;
  }
}

const SUBMIT_CASE = 'submit_case';

/**
 * The exchange between worker and evaluator: each case the worker submits, the checks run on it,
 * the evaluator's call and verdict, and the task boundaries and guidance around them.
 */
export function isDialogue(event: TilthEvent): boolean {
  switch (event.type) {
    case 'tool_call':
    case 'tool_result':
      return event.data.tool === SUBMIT_CASE;
    case 'model_call':
      return event.data.role === 'evaluator' || event.data.phase === 'evaluator';
    case 'validator_run':
    case 'evaluator_verdict':
    case 'evaluator_parse_error':
    case 'case_parse_error':
    case 'context_reset':
    case 'task_done':
    case 'task_failed':
    case 'steering_note':
      return true;
    default:
      return false;
  }
}

export function matchesPreset(event: TilthEvent, preset: Preset): boolean {
  if (preset === 'problems') return isProblem(event);
  if (preset === 'dialogue') return isDialogue(event);
  return true;
}

const searchTexts = new WeakMap<TilthEvent, string>();

function collectStrings(value: unknown, out: string[], depth: number): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (depth < 6 && Array.isArray(value)) for (const v of value) collectStrings(v, out, depth + 1);
  else if (depth < 6 && value !== null && typeof value === 'object') for (const v of Object.values(value)) collectStrings(v, out, depth + 1);
}

/** Everything an event says (type, seq, every string and number in its data), lowercased; cached per event. */
export function searchText(event: TilthEvent): string {
  let text = searchTexts.get(event);
  if (text === undefined) {
    const parts = [`#${event.seq}`, event.type];
    collectStrings(event.data, parts, 0);
    text = parts.join('\n').toLowerCase();
    searchTexts.set(event, text);
  }
  return text;
}

export interface EventFilter {
  preset: Preset;
  /** Kinds switched off; empty shows every kind. */
  hiddenKinds: ReadonlySet<EventKind>;
  /** Words that must all appear (case-insensitive). */
  search: string;
}

export const DEFAULT_FILTER: EventFilter = { preset: 'everything', hiddenKinds: new Set(), search: '' };

export function isFiltering(filter: EventFilter): boolean {
  return filter.preset !== 'everything' || filter.hiddenKinds.size > 0 || filter.search.trim() !== '';
}

/** A predicate for the filter, with the search split into words once. */
export function eventMatcher(filter: EventFilter): (event: TilthEvent) => boolean {
  const words = filter.search
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  const { preset, hiddenKinds } = filter;
  return (event) => {
    if (!matchesPreset(event, preset)) return false;
    if (hiddenKinds.size > 0 && hiddenKinds.has(eventKind(event))) return false;
    if (words.length === 0) return true;
    const text = searchText(event);
    return words.every((w) => text.includes(w));
  };
}

/** The filtered rows for one list of loaded events and one filter. */
export interface Filtered {
  readonly events: readonly TilthEvent[];
  readonly filter: EventFilter;
  readonly rows: readonly TilthEvent[];
}

/**
 * Filters `events`, reusing `prev` when the filter is the same and the events only grew at one
 * end (live events appended, or an older page prepended): then only the new events are tested.
 * Anything else (a trimmed window, a jump, a new filter) filters the whole list again.
 */
export function refilter(prev: Filtered | null, events: readonly TilthEvent[], filter: EventFilter): Filtered {
  if (prev !== null && prev.filter === filter) {
    if (prev.events === events) return prev;
    const match = eventMatcher(filter);
    const oldFirst = prev.events[0]?.seq;
    const oldLast = prev.events.at(-1)?.seq;
    const first = events[0]?.seq;
    const last = events.at(-1)?.seq;
    if (oldFirst !== undefined && oldLast !== undefined && first !== undefined && last !== undefined) {
      if (first === oldFirst && last >= oldLast && events[prev.events.length - 1]?.seq === oldLast) {
        const added = events.slice(prev.events.length).filter(match);
        return { events, filter, rows: added.length === 0 ? prev.rows : prev.rows.concat(added) };
      }
      if (last === oldLast && first < oldFirst && events[events.length - prev.events.length]?.seq === oldFirst) {
        const added = events.slice(0, events.length - prev.events.length).filter(match);
        return { events, filter, rows: added.length === 0 ? prev.rows : added.concat(prev.rows) };
      }
    }
  }
  if (!isFiltering(filter)) return { events, filter, rows: events };
  return { events, filter, rows: events.filter(eventMatcher(filter)) };
}
