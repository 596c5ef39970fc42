/**
 * Sending a done task back (issue 15): the reviewer's note and the open comments on the task's
 * diff become the next revision's requirements. And what each earlier send-back asked for.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Fragment, useEffect, useRef, useState } from 'react';
import { DEMO_SEND_BACK_ASKS } from '../../../shared/demo.ts';
import type { SendBack } from '../../../shared/files.ts';
import type { ReviewComment } from '../../../shared/review.ts';
import { formatTime } from '../../../shared/format.ts';
import { queryKeys } from '../api/queries.ts';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';
import { review } from './review-api.ts';
import { reviewKeys } from './queries.ts';
import { actionError } from './use-review-actions.ts';
import { ScrollRegion } from '../components/scroll-region.tsx';

export interface SendBackPanelProps {
  sessionId: string;
  taskId: string;
  /** The revision the task is at now (1 before any send-back). */
  revision: number;
  /** The open (unsent) comments written on this task's diff. */
  openComments: readonly ReviewComment[];
  /** A demo session: the scripted model acts only on the notes it has code for, so the form lists them. */
  demo?: boolean;
  /** A note offered from elsewhere on the page (the mutation probe's survivors): it fills the note when it changes. */
  suggested?: { text: string; nonce: number } | null;
}

/** The note, the comments to send (all ticked at first), and the button. */
export function SendBackPanel({ sessionId, taskId, revision, openComments, demo = false, suggested = null }: SendBackPanelProps) {
  const queryClient = useQueryClient();
  const [note, setNote] = useState('');
  const [unticked, setUnticked] = useState<ReadonlySet<string>>(new Set());
  // A new set of open comments (one added or sent meanwhile) starts ticked: the choice is reset
  // while that list renders, as state that follows a prop is, rather than by an effect after it.
  const ids = openComments.map((c) => c.id).join(',');
  const [tickedFor, setTickedFor] = useState(ids);
  if (tickedFor !== ids) {
    setTickedFor(ids);
    setUnticked(new Set());
  }
  const chosen = openComments.filter((c) => !unticked.has(c.id));
  const send = useMutation({
    mutationFn: () => review.reopenTask({ sessionId, taskId, note, commentIds: chosen.map((c) => c.id) }),
    onSuccess: () => setNote(''),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: reviewKeys.session(sessionId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.sessionDetail(sessionId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.sessions }),
      ]),
  });

  // A suggested note fills the form, and the form comes into view with the note in focus.
  const noteRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (suggested === null) return;
    setNote(suggested.text);
    noteRef.current?.scrollIntoView({ block: 'center' });
    noteRef.current?.focus();
  }, [suggested]);

  const error = actionError(send.error);
  const empty = note.trim() === '' && chosen.length === 0;
  return (
    <form
      className="send-back"
      data-testid="send-back-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!empty && !send.isPending) send.mutate();
      }}
    >
      <p className="muted">
        Not right yet? Send {taskId} back: the worker gets a fresh start on it with your note, the comments you tick (each with the lines it is on), its last
        case and the evaluator's verdict. Its work is committed on top as “{taskId} (rev {revision + 1})”; nothing earlier is rewritten.
      </p>
      {demo && (
        <div className="muted small" data-testid="send-back-demo">
          The demo model is scripted, not AI: it acts on a note that asks it to
          <ul>
            {DEMO_SEND_BACK_ASKS.map((ask) => (
              <li key={ask}>{ask}</li>
            ))}
          </ul>
          and says so when a note asks for anything else.
        </div>
      )}
      <label className="field">
        <span className="field-label">Note to the worker</span>
        <textarea
          className="input textarea"
          rows={3}
          maxLength={10_000}
          ref={noteRef}
          value={note}
          data-testid="send-back-note"
          placeholder="What should change, in a sentence or two"
          onChange={(e) => setNote(e.target.value)}
        />
      </label>
      {openComments.length === 0 ? (
        <p className="muted small" data-testid="send-back-no-comments">
          No open comments on this task's diff: add one with the + beside a line.
        </p>
      ) : (
        <fieldset className="send-back-comments">
          <legend className="field-label">Comments to send</legend>
          {openComments.map((c) => (
            <label key={c.id} className="send-back-check" data-testid="send-back-comment">
              <input
                type="checkbox"
                checked={!unticked.has(c.id)}
                onChange={(e) => {
                  const next = new Set(unticked);
                  if (e.target.checked) next.delete(c.id);
                  else next.add(c.id);
                  setUnticked(next);
                }}
              />
              <span className="mono small">{`${c.file}:${c.line}`}</span> {c.text}
            </label>
          ))}
        </fieldset>
      )}
      {error !== null && (
        <p className="field-error" role="alert" data-testid="send-back-error" data-code={error.code}>
          {error.message}
        </p>
      )}
      <button type="submit" className="button" data-testid="send-back-submit" disabled={empty || send.isPending}>
        {send.isPending ? 'Sending…' : `Send back as revision ${revision + 1}`}
      </button>
    </form>
  );
}

/** A revision that was asked for and has not been accepted yet: where to run it. */
export function SendBackPending({ sessionId, taskId, revision, status }: { sessionId: string; taskId: string; revision: number; status: string }) {
  return (
    <div className="callout send-back-done" role="status" data-testid="send-back-pending" data-revision={revision}>
      <p>
        {taskId} was sent back as revision {revision} and is {status === 'in_progress' ? 'being worked on' : 'waiting for a run'}.
      </p>
      <Link to={paths.session(sessionId)} className="button button-small" testId="send-back-go-run">
        Go to the session to run it
      </Link>
    </div>
  );
}

/**
 * What each send-back asked for, oldest first: the note and each comment at its lines. `unchanged`:
 * the revisions accepted with no change to the code (nothing committed), said plainly under each.
 */
export function SendBackHistory({ sendBacks, unchanged = [] }: { sendBacks: readonly SendBack[]; unchanged?: readonly number[] }) {
  if (sendBacks.length === 0) return null;
  return (
    <ol className="send-back-history" data-testid="send-back-history">
      {sendBacks.map((s) => (
        <li key={s.revision} className="send-back-entry" data-testid="send-back-entry" data-revision={s.revision}>
          <h3 className="section-label">
            Revision {s.revision} asked for <span className="muted">· {formatTime(s.ts)}</span>
          </h3>
          {s.note !== null && <p data-testid="send-back-entry-note">{s.note}</p>}
          {unchanged.includes(s.revision) && (
            <p className="callout callout-warning" role="note" data-testid="send-back-unchanged">
              Revision {s.revision} changed nothing: its case was accepted with no change to the code, so nothing was committed for it. Read the verdict below;
              send it back again if it missed what you asked.
            </p>
          )}
          {s.comments.map((c) => (
            <figure key={c.id} className="send-back-comment-quote" data-testid="send-back-entry-comment">
              <figcaption>
                <span className="mono small">{`${c.file}:${c.line}`}</span> {c.text}
              </figcaption>
              {c.excerpt !== null && (
                <ScrollRegion as="pre" label={`${c.file} around line ${c.line}`} className="send-back-excerpt">
                  {c.excerpt.lines.map((line, j) => {
                    const n = c.excerpt!.start + j;
                    // The line break stays outside the line's box: inside the anchor's
                    // inline-block it would end the box, not the line, and push the next line aside.
                    return (
                      <Fragment key={n}>
                        <span className={n === c.line ? 'excerpt-anchor' : undefined} data-testid="excerpt-line" data-line={n}>
                          {`${String(n).padStart(4)}  ${line}`}
                        </span>
                        {'\n'}
                      </Fragment>
                    );
                  })}
                </ScrollRegion>
              )}
            </figure>
          ))}
        </li>
      ))}
    </ol>
  );
}
