import { ScrollRegion } from './scroll-region.tsx';

/** Code without colours: for unknown languages, and while the highlighter loads. */
export function PlainCode({ code, label }: { code: string; label: string }) {
  return (
    <ScrollRegion as="pre" label={label} className="code code-plain">
      <code>{code}</code>
    </ScrollRegion>
  );
}
