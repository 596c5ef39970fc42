import { useLayoutEffect, useRef, type TextareaHTMLAttributes } from 'react';

/**
 * A textarea as tall as its text, so a long line wraps in view instead of scrolling out of a
 * one-line box. It measures itself when the text changes and when its width does (a narrower
 * screen wraps more lines).
 */
export function AutoGrowTextarea(props: TextareaHTMLAttributes<HTMLTextAreaElement> & { value: string }) {
  const ref = useRef<HTMLTextAreaElement>(null);
  // Measured after every render, which is when the text can have changed: one layout read.
  useLayoutEffect(() => {
    if (ref.current !== null) fitToText(ref.current);
  });
  // A width change (a narrower screen wraps more lines) measures it again.
  useLayoutEffect(() => {
    const area = ref.current;
    if (area === null) return;
    let width = area.clientWidth;
    const observer = new ResizeObserver(() => {
      if (area.clientWidth === width) return;
      width = area.clientWidth;
      fitToText(area);
    });
    observer.observe(area);
    return () => observer.disconnect();
  }, []);
  return <textarea ref={ref} rows={1} {...props} />;
}

function fitToText(area: HTMLTextAreaElement): void {
  area.style.height = 'auto';
  // scrollHeight leaves out the border, which the box's height includes.
  area.style.height = `${area.scrollHeight + area.offsetHeight - area.clientHeight}px`;
}
