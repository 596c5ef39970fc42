import type { SessionReview } from '../../../shared/review.ts';
import { ConfirmDialog } from '../components/modal-dialog.tsx';
import { ActionRow, AskButton, type AskAction } from './action-row.tsx';
import type { ReviewActions } from './use-review-actions.ts';

/** Tidying up once the work is out: the worktree and branch go, the record stays. */
export function CleanseRow(props: { permission: SessionReview['actions']['cleanse']; cleanse: ReviewActions['cleanse']; onAsk: (action: AskAction) => void }) {
  const { permission, cleanse } = props;
  return (
    <ActionRow
      name="cleanse"
      title="Cleanse"
      hint="Removes the worktree and the session branch, keeps the record (events, ledger, review). Once merged or pushed."
      allowed={permission.allowed}
      reason={permission.reason}
      pending={cleanse.pending ? 'Cleansing…' : null}
      error={cleanse.error}
      result={
        cleanse.data !== null && (
          <p className="action-result" data-testid="cleanse-result" role="status">
            ✓ Cleansed: {cleanse.data.removed_worktree ? 'worktree removed' : 'no worktree left'},{' '}
            {cleanse.data.removed_branch ? 'branch removed' : 'no branch left'}. The session is archived.
          </p>
        )
      }
      button={<AskButton action="cleanse" label="Cleanse…" allowed={permission.allowed} pending={cleanse.pending} onAsk={props.onAsk} />}
    />
  );
}

/** Cleansing deletes the branch: said before it runs, with what stays. */
export function CleanseConfirm(props: { open: boolean; branch: string; cleanse: ReviewActions['cleanse']; onClose: () => void }) {
  const { cleanse } = props;
  return (
    <ConfirmDialog
      open={props.open}
      testId="confirm-cleanse"
      title="Cleanse this session?"
      confirmLabel="Cleanse"
      danger
      onCancel={props.onClose}
      onConfirm={() => {
        props.onClose();
        cleanse.reset();
        cleanse.run();
      }}
    >
      <p>
        This removes the worktree and deletes the branch <code>{props.branch}</code>. The session's record stays and it becomes <strong>archived</strong>.
      </p>
    </ConfirmDialog>
  );
}
