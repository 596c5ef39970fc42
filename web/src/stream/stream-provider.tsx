/**
 * Owns the tab's one StreamClient. Mounted only once the token handshake has succeeded (the
 * socket is authenticated by the cookie), and torn down when it fails.
 */
import { createContext, useEffect, useState, type ReactNode } from 'react';
import { api } from '../api/browser.ts';
import { ApiError } from '../api/client.ts';
import { eventsTail } from '../api/queries.ts';
import { SessionEventsRegistry } from './session-events-store.ts';
import { StreamClient } from './stream-client.ts';

export interface StreamContextValue {
  client: StreamClient;
  sessions: SessionEventsRegistry;
}

export const StreamContext = createContext<StreamContextValue | null>(null);

export function streamUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/stream`;
}

/**
 * Whether the server answers at all: any HTTP answer counts (a 401 also signs the page out, as
 * every 401 does), no answer does not.
 */
function serverAnswers(): Promise<boolean> {
  return api.call('getHealth', {}).then(
    () => true,
    (error: unknown) => error instanceof ApiError && error.status !== 0,
  );
}

export function StreamProvider({ children }: { children: ReactNode }) {
  const [value] = useState<StreamContextValue>(() => {
    const client = new StreamClient({
      url: streamUrl(window.location),
      log: (message, detail) => console.warn(`[tilth stream] ${message}`, detail ?? ''),
      probe: serverAnswers,
    });
    const loadTail = async (sessionId: string) => (await eventsTail(sessionId)).events;
    return { client, sessions: new SessionEventsRegistry(client, (flush) => requestAnimationFrame(flush), loadTail) };
  });

  useEffect(() => {
    const { client } = value;
    client.start();
    // Coming back to the tab or the network: no reason to sit out the rest of a backoff.
    const wake = () => {
      if (document.visibilityState === 'visible') client.reconnectNow();
    };
    window.addEventListener('online', wake);
    document.addEventListener('visibilitychange', wake);
    return () => {
      window.removeEventListener('online', wake);
      document.removeEventListener('visibilitychange', wake);
      client.stop();
    };
  }, [value]);

  return <StreamContext value={value}>{children}</StreamContext>;
}
