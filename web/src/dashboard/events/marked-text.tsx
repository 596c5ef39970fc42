/** Text in an event card with the event search's words marked (`<mark>`). */
import { createContext, Fragment, useContext } from 'react';
import { markSegments } from './search-marks.ts';

/** The search's words (lowercase), given by the event list to the cards inside it. */
export const SearchWords = createContext<readonly string[]>([]);

export function Marked({ text }: { text: string }) {
  const words = useContext(SearchWords);
  const segments = markSegments(text, words);
  if (segments.length === 1 && !segments[0]!.hit) return text;
  return segments.map((s, i) => (
    // The pieces of one text, in order; the position is their identity.
    // biome-ignore lint/suspicious/noArrayIndexKey: a fixed split of a fixed text
    <Fragment key={i}>{s.hit ? <mark>{s.text}</mark> : s.text}</Fragment>
  ));
}
