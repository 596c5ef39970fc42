import type { TilthEvent } from '../../../shared/events.ts';
import { describeEvent, eventName } from '../../../shared/event-text.ts';
import { formatTime } from '../../../shared/format.ts';

/**
 * The newest events, one line each (the session view keeps a bounded window, so rendering stays
 * bounded too); the full dashboard (virtualized, filterable, paged history) replaces this list.
 */
export function EventList({ events, total }: { events: readonly TilthEvent[]; total: number }) {
  return (
    <div>
      {events.length < total && (
        <p className="muted small" data-testid="event-list-truncated">
          Showing the latest {events.length} of {total} events.
        </p>
      )}
      <ol className="event-list" data-testid="event-list">
        {events.map((event) => {
          const detail = describeEvent(event);
          return (
            <li key={event.seq} className="event-row" data-testid="event-row" data-seq={event.seq} data-type={event.type}>
              <span className="event-seq mono">#{event.seq}</span>
              <time className="event-time mono" dateTime={event.ts}>
                {formatTime(event.ts)}
              </time>
              <span className={`event-type type-${event.type}`} title={`${event.type} in the log`}>
                {eventName(event)}
              </span>
              <span className="event-hint" title={detail}>
                {detail}
              </span>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
