/**
 * A uPlot chart owned by a component: made when its shape changes (series, lanes), fed new data
 * otherwise, and sized to its container. uPlot draws on a canvas, so thousands of points cost a
 * redraw, not thousands of DOM nodes.
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

  useEffect(() => {
    const u = plot.current;
    if (u === null) return;
    if (u.height !== options.height) u.setSize({ width: u.width, height: options.height });
    u.setData(options.data, !latest.current.keepZoom());
  }, [options.data, options.height]);

  return { container, plot };
}
