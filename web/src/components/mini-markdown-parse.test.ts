import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown } from './mini-markdown-parse.ts';

describe('parseInline', () => {
  it('finds bold and code spans', () => {
    expect(parseInline('**T-001:** Add dates — `setDue`')).toEqual([
      { kind: 'strong', text: 'T-001:' },
      { kind: 'text', text: ' Add dates — ' },
      { kind: 'code', text: 'setDue' },
    ]);
    expect(parseInline('a __b__ c')).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'strong', text: 'b' },
      { kind: 'text', text: ' c' },
    ]);
  });

  it('keeps an unclosed marker as text', () => {
    expect(parseInline('2 ** 3 is eight')).toEqual([{ kind: 'text', text: '2 ** 3 is eight' }]);
  });

  it('keeps HTML as literal text, never as markup', () => {
    expect(parseInline('<img src=x onerror=alert(1)> **<b>hi</b>**')).toEqual([
      { kind: 'text', text: '<img src=x onerror=alert(1)> ' },
      { kind: 'strong', text: '<b>hi</b>' },
    ]);
  });
});

describe('parseMarkdown', () => {
  it('turns the interviewer’s TL;DR bullets into a list', () => {
    const blocks = parseMarkdown('- **T-001:** Add due dates — todos carry a date\n- **T-002:** List overdue\n  todos first');
    expect(blocks).toEqual([
      {
        kind: 'list',
        items: [
          [
            { kind: 'strong', text: 'T-001:' },
            { kind: 'text', text: ' Add due dates — todos carry a date' },
          ],
          [
            { kind: 'strong', text: 'T-002:' },
            { kind: 'text', text: ' List overdue todos first' },
          ],
        ],
      },
    ]);
  });

  it('separates paragraphs and lists and drops heading marks', () => {
    const blocks = parseMarkdown('## Summary\nTwo tasks.\r\n\n* one\n1. two\n\nAfter.');
    expect(blocks.map((b) => b.kind)).toEqual(['paragraph', 'list', 'paragraph']);
    expect(blocks[0]).toEqual({ kind: 'paragraph', inline: [{ kind: 'text', text: 'Summary Two tasks.' }] });
    expect(blocks[1]).toMatchObject({ kind: 'list', items: [[{ text: 'one' }], [{ text: 'two' }]] });
  });

  it('gives nothing for an empty string', () => {
    expect(parseMarkdown('')).toEqual([]);
  });
});
