import { useEffect, useState } from 'react';
import './copy-button.css';

type CopyState = 'idle' | 'copied' | 'failed';

/** How long "Copied" stays before the button reads "Copy" again. */
const CONFIRM_MS = 2000;

/**
 * Copies `text` to the clipboard and says so on the button for a moment. The clipboard can refuse
 * (no permission, an insecure origin); the button then says that, and the text beside it is still
 * there to select by hand.
 */
export function CopyButton({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const [state, setState] = useState<CopyState>('idle');

  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), CONFIRM_MS);
    return () => window.clearTimeout(timer);
  }, [state]);

  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };

  return (
    <button
      type="button"
      className="button button-secondary button-small copy-button"
      aria-label={state === 'idle' ? label : undefined}
      aria-live="polite"
      data-testid={testId}
      data-state={state}
      onClick={copy}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
    </button>
  );
}
