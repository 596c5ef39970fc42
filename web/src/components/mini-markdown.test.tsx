import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MiniMarkdown } from './mini-markdown.tsx';

describe('MiniMarkdown', () => {
  it('renders bullets and bold as elements', () => {
    expect(renderToStaticMarkup(<MiniMarkdown text={'- **T-001:** Add dates'} />)).toBe(
      '<div class="markdown"><ul><li><strong>T-001:</strong><span> Add dates</span></li></ul></div>',
    );
  });

  it('escapes whatever HTML the model wrote', () => {
    const html = renderToStaticMarkup(<MiniMarkdown text={'<script>alert(1)</script>\n- **<img src=x onerror=alert(1)>**'} />);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('<strong>&lt;img src=x onerror=alert(1)&gt;</strong>');
  });
});
