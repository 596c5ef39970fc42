/**
 * The little markdown the interviewer writes (the TL;DR: `- **T-001:** title — outcome`) parsed
 * into plain data: paragraphs and bullet lists of text, bold and code spans. It renders through
 * React elements, never as HTML, so whatever the model wrote shows as text.
 */

export type Inline = { kind: 'text' | 'strong' | 'code'; text: string };
export type Block = { kind: 'paragraph'; inline: Inline[] } | { kind: 'list'; items: Inline[][] };

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/;

/** Bold (`**x**`, `__x__`) and code (`` `x` ``); an unclosed marker is kept as text. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  const push = (kind: Inline['kind'], value: string) => {
    if (value === '') return;
    const last = out.at(-1);
    if (kind === 'text' && last?.kind === 'text') last.text += value;
    else out.push({ kind, text: value });
  };
  const pattern = /`([^`]+)`|\*\*(.+?)\*\*|__(.+?)__/g;
  let at = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    push('text', text.slice(at, match.index));
    if (match[1] !== undefined) push('code', match[1]);
    else push('strong', match[2] ?? match[3] ?? '');
    at = match.index + match[0].length;
  }
  push('text', text.slice(at));
  return out;
}

/**
 * Lines starting with `-`, `*`, `+` or `1.` are list items; an indented line continues the item
 * above it; a blank line ends a paragraph. Headings lose their `#`s (a TL;DR needs no sizes).
 */
export function parseMarkdown(source: string): Block[] {
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let items: string[] | null = null;
  const flushParagraph = () => {
    if (paragraph.length > 0) blocks.push({ kind: 'paragraph', inline: parseInline(paragraph.join(' ')) });
    paragraph = [];
  };
  const flushList = () => {
    if (items !== null) blocks.push({ kind: 'list', items: items.map(parseInline) });
    items = null;
  };
  for (const raw of source.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trimEnd();
    const item = LIST_ITEM.exec(line);
    if (line.trim() === '') {
      flushParagraph();
      flushList();
    } else if (item !== null) {
      flushParagraph();
      items ??= [];
      items.push((item[1] ?? '').trim());
    } else if (items !== null && /^\s+/.test(line) && items.length > 0) {
      items[items.length - 1] += ` ${line.trim()}`;
    } else {
      flushList();
      paragraph.push(line.trim().replace(/^#{1,6}\s+/, ''));
    }
  }
  flushParagraph();
  flushList();
  return blocks;
}
