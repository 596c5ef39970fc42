/**
 * State that timers change while a run streams in. The dashboard re-renders every animation frame
 * through `useSyncExternalStore`, which React renders synchronously. An ordinary `setState` from
 * a timer or a fetch is a default-priority update: React starts its render between frames and the
 * next frame's synchronous render throws it away, so under a steady stream such an update waits
 * until React expires it — seconds. (Seen as figures and charts a few seconds behind in a live
 * run.) These hooks apply their updates synchronously, like the stream's.
 */
import { useEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';

/** Runs a state update at once, from a timer or a promise (never from render or an effect). */
export function applyNow(update: () => void): void {
  flushSync(update);
}

/** `value`, passed on at most once per `ms` (the last one always arrives). */
export function useThrottled<T>(value: T, ms: number): T {
  const [out, setOut] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    const wait = last.current + ms - Date.now();
    if (wait <= 0) {
      last.current = Date.now();
      setOut(value);
      return;
    }
    const timer = setTimeout(() => {
      last.current = Date.now();
      applyNow(() => setOut(value));
    }, wait);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return out;
}

/** `value` once it has stopped changing for `ms` (search as you type). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => applyNow(() => setSettled(value)), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** The current time, every `ms`. */
export function useClock(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => applyNow(() => setNow(Date.now())), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
