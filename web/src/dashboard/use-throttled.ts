import { useEffect, useRef, useState } from 'react';

/** `value`, passed on at most once per `ms` (the last one always arrives): for charts that need not redraw every frame. */
export function useThrottled<T>(value: T, ms: number): T {
  const [out, setOut] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    const wait = last.current + ms - Date.now();
    const pass = () => {
      last.current = Date.now();
      setOut(value);
    };
    if (wait <= 0) {
      pass();
      return;
    }
    const timer = setTimeout(pass, wait);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return out;
}
