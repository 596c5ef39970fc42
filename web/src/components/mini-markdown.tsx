import { parseMarkdown, type Inline } from './mini-markdown-parse.ts';

function InlineText({ parts }: { parts: readonly Inline[] }) {
  return (
    <>
      {parts.map((part, i) =>
        part.kind === 'strong' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts parsed from one text, in order and never reordered; the position is their identity
          <strong key={i}>{part.text}</strong>
        ) : part.kind === 'code' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts parsed from one text, in order and never reordered; the position is their identity
          <code key={i}>{part.text}</code>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts parsed from one text, in order and never reordered; the position is their identity
          <span key={i}>{part.text}</span>
        ),
      )}
    </>
  );
}

/** Text from the model, shown with bold, code and bullets; as React text, so never as HTML. */
export function MiniMarkdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      {parseMarkdown(text).map((block, i) =>
        block.kind === 'list' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts parsed from one text, in order and never reordered; the position is their identity
          <ul key={i}>
            {block.items.map((item, j) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: parts parsed from one text, in order and never reordered; the position is their identity
              <li key={j}>
                <InlineText parts={item} />
              </li>
            ))}
          </ul>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts parsed from one text, in order and never reordered; the position is their identity
          <p key={i}>
            <InlineText parts={block.inline} />
          </p>
        ),
      )}
    </div>
  );
}
