/**
 * In-process publish/subscribe for stored events. Only the store publishes, and only after the
 * event is on disk, so a subscriber that misses something can always re-read it from the log.
 */
import type { TilthEvent } from '../../shared/events.ts';

type EventListener = (event: TilthEvent) => void;
type Listener = () => void;

export class EventBus {
  private readonly bySession = new Map<string, Set<EventListener>>();
  private readonly sessionsListeners = new Set<Listener>();

  subscribe(sessionId: string, listener: EventListener): () => void {
    let set = this.bySession.get(sessionId);
    if (!set) this.bySession.set(sessionId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.bySession.delete(sessionId);
    };
  }

  publish(sessionId: string, event: TilthEvent): void {
    const set = this.bySession.get(sessionId);
    if (!set) return;
    for (const listener of [...set]) listener(event);
  }

  /** The sessions list changed (a session appeared, vanished, or changed status or progress). */
  onSessionsChanged(listener: Listener): () => void {
    this.sessionsListeners.add(listener);
    return () => this.sessionsListeners.delete(listener);
  }

  sessionsChanged(): void {
    for (const listener of [...this.sessionsListeners]) listener();
  }

  subscriberCount(sessionId: string): number {
    return this.bySession.get(sessionId)?.size ?? 0;
  }
}
