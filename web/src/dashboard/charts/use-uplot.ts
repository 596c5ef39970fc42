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

  // The plot is made again only when its shape (series, axes) changes; new data and heights are
  // drawn into it below. Its root carries the shape it was made for.
  const { shape } = options;
  useEffect(() => {
    const el = container.current;
    if (el === null) return;
    const u = new uPlot({ ...latest.current.make(), width: Math.max(200, el.clientWidth), height: latest.current.height }, latest.current.data, el);
    u.root.dataset.shape = shape;
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
  }, [shape]);

  // At most one draw a frame: the first change schedules it, later ones before it runs only change
  // what it will read. It runs in a task of its own just after the frame (a frame, then a zero
  // timeout), not inside the next frame, which lays out and paints the event list that the same
  // events grew and scrolled.
  const pending = useRef<(() => void) | null>(null);
  const wanted = useRef({ data: options.data, height: options.height });
  const { data, height } = options;
  useEffect(() => {
    wanted.current = { data, height };
    if (plot.current === null || pending.current !== null) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => {
        pending.current = null;
        const u = plot.current;
        if (u === null) return;
        const drawn = wanted.current;
        if (u.height !== drawn.height) u.setSize({ width: u.width, height: drawn.height });
        u.setData(drawn.data, !latest.current.keepZoom());
      }, 0);
    });
    pending.current = () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [data, height]);
  useEffect(() => () => pending.current?.(), []);

  return { container, plot };
}
