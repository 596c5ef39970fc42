/**
 * Browser notifications, opt-in: the choice is kept in localStorage and asked of the browser
 * (Notification.requestPermission) when switched on. A notice shows only while the user is
 * looking elsewhere (another tab or window): on the page itself the dashboard already says it.
 */
import { useEffect, useRef, useSyncExternalStore } from 'react';
import type { TilthEvent } from '../../../../shared/events.ts';
import type { Meter } from './meters.ts';
import { capNotices, eventNotices, meterLevels, type MeterLevels, type Notice } from './notices.ts';

const KEY = 'tilth.notifications';
const listeners = new Set<() => void>();

function supported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

export type NotifySetting = 'off' | 'on' | 'blocked' | 'unsupported';

function readNow(): NotifySetting {
  if (!supported()) return 'unsupported';
  if (Notification.permission === 'denied') return 'blocked';
  try {
    return localStorage.getItem(KEY) === 'on' && Notification.permission === 'granted' ? 'on' : 'off';
  } catch {
    return 'off';
  }
}

// Read once and kept: the header asks on every render, and localStorage is not free.
let current: NotifySetting | null = null;
function read(): NotifySetting {
  current ??= readNow();
  return current;
}

function changed(): void {
  current = readNow();
  for (const l of listeners) l();
}
if (typeof window !== 'undefined') window.addEventListener('storage', (e) => e.key === KEY && changed());

export async function setNotifications(on: boolean): Promise<void> {
  if (!supported()) return;
  if (on && Notification.permission !== 'granted') await Notification.requestPermission();
  try {
    localStorage.setItem(KEY, on ? 'on' : 'off');
  } catch {
    // Private mode without storage: the choice lasts as long as the page.
  }
  changed();
}

export function useNotifySetting(): NotifySetting {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    read,
    () => 'unsupported',
  );
}

function show(notices: readonly Notice[], sessionId: string): void {
  if (notices.length === 0 || read() !== 'on') return;
  if (document.visibilityState === 'visible' && document.hasFocus()) return;
  for (const n of notices) new Notification(n.title, { body: n.body, tag: `${sessionId}:${n.tag}` });
}

/**
 * Notices for events that arrive live: those after the stream first caught up, so opening a
 * finished session does not replay its ending.
 */
export function useEventNotifications(sessionId: string, label: string, recent: readonly TilthEvent[], lastSeq: number, caughtUp: boolean): void {
  const seen = useRef<number | null>(null);
  useEffect(() => {
    if (!caughtUp) return;
    if (seen.current === null) {
      seen.current = lastSeq;
      return;
    }
    if (lastSeq <= seen.current) return;
    const after = seen.current;
    seen.current = lastSeq;
    show(
      eventNotices(
        recent.filter((e) => e.seq > after),
        label,
      ),
      sessionId,
    );
  }, [sessionId, label, recent, lastSeq, caughtUp]);
}

/** A notice when a limit meter turns red. */
export function useCapNotifications(sessionId: string, label: string, meters: readonly Meter[]): void {
  const before = useRef<MeterLevels>({});
  useEffect(() => {
    show(capNotices(before.current, meters, label), sessionId);
    before.current = meterLevels(meters);
  }, [sessionId, label, meters]);
}
