/**
 * Where the event search's words appear inside a card: the pieces of a text to mark, and which
 * of a card's closed panels hold a match (the list opens them, so a match is never hidden behind
 * a "Reasoning (40 lines)" button). Pure.
 */
import type { TilthEvent } from '../../../../shared/events.ts';
import { reasoningText } from './card-text.ts';

export interface Segment {
  text: string;
  /** The piece is one of the search's words. */
  hit: boolean;
}

/** `text` cut into plain and matching pieces; `words` are lowercase. Overlapping matches merge. */
export function markSegments(text: string, words: readonly string[]): Segment[] {
  if (words.length === 0 || text === '') return [{ text, hit: false }];
  const lower = text.toLowerCase();
  const ranges: [number, number][] = [];
  for (const word of words) {
    for (let at = lower.indexOf(word); at !== -1; at = lower.indexOf(word, at + word.length)) ranges.push([at, at + word.length]);
  }
  if (ranges.length === 0) return [{ text, hit: false }];
  ranges.sort((a, b) => a[0] - b[0]);
  const out: Segment[] = [];
  let pos = 0;
  let start = ranges[0]![0];
  let end = ranges[0]![1];
  const flush = () => {
    if (start > pos) out.push({ text: text.slice(pos, start), hit: false });
    out.push({ text: text.slice(start, end), hit: true });
    pos = end;
  };
  for (const [s, e] of ranges.slice(1)) {
    if (s <= end) end = Math.max(end, e);
    else {
      flush();
      start = s;
      end = e;
    }
  }
  flush();
  if (pos < text.length) out.push({ text: text.slice(pos), hit: false });
  return out;
}

/** The closed panels of an event's card whose text holds one of `words`. */
export function panelsWithMatches(event: TilthEvent, words: readonly string[]): ('reasoning' | 'prompt')[] {
  if (words.length === 0) return [];
  const holds = (text: string) => {
    const lower = text.toLowerCase();
    return words.some((w) => lower.includes(w));
  };
  if (event.type === 'model_call') return holds(reasoningText(event.data)) ? ['reasoning'] : [];
  if (event.type === 'prompt_assembled') return holds(event.data.content) ? ['prompt'] : [];
  return [];
}
