/** Code without colours: for unknown languages, and while the highlighter loads. */
export function PlainCode({ code }: { code: string }) {
  return (
    <pre className="code code-plain">
      <code>{code}</code>
    </pre>
  );
}
