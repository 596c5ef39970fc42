import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useContext, useEffect, useMemo, useSyncExternalStore } from 'react';
import { queryKeys } from '../api/queries.ts';
import type { SessionEventsState } from './events-reducer.ts';
import type { ConnectionState, StreamClient } from './stream-client.ts';
import { StreamContext, type StreamContextValue } from './stream-provider.tsx';

function useStream(): StreamContextValue {
  const value = useContext(StreamContext);
  if (value === null) throw new Error('stream hooks must be used inside <StreamProvider>');
  return value;
}

export function useStreamClient(): StreamClient {
  return useStream().client;
}

export function useConnectionState(): ConnectionState {
  const client = useStreamClient();
  const subscribe = useCallback((onChange: () => void) => client.onStateChange(onChange), [client]);
  const getState = useCallback(() => client.getState(), [client]);
  return useSyncExternalStore(subscribe, getState);
}

/** The session's folded stream; re-renders at most once per animation frame. */
export function useSessionEvents(sessionId: string): SessionEventsState {
  const { sessions } = useStream();
  const store = useMemo(() => sessions.get(sessionId), [sessions, sessionId]);
  return useSyncExternalStore(store.subscribe, store.getSnapshot);
}

/**
 * Refetches the sessions list when the stream says it changed. Changes come in bursts (a run
 * writes several files per step), so they are coalesced into one refetch per `delayMs`.
 */
export function useLiveSessionsList(delayMs = 150): void {
  const client = useStreamClient();
  const queryClient = useQueryClient();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = client.onSessionsChanged(() => {
      if (timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
      }, delayMs);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [client, queryClient, delayMs]);
}

/**
 * Calls `onTrouble` after every failed or lost connection. A browser cannot see why a WebSocket
 * upgrade failed, so the app uses this to ask the REST API, whose 401 is visible: a server that
 * comes back with a new token after a long outage is noticed on the first retry that reaches it.
 * Only failed connections call it: the at-once try after a loss, then a try whose health probe
 * found the server up (the probes themselves do not), then backed-off tries.
 */
export function useOnStreamTrouble(onTrouble: () => void): void {
  const client = useStreamClient();
  useEffect(() => client.onRetry(() => onTrouble()), [client, onTrouble]);
}
