import { useState } from 'react';
import type { SessionReview } from '../../../shared/review.ts';
import { ConfirmDialog } from '../components/modal-dialog.tsx';
import { ActionRow, AskButton, type AskAction } from './action-row.tsx';
import type { ReviewActions } from './use-review-actions.ts';

/**
 * The remote that push and pull request go to: origin when there is one, else the first; a
 * choice the review no longer lists falls back to the first.
 */
export function useRemoteChoice(remotes: readonly string[]): [remote: string, choose: (remote: string) => void] {
  const [remote, setRemote] = useState<string>(() => (remotes.includes('origin') ? 'origin' : (remotes[0] ?? '')));
  return [remotes.includes(remote) ? remote : (remotes[0] ?? ''), setRemote];
}

/** Shown only when there is a choice to make: more than one remote. */
export function RemotePicker({ remotes, remote, onChoose }: { remotes: readonly string[]; remote: string; onChoose: (remote: string) => void }) {
  return (
    <label className="inline-field review-remote">
      <span className="field-label">Remote</span>
      <select className="input select-small" value={remote} onChange={(e) => onChoose(e.target.value)} data-testid="push-remote">
        {remotes.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The push, its progress and the remote's answer; its button asks first (PushConfirm). */
export function PushRow(props: {
  branch: string;
  remote: string;
  permission: SessionReview['actions']['push'];
  push: ReviewActions['push'];
  onAsk: (action: AskAction) => void;
}) {
  const { branch, remote, permission, push } = props;
  return (
    <ActionRow
      name="push"
      title={`Push ${branch}${remote !== '' ? ` to ${remote}` : ''}`}
      hint="Sends the session branch to the remote under the same name. Nothing is merged."
      allowed={permission.allowed}
      reason={permission.reason}
      pending={push.pending ? 'Pushing…' : null}
      error={push.error}
      result={
        push.data !== null && (
          <p className="action-result" data-testid="push-result" role="status">
            ✓ Pushed {push.data.branch} to {push.data.remote}.
          </p>
        )
      }
      button={<AskButton action="push" label="Push…" allowed={permission.allowed} pending={push.pending} onAsk={props.onAsk} />}
    />
  );
}

/** Pushing makes the branch public on the remote: said before it runs. */
export function PushConfirm(props: { open: boolean; branch: string; remote: string; push: ReviewActions['push']; onClose: () => void }) {
  const { branch, remote, push } = props;
  return (
    <ConfirmDialog
      open={props.open}
      testId="confirm-push"
      title={`Push ${branch}?`}
      confirmLabel={`Push to ${remote}`}
      onCancel={props.onClose}
      onConfirm={() => {
        props.onClose();
        push.reset();
        push.run(remote);
      }}
    >
      <p>
        This runs{' '}
        <code>
          git push {remote} {branch}
        </code>{' '}
        from your repository. The branch becomes visible to everyone who can read <strong>{remote}</strong>.
      </p>
    </ConfirmDialog>
  );
}
