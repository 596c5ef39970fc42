import { lazy, Suspense } from 'react';
import { PlainCode } from './plain-code.tsx';
import './code-view.css';

// The highlighter (Prism and its grammars) is a third of the app's weight and only seed review
// needs it, so it is a separate chunk; the code shows uncoloured until it arrives.
const HighlightedCode = lazy(async () => ({ default: (await import('./highlighted-code.tsx')).HighlightedCode }));

/** A test file, syntax-highlighted by its extension (Python, JavaScript, TypeScript, Go, Rust). */
export function CodeView({ code, path }: { code: string; path: string }) {
  return (
    <Suspense fallback={<PlainCode code={code} label={path} />}>
      <HighlightedCode code={code} path={path} />
    </Suspense>
  );
}
