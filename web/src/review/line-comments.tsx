import { useEffect, useRef, useState } from 'react';
import type { ReviewComment } from '../../../shared/review.ts';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import type { NewComment } from './review-api.ts';
import { commentAnchor, commentPlace, type CommentSide } from './comment-model.ts';
import { commentError } from './use-comments.ts';
import './line-comments.css';

/** What the diff viewer needs to show and write line comments on one diff. */
export interface DiffComments {
  /** The task whose diff this is; null on the session diff. */
  taskId: string | null;
  /** The comments written on this diff (the viewer places them under their lines). */
  items: readonly ReviewComment[];
  /** Whether comments may be written and changed now (the session is reviewable). */
  canWrite: boolean;
  add: (comment: NewComment) => Promise<ReviewComment>;
  edit: (commentId: string, text: string) => Promise<unknown>;
  remove: (commentId: string) => Promise<unknown>;
}

/** A line a new comment is being written on. */
export interface DraftLine {
  file: string;
  side: CommentSide;
  line: number;
}

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * The comment to focus when its card appears: the one just saved. The form that had focus goes
 * away on save; without this the keyboard would be left on the page's body.
 */
let focusOnMount: string | null = null;

/** Back to the line's "+" after a new comment is cancelled, so the keyboard stays where it was. */
function focusLineButton(draft: DraftLine): void {
  const selector = `[data-testid="comment-add"][data-line="${draft.line}"][data-side="${draft.side}"]`;
  const file = [...document.querySelectorAll<HTMLElement>('[data-testid="diff-file"]')].find((f) => f.dataset.path === draft.file);
  file?.querySelector<HTMLElement>(selector)?.focus();
}

/** The comments under one diff line, and the form for a new one when it is open there. */
export function LineCommentThread(props: { comments: readonly ReviewComment[]; diff: DiffComments; draft: DraftLine | null; onDraftDone: () => void }) {
  const { comments, diff, draft } = props;
  return (
    <div className="line-comments" data-testid="line-comments">
      {comments.map((c) => (
        <CommentCard key={c.id} comment={c} diff={diff} />
      ))}
      {draft !== null && (
        <CommentForm
          label={`Comment on ${commentPlace(draft)}`}
          initial=""
          saveLabel="Comment"
          onSave={async (text) => {
            const saved = await diff.add({ task_id: diff.taskId, file: draft.file, side: draft.side, line: draft.line, text });
            focusOnMount = saved.id;
            props.onDraftDone();
          }}
          onCancel={() => {
            props.onDraftDone();
            requestAnimationFrame(() => focusLineButton(draft));
          }}
        />
      )}
    </div>
  );
}

function CommentCard({ comment, diff }: { comment: ReviewComment; diff: DiffComments }) {
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const card = useRef<HTMLElement>(null);
  // Just saved (new, or edited and closed): the keyboard lands on the comment.
  const refocus = useRef(false);
  useEffect(() => {
    if (editing) return;
    if (focusOnMount === comment.id || refocus.current) {
      focusOnMount = null;
      refocus.current = false;
      card.current?.focus();
    }
  }, [editing, comment.id]);
  const [busy, setBusy] = useState(false);
  if (editing) {
    return (
      <CommentForm
        label={`Edit the comment on ${commentPlace(comment)}`}
        initial={comment.text}
        saveLabel="Save"
        onSave={async (text) => {
          await diff.edit(comment.id, text);
          refocus.current = true;
          setEditing(false);
        }}
        onCancel={() => {
          refocus.current = true;
          setEditing(false);
        }}
      />
    );
  }
  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await diff.remove(comment.id);
    } catch (err) {
      setError(commentError(err).message);
      setBusy(false);
    }
  };
  return (
    <article
      ref={card}
      className="line-comment"
      id={commentAnchor(comment.id)}
      tabIndex={-1}
      data-testid="line-comment"
      data-comment-id={comment.id}
      data-sent={comment.sent !== null}
      aria-label={`Comment on ${commentPlace(comment)}`}
    >
      <header className="line-comment-head">
        <time dateTime={comment.ts} className="muted small">
          {when(comment.ts)}
        </time>
        {comment.sent !== null ? (
          <SentBadge sent={comment.sent} />
        ) : (
          diff.canWrite && (
            <span className="line-comment-actions">
              <button type="button" className="button button-plain button-small" data-testid="comment-edit" onClick={() => setEditing(true)} disabled={busy}>
                Edit
              </button>
              <button type="button" className="button button-plain button-small" data-testid="comment-delete" onClick={() => void remove()} disabled={busy}>
                Delete
              </button>
            </span>
          )
        )}
      </header>
      <p className="line-comment-text" data-testid="comment-text">
        {comment.text}
      </p>
      {error !== null && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </article>
  );
}

function SentBadge({ sent }: { sent: NonNullable<ReviewComment['sent']> }) {
  return (
    <span className="badge badge-sent" data-testid="comment-sent" title={`Sent back with ${sent.task_id} on ${when(sent.ts)}`}>
      sent with rev {sent.revision}
    </span>
  );
}

function CommentForm(props: { label: string; initial: string; saveLabel: string; onSave: (text: string) => Promise<void>; onCancel: () => void }) {
  const [text, setText] = useState(props.initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const save = async () => {
    if (text.trim() === '' || busy) return;
    setBusy(true);
    setError(null);
    try {
      await props.onSave(text.trim());
    } catch (err) {
      setError(commentError(err).message);
      setBusy(false);
    }
  };
  return (
    <form
      className="line-comment-form"
      data-testid="comment-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') props.onCancel();
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          void save();
        }
      }}
    >
      <textarea
        className="input textarea"
        aria-label={props.label}
        data-testid="comment-input"
        rows={3}
        value={text}
        // The form opens because the reviewer asked for it on this line: typing goes straight in.
        // biome-ignore lint/a11y/noAutofocus: opened by an explicit click on the line, not on page load
        autoFocus
        maxLength={10_000}
        onChange={(e) => setText(e.target.value)}
      />
      {error !== null && (
        <p className="field-error" role="alert" data-testid="comment-error">
          {error}
        </p>
      )}
      <div className="line-comment-form-actions">
        <button type="submit" className="button button-small" data-testid="comment-save" disabled={busy || text.trim() === ''}>
          {busy ? 'Saving…' : props.saveLabel}
        </button>
        <button type="button" className="button button-secondary button-small" data-testid="comment-cancel" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * Every comment of the page in one list: where it is (a button that scrolls to it when it is
 * shown on the diff), its words and its state. On the session review, comments written on a task
 * diff link to that task's review.
 */
export function CommentsSection(props: {
  id: string;
  sessionId: string;
  comments: readonly ReviewComment[] | null;
  loadError: Error | null;
  /** The session review lists every comment and names each one's task. */
  showTask: boolean;
  canWrite: boolean;
}) {
  const { comments } = props;
  const titleId = `${props.id}-title`;
  return (
    <section id={props.id} className="review-section" aria-labelledby={titleId} data-testid="comments-section">
      <h2 id={titleId}>Comments ({comments?.length ?? 0})</h2>
      {props.loadError !== null ? (
        <p className="field-error" role="alert">
          Could not load the comments: {props.loadError.message}
        </p>
      ) : comments === null ? (
        <p className="muted">Loading the comments…</p>
      ) : comments.length === 0 ? (
        <p className="muted" data-testid="comments-empty">
          {props.canWrite
            ? 'No comments yet. Hover a line of the diff (or tab to it) and press + to write one.'
            : 'No comments. Comments can be written once the run is over or stopped.'}
        </p>
      ) : (
        <ul className="comment-list" data-testid="comment-list">
          {comments.map((c) => (
            <li key={c.id} className="comment-list-item" data-testid="comment-list-item" data-comment-id={c.id} data-sent={c.sent !== null}>
              <div className="comment-list-where">
                {props.showTask && (
                  <span className="comment-list-task">
                    {c.task_id === null ? (
                      <span className="muted small">session diff</span>
                    ) : (
                      <Link to={paths.taskReview(props.sessionId, c.task_id)} className="mono small">
                        {c.task_id}
                      </Link>
                    )}
                  </span>
                )}
                <button type="button" className="comment-list-place mono" data-testid="comment-list-place" onClick={() => scrollToComment(c.id)}>
                  {commentPlace(c)}
                </button>
                {c.sent !== null ? <SentBadge sent={c.sent} /> : <span className="badge">not sent</span>}
              </div>
              <p className="comment-list-text" data-testid="comment-list-text">
                {c.text}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Brings an inline comment into view and focus; nothing happens when its line is not shown (a folded file, another diff). */
function scrollToComment(id: string): void {
  const el = document.getElementById(commentAnchor(id));
  if (el === null) return;
  el.scrollIntoView({ block: 'center' });
  el.focus({ preventScroll: true });
}
