import type { TilthEvent } from '../../../shared/events.ts';
import { formatTime } from '../format.ts';

/** A short hint of what an event is about: its task, tool, new status or reason. */
export function eventHint(event: TilthEvent): string {
  const data = event.data as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of ['task_id', 'tool', 'to', 'verdict', 'reason', 'model'] as const) {
    const value = data[key];
    if (typeof value === 'string' && value !== '') parts.push(value);
  }
  return parts.join(' · ');
}

/**
 * The newest events (the session view keeps a bounded window, so rendering stays bounded too);
 * the full dashboard (virtualized, filterable, paged history) replaces this list.
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
        {events.map((event) => (
          <li key={event.seq} className="event-row" data-testid="event-row" data-seq={event.seq} data-type={event.type}>
            <span className="event-seq mono">#{event.seq}</span>
            <time className="event-time mono" dateTime={event.ts}>
              {formatTime(event.ts)}
            </time>
            <span className={`event-type mono type-${event.type}`}>{event.type}</span>
            <span className="event-hint muted">{eventHint(event)}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}
