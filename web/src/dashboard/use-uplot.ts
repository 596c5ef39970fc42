/**
 * A uPlot chart owned by a component: made when its shape changes (series, lanes), fed new data
 * otherwise, and sized to its container. uPlot draws on a canvas, so thousands of points cost a
 * redraw, not thousands of DOM nodes. New data is drawn in the next animation frame, once however
 * often it changed meanwhile: a live run's charts redraw at most once a frame, and not in the
 * same task as the render that brought the data.
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

  const frame = useRef(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: new data or height is what schedules a redraw; the frame reads the latest of both
  useEffect(() => {
    if (plot.current === null || frame.current !== 0) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      const u = plot.current;
      if (u === null) return;
      const { data, height, keepZoom } = latest.current;
      if (u.height !== height) u.setSize({ width: u.width, height });
      u.setData(data, !keepZoom());
    });
  }, [options.data, options.height]);
  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  return { container, plot };
}
