import { useLayoutEffect, useRef, type TextareaHTMLAttributes } from 'react';

/**
 * A textarea as tall as its text, so a long line wraps in view instead of scrolling out of a
 * one-line box. It measures itself when the text changes and when its width does (a narrower
 * screen wraps more lines).
 */
export function AutoGrowTextarea(props: TextareaHTMLAttributes<HTMLTextAreaElement> & { value: string }) {
  const ref = useRef<HTMLTextAreaElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the text is what changes the height; it is measured through the element
  useLayoutEffect(() => {
    const area = ref.current;
    if (area === null) return;
    const fitToText = () => {
      area.style.height = 'auto';
      // scrollHeight leaves out the border, which the box's height includes.
      area.style.height = `${area.scrollHeight + area.offsetHeight - area.clientHeight}px`;
    };
    fitToText();
    let width = area.clientWidth;
    const observer = new ResizeObserver(() => {
      if (area.clientWidth === width) return;
      width = area.clientWidth;
      fitToText();
    });
    observer.observe(area);
    return () => observer.disconnect();
  }, [props.value]);
  return <textarea ref={ref} rows={1} {...props} />;
}
