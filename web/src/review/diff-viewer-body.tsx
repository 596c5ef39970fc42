import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { Decoration, Diff as DiffTable, Hunk, parseDiff, type FileData, type GutterOptions, type ViewType } from 'react-diff-view';
import 'react-diff-view/style/index.css';
import '../components/segmented.css';
import './diff-viewer.css';
import type { Diff, DiffFile } from '../../../shared/review.ts';
import { diffFileViews, diffTotals, languageFor, STATUS_MARK, type DiffFileView } from './diff-model.ts';
import { tokenizeHunks } from './highlight.ts';
import { changeKeysByLine, commentsByChange, commentTarget, lineKey } from './comment-model.ts';
import { LineCommentThread, type DiffComments, type DraftLine } from './line-comments.tsx';

export interface DiffViewerProps {
  diff: Diff;
  /** Said when there are no files, e.g. "This task changed no files." */
  emptyText: string;
  testId?: string;
  /** Line comments on this diff: shown under their lines, written from a line's "+" button. */
  comments?: DiffComments;
}

/** What a file section needs to show its comments and the open form. */
interface FileComments {
  diff: DiffComments;
  draft: DraftLine | null;
  setDraft: (draft: DraftLine | null) => void;
}

const VIEW_KEY = 'tilth.diff-view';

function initialView(): ViewType {
  try {
    return window.localStorage.getItem(VIEW_KEY) === 'split' ? 'split' : 'unified';
  } catch {
    return 'unified';
  }
}

export function DiffViewerBody({ diff, emptyText, testId, comments }: DiffViewerProps) {
  const [view, setView] = useState<ViewType>(initialView);
  const [draft, setDraft] = useState<DraftLine | null>(null);
  const fileComments: FileComments | null = comments === undefined ? null : { diff: comments, draft, setDraft };
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
        <DiffFileSection key={f.file.path} id={anchor(i)} view={f} viewType={view} comments={fileComments} />
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

function DiffFileSection({ id, view, viewType, comments }: { id: string; view: DiffFileView<FileData>; viewType: ViewType; comments: FileComments | null }) {
  const { file, body, large } = view;
  // Large files start folded (unless a comment is written on them); any file can be folded away once read.
  const [open, setOpen] = useState(() => !large || (comments?.diff.items.some((c) => c.file === file.path) ?? false));
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
        <FileBody view={view} viewType={viewType} comments={comments} />
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

function FileBody({ view, viewType, comments }: { view: DiffFileView<FileData>; viewType: ViewType; comments: FileComments | null }) {
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
      return view.parsed === null ? null : <FileHunks parsed={view.parsed} path={view.file.path} viewType={viewType} comments={comments} />;
  }
}

/** The keys that move focus along a file's "+" buttons. */
const ROVING_KEYS = new Set(['ArrowDown', 'ArrowUp', 'Home', 'End']);

function FileHunks({ parsed, path, viewType, comments }: { parsed: FileData; path: string; viewType: ViewType; comments: FileComments | null }) {
  const language = languageFor(path);
  const tokens = useMemo(() => tokenizeHunks(parsed.hunks, language), [parsed.hunks, language]);
  const keys = useMemo(() => changeKeysByLine(parsed.hunks), [parsed.hunks]);
  const widgets = useMemo(() => (comments === null ? {} : commentWidgets(comments, path, keys)), [comments, path, keys]);
  const commentable = comments?.diff.canWrite ? comments : null;
  const scroll = useRef<HTMLDivElement>(null);
  // One tab stop per file for its "+" buttons (a roving tabindex): Tab reaches the first, the
  // arrow keys (and Home, End) move along the lines, and the next Tab leaves the diff.
  useEffect(() => {
    const buttons = [...(scroll.current?.querySelectorAll<HTMLButtonElement>('[data-testid="comment-add"]') ?? [])];
    const stop = buttons.find((b) => b.dataset.roving === 'on') ?? buttons[0];
    if (stop === undefined) return;
    stop.dataset.roving = 'on';
    for (const b of buttons) b.tabIndex = b === stop ? 0 : -1;
  });
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const from = event.target as HTMLElement;
    if (from.dataset.testid !== 'comment-add' || !ROVING_KEYS.has(event.key)) return;
    const buttons = [...(scroll.current?.querySelectorAll<HTMLButtonElement>('[data-testid="comment-add"]') ?? [])];
    const at = buttons.indexOf(from as HTMLButtonElement);
    const to = event.key === 'Home' ? 0 : event.key === 'End' ? buttons.length - 1 : at + (event.key === 'ArrowDown' ? 1 : -1);
    const next = buttons[Math.max(0, Math.min(buttons.length - 1, to))];
    if (next === undefined || next === from) return;
    event.preventDefault();
    for (const b of buttons) {
      b.tabIndex = b === next ? 0 : -1;
      delete b.dataset.roving;
    }
    next.dataset.roving = 'on';
    next.focus();
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the keys move between the "+" buttons inside; the div itself takes no focus
    <div className="diff-scroll" ref={scroll} onKeyDown={onKeyDown}>
      <DiffTable
        viewType={viewType}
        diffType={parsed.type}
        hunks={parsed.hunks}
        tokens={tokens}
        widgets={widgets}
        className={language === null ? 'diff-plain' : `diff-${language}`}
        {...(commentable !== null
          ? { gutterClassName: 'diff-gutter-commentable', renderGutter: (options: GutterOptions) => commentGutter(options, path, commentable.setDraft) }
          : {})}
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

/** Under each line with comments (or the open form), a row with them. */
function commentWidgets(comments: FileComments, path: string, keys: ReadonlyMap<string, string>): Record<string, ReactNode> {
  const byChange = commentsByChange(comments.diff.items, path, keys);
  const { draft } = comments;
  const draftKey = draft?.file === path ? keys.get(lineKey(draft.side, draft.line)) : undefined;
  if (draftKey !== undefined && !byChange.has(draftKey)) byChange.set(draftKey, []);
  const widgets: Record<string, ReactNode> = {};
  for (const [key, list] of byChange) {
    widgets[key] = (
      <LineCommentThread comments={list} diff={comments.diff} draft={key === draftKey ? draft : null} onDraftDone={() => comments.setDraft(null)} />
    );
  }
  return widgets;
}

/**
 * The line number, and on the side a comment is written on (the new side, or the old one for a
 * removed line) a "+" that opens the form under the line. It is a real button, so it can be
 * reached with Tab as well as by hovering the line.
 */
function commentGutter({ change, side, renderDefault }: GutterOptions, path: string, setDraft: (draft: DraftLine) => void): ReactNode {
  const target = commentTarget(change);
  if (side !== target.side) return renderDefault();
  return (
    <>
      <button
        type="button"
        className="diff-comment-add"
        aria-label={`Comment on ${path} line ${target.line}${target.side === 'old' ? ' (old)' : ''}`}
        title="Comment on this line"
        data-testid="comment-add"
        data-line={target.line}
        data-side={target.side}
        onClick={() => setDraft({ file: path, ...target })}
      >
        +
      </button>
      {renderDefault()}
    </>
  );
}
