/**
 * The event stream's filters: a preset (everything, worker↔evaluator, problems only), kind
 * toggles and a text search. Which kind an event is, and whether it is trouble or dialogue, is
 * in its entry in shared/event-text.ts. Pure. Filtering is incremental: when the loaded events only grow at
 * one end, only the new events are tested (`refilter`), so a live event costs O(1), not O(loaded).
 */
import { type EventKind, eventKind, eventName, isDialogue, isProblem } from '../../../../shared/event-text.ts';
import type { TilthEvent } from '../../../../shared/events.ts';

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

export type Preset = 'everything' | 'dialogue' | 'problems';

export const PRESET_LABELS: Record<Preset, string> = {
  everything: 'Everything',
  dialogue: 'Worker ↔ evaluator',
  problems: 'Problems only',
};

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

/** Everything an event says (type and its name on screen, seq, every string and number in its data), lowercased; cached per event. */
export function searchText(event: TilthEvent): string {
  let text = searchTexts.get(event);
  if (text === undefined) {
    const parts = [`#${event.seq}`, event.type, eventName(event)];
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

/** The search's words, lowercased: an event matches when it holds every one. */
export function searchWords(search: string): string[] {
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
}

/** A predicate for the filter, with the search split into words once. */
export function eventMatcher(filter: EventFilter): (event: TilthEvent) => boolean {
  const words = searchWords(filter.search);
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
