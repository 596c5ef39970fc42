/**
 * A uPlot chart owned by a component: made when its shape changes (series, lanes), fed new data
 * otherwise, and sized to its container. uPlot draws on a canvas, so thousands of points cost a
 * redraw, not thousands of DOM nodes. New data is drawn once however often it changed meanwhile:
 * a live run's charts redraw at most once a frame, in a task of their own.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export function useUplot(options: {
  make: () => Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
  shape: string;
  height: number;
  keepZoom: () => boolean;
}) {
  const container = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef(options);
  latest.current = options;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the plot is rebuilt only when its shape (series, axes) changes; data and height are applied below without a rebuild
  useEffect(() => {
    const el = container.current;
    if (el === null) return;
    const u = new uPlot({ ...latest.current.make(), width: Math.max(200, el.clientWidth), height: latest.current.height }, latest.current.data, el);
    plot.current = u;
    const resize = new ResizeObserver(() => {
      const width = Math.max(200, el.clientWidth);
      if (width !== u.width) u.setSize({ width, height: latest.current.height });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [options.shape]);

  // At most one draw a frame: the first change schedules it, later ones before it runs only change
  // what it will read. It runs in a task of its own just after the frame (a frame, then a zero
  // timeout), not inside the next frame, which lays out and paints the event list that the same
  // events grew and scrolled.
  const pending = useRef<(() => void) | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: new data or height is what schedules a redraw; the draw reads the latest of both
  useEffect(() => {
    if (plot.current === null || pending.current !== null) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => {
        pending.current = null;
        const u = plot.current;
        if (u === null) return;
        const { data, height, keepZoom } = latest.current;
        if (u.height !== height) u.setSize({ width: u.width, height });
        u.setData(data, !keepZoom());
      }, 0);
    });
    pending.current = () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [options.data, options.height]);
  useEffect(() => () => pending.current?.(), []);

  return { container, plot };
}
