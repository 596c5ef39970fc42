import type { SessionReview } from '../../../shared/review.ts';
import { ConfirmDialog } from '../components/modal-dialog.tsx';
import { ActionRow, AskButton, type AskAction } from './action-row.tsx';
import type { ReviewActions } from './use-review-actions.ts';

/** A pull request with gh when it is signed in here, else the host's compare link to open by hand. */
export function PrRow({ permission, pr, onAsk }: { permission: SessionReview['actions']['pr']; pr: ReviewActions['pr']; onAsk: (action: AskAction) => void }) {
  return (
    <ActionRow
      name="pr"
      title="Open a pull request"
      hint={permission.gh ? 'Opens it with gh (installed and signed in).' : 'gh is not signed in here, so you get the host’s compare link to open it yourself.'}
      allowed={permission.allowed}
      reason={permission.reason}
      pending={pr.pending ? 'Opening…' : null}
      error={pr.error}
      result={pr.data !== null && <PrLink url={pr.data.url} via={pr.data.via} />}
      button={<AskButton action="pr" label="Open PR…" allowed={permission.allowed} pending={pr.pending} onAsk={onAsk} />}
    />
  );
}

/** What opening the request does here, with gh or as a compare link, said before it runs. */
export function PrConfirm(props: { open: boolean; branch: string; into: string; remote: string; gh: boolean; pr: ReviewActions['pr']; onClose: () => void }) {
  const { branch, into, remote, pr } = props;
  return (
    <ConfirmDialog
      open={props.open}
      testId="confirm-pr"
      title="Open a pull request?"
      confirmLabel="Open PR"
      onCancel={props.onClose}
      onConfirm={() => {
        props.onClose();
        pr.reset();
        pr.run(remote === '' ? null : remote);
      }}
    >
      <p>
        {props.gh ? (
          <>
            This runs <code>gh pr create</code> for <code>{branch}</code> into <code>{into}</code>. Push the branch first if the remote does not have it.
          </>
        ) : (
          <>
            This gives you the link to compare <code>{branch}</code> with <code>{into}</code> on {remote || 'the remote'}; push the branch first, then open the
            link to create the request.
          </>
        )}
      </p>
    </ConfirmDialog>
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
