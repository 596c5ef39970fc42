import { lazy, Suspense } from 'react';
import { diffTotals } from './diff-model.ts';
import type { DiffViewerProps } from './diff-viewer-body.tsx';

// react-diff-view, its diff engine and the grammars are only needed on the review pages: a chunk
// of their own, loaded when a diff is first shown.
const DiffViewerBody = lazy(async () => ({ default: (await import('./diff-viewer-body.tsx')).DiffViewerBody }));

/** A file list and each file's diff, unified or split, syntax-highlighted; large files collapsed. */
export function DiffViewer(props: DiffViewerProps) {
  const totals = diffTotals(props.diff.files);
  return (
    <Suspense
      fallback={
        <p className="muted" data-testid="diff-loading">
          Loading the diff viewer… ({totals.files} {totals.files === 1 ? 'file' : 'files'})
        </p>
      }
    >
      <DiffViewerBody {...props} />
    </Suspense>
  );
}
