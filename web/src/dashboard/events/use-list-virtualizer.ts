/**
 * The event list's virtualizer: TanStack's `Virtualizer` on an element, re-rendering the list
 * only when what it shows changes (the rows in range, their sizes), not when scrolling merely
 * starts or stops. `useVirtualizer` re-renders on both, and a live list that follows the newest
 * events scrolls on every update: the stop alone cost the list a re-render (and the frame a
 * task) 150 ms after each one. The list never reads `isScrolling`.
 */
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer, type VirtualizerOptions } from '@tanstack/react-virtual';
import { useLayoutEffect, useReducer, useRef, useState } from 'react';
import { flushSync } from 'react-dom';

export type ListVirtualizer = Virtualizer<HTMLDivElement, Element>;

type ListOptions = Omit<VirtualizerOptions<HTMLDivElement, Element>, 'observeElementRect' | 'observeElementOffset' | 'scrollToFn' | 'onChange'>;

export function useListVirtualizer(options: ListOptions): ListVirtualizer {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const scrolling = useRef(false);
  /** The rows in range at the last commit. */
  const shown = useRef<{ start: number; end: number } | null>(null);
  /** Measuring runs inside React's commit (a ref callback), where `flushSync` may not be called. */
  const measuring = useRef(false);
  const full: VirtualizerOptions<HTMLDivElement, Element> = {
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    ...options,
    onChange: (instance, sync) => {
      const range = instance.range;
      const wasScrolling = scrolling.current;
      scrolling.current = instance.isScrolling;
      const sameRows = range !== null && shown.current !== null && range.startIndex === shown.current.start && range.endIndex === shown.current.end;
      if (instance.isScrolling !== wasScrolling && sameRows) return;
      // A scroll that brings new rows into view renders them before the frame paints, as
      // `useVirtualizer` does.
      if (sync && !measuring.current) flushSync(rerender);
      else rerender();
    },
  };
  const [virtualizer] = useState(() => {
    const instance = new Virtualizer(full);
    const measure = instance.measureElement;
    instance.measureElement = (node) => {
      measuring.current = true;
      try {
        measure(node);
      } finally {
        measuring.current = false;
      }
    };
    return instance;
  });
  virtualizer.setOptions(full);
  useLayoutEffect(() => virtualizer._didMount(), [virtualizer]);
  useLayoutEffect(() => {
    const range = virtualizer.range;
    shown.current = range === null ? null : { start: range.startIndex, end: range.endIndex };
    return virtualizer._willUpdate();
  });
  return virtualizer;
}
