import { useState, type ReactNode } from 'react';
import type { PrdEntry } from '../../../shared/files.ts';
import type { SessionReview } from '../../../shared/review.ts';
import type { ActionError, ReviewActions as Ops } from './use-review-actions.ts';
import { DiscardConfirm } from '../components/discard-confirm.tsx';
import { MergeDialog } from './merge-dialog.tsx';
import { RewindDialog } from './rewind-dialog.tsx';
import { ConfirmDialog } from '../components/modal-dialog.tsx';

export interface ReviewActionsProps {
  sessionId: string;
  branch: string;
  baseBranch: string | null;
  actions: SessionReview['actions'];
  /** The plan's tasks: a rewind goes back to after one that is done. */
  tasks: readonly PrdEntry[];
  ops: Ops;
}

type Asking = 'push' | 'pr' | 'cleanse' | null;

/**
 * Getting the work out, each an explicit button behind a confirmation: merge (with its own
 * dialog: strategy, build and test, merge), push, pull request, cleanse, discard. A button the
 * server says may not be pressed now is disabled with the server's reason beside it; a refusal
 * after pressing is shown inline, in the server's words.
 */
export function ReviewActionsPanel({ sessionId, branch, baseBranch, actions, tasks, ops }: ReviewActionsProps) {
  const [merging, setMerging] = useState(false);
  const [rewinding, setRewinding] = useState(false);
  const [asking, setAsking] = useState<Asking>(null);
  const [discarding, setDiscarding] = useState(false);
  const remotes = actions.push.remotes;
  const [remote, setRemote] = useState<string>(() => (remotes.includes('origin') ? 'origin' : (remotes[0] ?? '')));
  const chosenRemote = remotes.includes(remote) ? remote : (remotes[0] ?? '');
  const into = baseBranch ?? 'the base branch';

  const openMerge = () => {
    if (ops.merge.data === null) {
      ops.preview.reset();
      ops.merge.reset();
    }
    setMerging(true);
  };

  return (
    <section className="review-actions panel" aria-labelledby="review-actions-title" data-testid="review-actions">
      <h2 id="review-actions-title">Get the work out</h2>

      <ActionRow
        name="merge"
        title={`Merge into ${into}`}
        hint="Builds the merge in a scratch worktree and runs every done task's acceptance test on it first. Your checkout is only touched if all is well, and a backup ref makes it undoable."
        allowed={actions.merge.allowed}
        reason={actions.merge.reason}
        button={
          <button type="button" className="button" data-testid="action-merge" disabled={!actions.merge.allowed} onClick={openMerge}>
            Merge…
          </button>
        }
      />

      {remotes.length > 1 && (
        <label className="inline-field review-remote">
          <span className="field-label">Remote</span>
          <select className="input select-small" value={chosenRemote} onChange={(e) => setRemote(e.target.value)} data-testid="push-remote">
            {remotes.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
      )}

      <ActionRow
        name="push"
        title={`Push ${branch}${chosenRemote !== '' ? ` to ${chosenRemote}` : ''}`}
        hint="Sends the session branch to the remote under the same name. Nothing is merged."
        allowed={actions.push.allowed}
        reason={actions.push.reason}
        pending={ops.push.pending ? 'Pushing…' : null}
        error={ops.push.error}
        result={
          ops.push.data !== null && (
            <p className="action-result" data-testid="push-result" role="status">
              ✓ Pushed {ops.push.data.branch} to {ops.push.data.remote}.
            </p>
          )
        }
        button={<AskButton action="push" label="Push…" allowed={actions.push.allowed} pending={ops.push.pending} onAsk={setAsking} />}
      />

      <ActionRow
        name="pr"
        title="Open a pull request"
        hint={
          actions.pr.gh ? 'Opens it with gh (installed and signed in).' : 'gh is not signed in here, so you get the host’s compare link to open it yourself.'
        }
        allowed={actions.pr.allowed}
        reason={actions.pr.reason}
        pending={ops.pr.pending ? 'Opening…' : null}
        error={ops.pr.error}
        result={ops.pr.data !== null && <PrLink url={ops.pr.data.url} via={ops.pr.data.via} />}
        button={<AskButton action="pr" label="Open PR…" allowed={actions.pr.allowed} pending={ops.pr.pending} onAsk={setAsking} />}
      />

      <ActionRow
        name="cleanse"
        title="Cleanse"
        hint="Removes the worktree and the session branch, keeps the record (events, ledger, review). Once merged or pushed."
        allowed={actions.cleanse.allowed}
        reason={actions.cleanse.reason}
        pending={ops.cleanse.pending ? 'Cleansing…' : null}
        error={ops.cleanse.error}
        result={
          ops.cleanse.data !== null && (
            <p className="action-result" data-testid="cleanse-result" role="status">
              ✓ Cleansed: {ops.cleanse.data.removed_worktree ? 'worktree removed' : 'no worktree left'},{' '}
              {ops.cleanse.data.removed_branch ? 'branch removed' : 'no branch left'}. The session is archived.
            </p>
          )
        }
        button={<AskButton action="cleanse" label="Cleanse…" allowed={actions.cleanse.allowed} pending={ops.cleanse.pending} onAsk={setAsking} />}
      />

      <ActionRow
        name="rewind"
        title="Rewind"
        hint="Moves the session branch back to after the seed or a done task, so the run does the later tasks again. The old tip is kept as a backup ref and each reset task's ledger and checks stay readable as earlier attempts."
        allowed={actions.rewind.allowed}
        reason={actions.rewind.reason}
        button={
          <button
            type="button"
            className="button button-secondary"
            data-testid="action-rewind"
            disabled={!actions.rewind.allowed}
            onClick={() => {
              if (ops.rewind.data === null) ops.rewind.reset();
              setRewinding(true);
            }}
          >
            Rewind…
          </button>
        }
      />

      <ActionRow
        name="discard"
        title="Discard"
        hint="Deletes the worktree, the branch and the session folder. Merged work stays merged; everything else is gone."
        allowed
        reason={null}
        button={
          <button
            type="button"
            className="button button-danger-outline"
            data-testid="action-discard"
            aria-expanded={discarding}
            onClick={() => setDiscarding((d) => !d)}
          >
            Discard…
          </button>
        }
        result={discarding && <DiscardConfirm id={sessionId} onCancel={() => setDiscarding(false)} onConfirm={ops.discard} />}
      />

      <RewindDialog open={rewinding} onClose={() => setRewinding(false)} sessionId={sessionId} tasks={tasks} rewind={ops.rewind} />

      <MergeDialog open={merging} onClose={() => setMerging(false)} into={into} branch={branch} preview={ops.preview} merge={ops.merge} />

      <ConfirmDialog
        open={asking === 'push'}
        testId="confirm-push"
        title={`Push ${branch}?`}
        confirmLabel={`Push to ${chosenRemote}`}
        onCancel={() => setAsking(null)}
        onConfirm={() => {
          setAsking(null);
          ops.push.reset();
          ops.push.run(chosenRemote);
        }}
      >
        <p>
          This runs{' '}
          <code>
            git push {chosenRemote} {branch}
          </code>{' '}
          from your repository. The branch becomes visible to everyone who can read <strong>{chosenRemote}</strong>.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={asking === 'pr'}
        testId="confirm-pr"
        title="Open a pull request?"
        confirmLabel="Open PR"
        onCancel={() => setAsking(null)}
        onConfirm={() => {
          setAsking(null);
          ops.pr.reset();
          ops.pr.run(chosenRemote === '' ? null : chosenRemote);
        }}
      >
        <p>
          {actions.pr.gh ? (
            <>
              This runs <code>gh pr create</code> for <code>{branch}</code> into <code>{into}</code>. Push the branch first if the remote does not have it.
            </>
          ) : (
            <>
              This gives you the link to compare <code>{branch}</code> with <code>{into}</code> on {chosenRemote || 'the remote'}; push the branch first, then
              open the link to create the request.
            </>
          )}
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={asking === 'cleanse'}
        testId="confirm-cleanse"
        title="Cleanse this session?"
        confirmLabel="Cleanse"
        danger
        onCancel={() => setAsking(null)}
        onConfirm={() => {
          setAsking(null);
          ops.cleanse.reset();
          ops.cleanse.run();
        }}
      >
        <p>
          This removes the worktree and deletes the branch <code>{branch}</code>. The session's record stays and it becomes <strong>archived</strong>.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** Opens the action's confirmation; disabled while the server says no or while it runs. */
function AskButton(props: { action: NonNullable<Asking>; label: string; allowed: boolean; pending: boolean; onAsk: (action: NonNullable<Asking>) => void }) {
  return (
    <button
      type="button"
      className="button button-secondary"
      data-testid={`action-${props.action}`}
      disabled={!props.allowed || props.pending}
      onClick={() => props.onAsk(props.action)}
    >
      {props.label}
    </button>
  );
}

function ActionRow(props: {
  name: string;
  title: string;
  hint: string;
  allowed: boolean;
  reason: string | null;
  button: ReactNode;
  pending?: string | null;
  error?: ActionError | null;
  result?: ReactNode;
}) {
  return (
    <div className="action-row" data-testid={`action-row-${props.name}`} data-allowed={props.allowed}>
      <div className="action-text">
        <h3>{props.title}</h3>
        <p className="muted small">{props.hint}</p>
        {!props.allowed && props.reason !== null && (
          <p className="action-reason small" data-testid={`action-${props.name}-reason`}>
            Not now: {props.reason}.
          </p>
        )}
        {props.pending != null && (
          <p className="action-pending small" role="status">
            <span className="spinner" aria-hidden="true" /> {props.pending}
          </p>
        )}
        {props.error != null && (
          <p className="field-error" role="alert" data-testid="action-error" data-action={props.name} data-code={props.error.code}>
            {props.error.message}
          </p>
        )}
        {props.result}
      </div>
      <div className="action-button">{props.button}</div>
    </div>
  );
}

function PrLink({ url, via }: { url: string; via: 'gh' | 'compare_url' }) {
  // Only web links become links; anything else (an odd gh reply) is shown as text.
  const linkable = /^https?:\/\//i.test(url);
  return (
    <p className="action-result" data-testid="pr-result" data-via={via} role="status">
      {via === 'gh' ? '✓ Pull request opened: ' : 'Open this link to create the pull request: '}
      {linkable ? (
        <a href={url} target="_blank" rel="noopener noreferrer" data-testid="pr-link">
          {url}
        </a>
      ) : (
        <code>{url}</code>
      )}
    </p>
  );
}
