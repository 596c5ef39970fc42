import type { ReactNode } from 'react';

/**
 * A block that may scroll (long lines, a height cap, a wide table on a phone). It takes focus, so
 * keyboard users can scroll it, and it is a named region, so a screen reader says what it holds
 * when it gets there (axe: scrollable-region-focusable).
 */
export function ScrollRegion(props: { as?: 'div' | 'pre'; label: string; className: string; testId?: string | undefined; children: ReactNode }) {
  const { as: Element = 'div', label, className, testId, children } = props;
  return (
    <Element className={className} tabIndex={0} role="region" aria-label={label} data-testid={testId}>
      {children}
    </Element>
  );
}
