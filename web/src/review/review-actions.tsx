import { useState } from 'react';
import type { PrdEntry } from '../../../shared/files.ts';
import type { SessionReview } from '../../../shared/review.ts';
import type { ReviewActions as Ops } from './use-review-actions.ts';
import { DiscardConfirm } from '../components/discard-confirm.tsx';
import { MergeDialog } from './merge-dialog.tsx';
import { RewindDialog } from './rewind-dialog.tsx';
import { ActionRow, type AskAction } from './action-row.tsx';
import { PushConfirm, PushRow, RemotePicker, useRemoteChoice } from './push-action.tsx';
import { PrConfirm, PrRow } from './pr-action.tsx';
import { CleanseConfirm, CleanseRow } from './cleanse-action.tsx';

export interface ReviewActionsProps {
  sessionId: string;
  branch: string;
  baseBranch: string | null;
  actions: SessionReview['actions'];
  /** The plan's tasks: a rewind goes back to after one that is done. */
  tasks: readonly PrdEntry[];
  ops: Ops;
}

/**
 * Getting the work out, each an explicit button behind a confirmation: merge (with its own
 * dialog: strategy, build and test, merge), push, pull request, cleanse, discard. A button the
 * server says may not be pressed now is disabled with the server's reason beside it; a refusal
 * after pressing is shown inline, in the server's words.
 */
export function ReviewActionsPanel({ sessionId, branch, baseBranch, actions, tasks, ops }: ReviewActionsProps) {
  const [merging, setMerging] = useState(false);
  const [rewinding, setRewinding] = useState(false);
  const [asking, setAsking] = useState<AskAction | null>(null);
  const remotes = actions.push.remotes;
  const [remote, setRemote] = useRemoteChoice(remotes);
  const into = baseBranch ?? 'the base branch';
  const stopAsking = () => setAsking(null);

  // A finished merge or rewind is shown again on reopening; anything else starts afresh.
  const openMerge = () => {
    if (ops.merge.data === null) {
      ops.preview.reset();
      ops.merge.reset();
    }
    setMerging(true);
  };
  const openRewind = () => {
    if (ops.rewind.data === null) ops.rewind.reset();
    setRewinding(true);
  };

  return (
    <section className="review-actions panel" aria-labelledby="review-actions-title" data-testid="review-actions">
      <h2 id="review-actions-title">Get the work out</h2>
      <MergeRow into={into} permission={actions.merge} onOpen={openMerge} />
      {remotes.length > 1 && <RemotePicker remotes={remotes} remote={remote} onChoose={setRemote} />}
      <PushRow branch={branch} remote={remote} permission={actions.push} push={ops.push} onAsk={setAsking} />
      <PrRow permission={actions.pr} pr={ops.pr} onAsk={setAsking} />
      <CleanseRow permission={actions.cleanse} cleanse={ops.cleanse} onAsk={setAsking} />
      <RewindRow permission={actions.rewind} onOpen={openRewind} />
      <DiscardRow sessionId={sessionId} discard={ops.discard} />

      <RewindDialog open={rewinding} onClose={() => setRewinding(false)} sessionId={sessionId} tasks={tasks} rewind={ops.rewind} />
      <MergeDialog open={merging} onClose={() => setMerging(false)} into={into} branch={branch} preview={ops.preview} merge={ops.merge} />
      <PushConfirm open={asking === 'push'} branch={branch} remote={remote} push={ops.push} onClose={stopAsking} />
      <PrConfirm open={asking === 'pr'} branch={branch} into={into} remote={remote} gh={actions.pr.gh} pr={ops.pr} onClose={stopAsking} />
      <CleanseConfirm open={asking === 'cleanse'} branch={branch} cleanse={ops.cleanse} onClose={stopAsking} />
    </section>
  );
}

/** Opens the merge dialog, where the merge is built and tested before anything is merged. */
function MergeRow({ into, permission, onOpen }: { into: string; permission: SessionReview['actions']['merge']; onOpen: () => void }) {
  return (
    <ActionRow
      name="merge"
      title={`Merge into ${into}`}
      hint="Builds the merge in a scratch worktree and runs every done task's acceptance test on it first. Your checkout is only touched if all is well, and a backup ref makes it undoable."
      allowed={permission.allowed}
      reason={permission.reason}
      button={
        <button type="button" className="button" data-testid="action-merge" disabled={!permission.allowed} onClick={onOpen}>
          Merge…
        </button>
      }
    />
  );
}

/** Opens the rewind dialog, which shows what a rewind would do before it is confirmed. */
function RewindRow({ permission, onOpen }: { permission: SessionReview['actions']['rewind']; onOpen: () => void }) {
  return (
    <ActionRow
      name="rewind"
      title="Rewind"
      hint="Moves the session branch back to after the seed or a done task, so the run does the later tasks again. The old tip is kept as a backup ref and each reset task's ledger and checks stay readable as earlier attempts."
      allowed={permission.allowed}
      reason={permission.reason}
      button={
        <button type="button" className="button button-secondary" data-testid="action-rewind" disabled={!permission.allowed} onClick={onOpen}>
          Rewind…
        </button>
      }
    />
  );
}

/** Always allowed; the confirmation opens in the row, where the session id is typed. */
function DiscardRow({ sessionId, discard }: { sessionId: string; discard: Ops['discard'] }) {
  const [discarding, setDiscarding] = useState(false);
  return (
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
      result={discarding && <DiscardConfirm id={sessionId} onCancel={() => setDiscarding(false)} onConfirm={discard} />}
    />
  );
}
