import { useId, useMemo, useState } from 'react';
import { Decoration, Diff as DiffTable, Hunk, parseDiff, type FileData, type ViewType } from 'react-diff-view';
import 'react-diff-view/style/index.css';
import '../components/segmented.css';
import './diff-viewer.css';
import type { Diff, DiffFile } from '../../../shared/review.ts';
import { diffFileViews, diffTotals, languageFor, STATUS_MARK, type DiffFileView } from './diff-model.ts';
import { tokenizeHunks } from './highlight.ts';

export interface DiffViewerProps {
  diff: Diff;
  /** Said when there are no files, e.g. "This task changed no files." */
  emptyText: string;
  testId?: string;
}

const VIEW_KEY = 'tilth.diff-view';

function initialView(): ViewType {
  try {
    return window.localStorage.getItem(VIEW_KEY) === 'split' ? 'split' : 'unified';
  } catch {
    return 'unified';
  }
}

export function DiffViewerBody({ diff, emptyText, testId }: DiffViewerProps) {
  const [view, setView] = useState<ViewType>(initialView);
  const parsed = useMemo(() => parseDiff(diff.text, { nearbySequences: 'zip' }), [diff.text]);
  const files = useMemo(() => diffFileViews<FileData>(diff, parsed), [diff, parsed]);
  const totals = diffTotals(diff.files);
  const idBase = useId();
  const anchor = (i: number) => `${idBase}-file-${i}`;

  const choose = (next: ViewType) => {
    setView(next);
    try {
      window.localStorage.setItem(VIEW_KEY, next);
    } catch {
      // Private mode: the choice lasts for this page only.
    }
  };

  if (files.length === 0) {
    return (
      <p className="muted" data-testid={testId} data-files="0">
        {emptyText}
      </p>
    );
  }

  return (
    <div className="diff-viewer" data-testid={testId} data-files={files.length} data-view={view}>
      <div className="diff-toolbar">
        <span data-testid="diff-totals">
          {totals.files} {totals.files === 1 ? 'file' : 'files'} changed, <span className="diff-add">+{totals.additions}</span>{' '}
          <span className="diff-del">−{totals.deletions}</span>
        </span>
        {/* biome-ignore lint/a11y/useSemanticElements: a fieldset's border, padding and legend do not fit a row of toggle buttons; role=group names the row the same way */}
        <div className="segmented segmented-soft" role="group" aria-label="Diff layout">
          <button type="button" aria-pressed={view === 'unified'} data-testid="diff-view-unified" onClick={() => choose('unified')}>
            Unified
          </button>
          <button type="button" aria-pressed={view === 'split'} data-testid="diff-view-split" onClick={() => choose('split')}>
            Split
          </button>
        </div>
      </div>
      {diff.truncated && (
        <div className="callout callout-warning" role="note" data-testid="diff-truncated">
          This diff is too large to show whole. Every file is listed; those past the cut are not shown here — read them with git.
        </div>
      )}
      <ul className="diff-file-list" data-testid="diff-file-list" aria-label="Files changed">
        {files.map((f, i) => (
          <li key={f.file.path} data-testid="diff-file-list-item" data-path={f.file.path} data-status={f.file.status}>
            <button type="button" className="diff-file-link" onClick={() => document.getElementById(anchor(i))?.scrollIntoView({ block: 'start' })}>
              <StatusMark status={f.file.status} />
              <FilePath file={f.file} />
            </button>
            <FileCounts file={f.file} />
          </li>
        ))}
      </ul>
      {files.map((f, i) => (
        <DiffFileSection key={f.file.path} id={anchor(i)} view={f} viewType={view} />
      ))}
    </div>
  );
}

function StatusMark({ status }: { status: DiffFile['status'] }) {
  return (
    <span className={`diff-status diff-status-${status}`} title={status} role="img" aria-label={status}>
      {STATUS_MARK[status]}
    </span>
  );
}

function FilePath({ file }: { file: DiffFile }) {
  return (
    <span className="diff-path mono">
      {file.old_path !== null && file.old_path !== file.path && (
        <>
          <span className="muted">{file.old_path}</span> →{' '}
        </>
      )}
      {file.path}
    </span>
  );
}

function FileCounts({ file }: { file: DiffFile }) {
  if (file.binary) return <span className="badge diff-binary-badge">binary</span>;
  return (
    <span className="diff-counts">
      <span className="diff-add">+{file.additions}</span> <span className="diff-del">−{file.deletions}</span>
    </span>
  );
}

function DiffFileSection({ id, view, viewType }: { id: string; view: DiffFileView<FileData>; viewType: ViewType }) {
  const { file, body, large } = view;
  // Large files start folded; any file can be folded away once read.
  const [open, setOpen] = useState(!large);
  return (
    <section className="diff-file" id={id} data-testid="diff-file" data-path={file.path} data-body={body} data-open={open} aria-label={file.path}>
      <header className="diff-file-head">
        <button type="button" className="disclosure" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="diff-file-toggle">
          <span className="disclosure-mark" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          <StatusMark status={file.status} />
          <FilePath file={file} />
        </button>
        <FileCounts file={file} />
      </header>
      {open ? (
        <FileBody view={view} viewType={viewType} />
      ) : large ? (
        <div className="diff-note diff-collapsed" data-testid="diff-collapsed">
          <span>A large change: {view.changedLines.toLocaleString()} lines. It is folded so the page stays quick.</span>
          <button type="button" className="button button-secondary button-small" data-testid="diff-expand" onClick={() => setOpen(true)}>
            Show the diff
          </button>
        </div>
      ) : null}
    </section>
  );
}

function FileBody({ view, viewType }: { view: DiffFileView<FileData>; viewType: ViewType }) {
  switch (view.body) {
    case 'binary':
      return (
        <p className="diff-note" data-testid="diff-binary">
          Binary file — not shown.
        </p>
      );
    case 'no-text':
      return <p className="diff-note">{view.file.status === 'renamed' ? 'Renamed without changes.' : 'No text changes (an empty file or a mode change).'}</p>;
    case 'not-included':
      return (
        <p className="diff-note" data-testid="diff-not-included">
          Not shown: the diff was cut before this file.
        </p>
      );
    case 'hunks':
      return view.parsed === null ? null : <FileHunks parsed={view.parsed} path={view.file.path} viewType={viewType} />;
  }
}

function FileHunks({ parsed, path, viewType }: { parsed: FileData; path: string; viewType: ViewType }) {
  const language = languageFor(path);
  const tokens = useMemo(() => tokenizeHunks(parsed.hunks, language), [parsed.hunks, language]);
  return (
    <div className="diff-scroll">
      <DiffTable
        viewType={viewType}
        diffType={parsed.type}
        hunks={parsed.hunks}
        tokens={tokens}
        className={language === null ? 'diff-plain' : `diff-${language}`}
      >
        {(hunks) =>
          hunks.flatMap((hunk) => [
            <Decoration key={`decoration-${hunk.content}`} className="diff-hunk-head">
              {hunk.content}
            </Decoration>,
            <Hunk key={`hunk-${hunk.content}`} hunk={hunk} />,
          ])
        }
      </DiffTable>
    </div>
  );
}
