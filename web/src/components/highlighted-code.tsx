import { Highlight, type PrismTheme } from 'prism-react-renderer';
import { languageOf } from './code-language.ts';
import { PlainCode } from './plain-code.tsx';
import { ScrollRegion } from './scroll-region.tsx';

/**
 * Colours come from `code-view.css` (`.code .token.keyword` …) rather than a theme object, so the
 * palette lives with the rest of the styles. Prism tokenizes into React elements: no HTML string
 * is ever injected, and nothing is evaluated (the CSP has no 'unsafe-eval').
 */
const CLASS_ONLY_THEME: PrismTheme = { plain: {}, styles: [] };

/** Loaded on demand by `CodeView` (`code-view.tsx`): Prism is most of its weight. */
export function HighlightedCode({ code, path }: { code: string; path: string }) {
  const language = languageOf(path);
  if (language === null) return <PlainCode code={code} label={path} />;
  return (
    <Highlight code={code.replace(/\n$/, '')} language={language} theme={CLASS_ONLY_THEME}>
      {({ tokens, getLineProps, getTokenProps }) => (
        <ScrollRegion as="pre" label={path} className={`code language-${language}`}>
          <code>
            {tokens.map((line, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: lines and tokens of one code text, in order; the position is their identity
              <div key={i} {...getLineProps({ line })}>
                {line.map((token, j) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: lines and tokens of one code text, in order; the position is their identity
                  <span key={j} {...getTokenProps({ token })} />
                ))}
              </div>
            ))}
          </code>
        </ScrollRegion>
      )}
    </Highlight>
  );
}
