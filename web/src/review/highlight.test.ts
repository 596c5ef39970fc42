import { parseDiff, type TokenNode } from 'react-diff-view';
import { describe, expect, it } from 'vitest';
import { tokenizeHunks } from './highlight.ts';

const TEXT = [
  'diff --git a/src/a.js b/src/a.js',
  'index 1111111..2222222 100644',
  '--- a/src/a.js',
  '+++ b/src/a.js',
  '@@ -1,2 +1,2 @@',
  ' // unchanged',
  '-export const answer = 41;',
  '+export const answer = 42;',
  '',
].join('\n');

function classes(nodes: readonly TokenNode[], out: string[] = []): string[] {
  for (const n of nodes) {
    const cls =
      (n as { className?: unknown; properties?: { className?: unknown } }).className ?? (n as { properties?: { className?: unknown } }).properties?.className;
    if (typeof cls === 'string') out.push(cls);
    else if (Array.isArray(cls)) out.push(cls.join(' '));
    if (n.type === 'edit') out.push('edit');
    if ('children' in n && Array.isArray(n.children)) classes(n.children as TokenNode[], out);
  }
  return out;
}

describe('tokenizeHunks', () => {
  const hunks = parseDiff(TEXT)[0]!.hunks;

  it('colours a known language with refractor 4 and marks the changed word', () => {
    const tokens = tokenizeHunks(hunks, 'javascript');
    expect(tokens).not.toBeNull();
    const newLine = classes(tokens!.new[1] ?? []);
    expect(newLine.some((c) => c.includes('keyword'))).toBe(true);
    expect(newLine.some((c) => c.includes('number'))).toBe(true);
    expect(newLine).toContain('edit');
    expect(classes(tokens!.old[0] ?? []).some((c) => c.includes('comment'))).toBe(true);
  });

  it('still marks edits, without colours, for an unknown language', () => {
    const tokens = tokenizeHunks(hunks, null);
    expect(tokens).not.toBeNull();
    const newLine = classes(tokens!.new[1] ?? []);
    expect(newLine.some((c) => c.includes('keyword'))).toBe(false);
    expect(newLine).toContain('edit');
  });
});
