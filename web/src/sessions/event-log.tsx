import { useState } from 'react';
import type { SessionEventsState } from '../stream/events-reducer.ts';
import { EventList } from './event-list.tsx';

/**
 * Every event of the session, newest window. Open by default where it is the main view; folded
 * under the interview and the seed review, which tell the same story in their own terms.
 */
export function EventLog({ stream, defaultOpen }: { stream: SessionEventsState; defaultOpen: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  const { view } = stream;
  return (
    <section className="event-log" aria-label="Event log">
      <div className="stream-bar">
        <button type="button" className="disclosure" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="event-log-toggle">
          <span className="disclosure-mark" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>{' '}
          Event log
        </button>
        <span data-testid="session-stream-status" data-caught-up={String(stream.caughtUp)}>
          {stream.caughtUp ? 'Following live' : 'Loading history…'}
        </span>
        <span className="muted" data-testid="event-count" data-count={view.lastSeq}>
          {view.lastSeq} {view.lastSeq === 1 ? 'event' : 'events'}
        </span>
      </div>
      {open &&
        (view.lastSeq === 0 && stream.caughtUp ? (
          <p className="muted" data-testid="event-list-empty">
            No events yet.
          </p>
        ) : (
          <EventList events={view.recent} total={view.lastSeq} />
        ))}
    </section>
  );
}
