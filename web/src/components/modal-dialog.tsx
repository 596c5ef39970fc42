import { useEffect, useRef, type ReactNode } from 'react';
import './modal-dialog.css';

export interface ModalDialogProps {
  open: boolean;
  title: string;
  /** Escape, the close button, or a click on the backdrop; ignored while `busy`. */
  onClose: () => void;
  busy?: boolean;
  testId?: string;
  children: ReactNode;
}

/**
 * A native `<dialog>` shown modally: the browser keeps focus inside it, returns focus after it,
 * and makes the page behind it inert. While `busy` (a request in flight) it cannot be dismissed,
 * so the answer to a merge is never lost behind a closed dialog.
 */
export function ModalDialog({ open, title, onClose, busy = false, testId, children }: ModalDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click on the backdrop closes; from the keyboard, Escape does the same (onCancel)
    <dialog
      ref={ref}
      className="modal"
      aria-label={title}
      data-testid={testId}
      onCancel={(event) => {
        // Escape: the dialog's open state belongs to React, so ask rather than let it close itself.
        event.preventDefault();
        if (!busy) onClose();
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget && !busy) onClose();
      }}
    >
      {open && (
        <div className="modal-body">
          <div className="modal-head">
            <h2>{title}</h2>
            <button type="button" className="button button-plain button-small" onClick={onClose} disabled={busy} aria-label="Close">
              ✕
            </button>
          </div>
          {children}
        </div>
      )}
    </dialog>
  );
}

/** A yes/no question about one action: what it does, then the buttons. */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  testId: string;
  children: ReactNode;
}) {
  return (
    <ModalDialog open={props.open} title={props.title} onClose={props.onCancel} testId={props.testId}>
      <div className="modal-text">{props.children}</div>
      <div className="actions modal-actions">
        <button
          type="button"
          className={props.danger === true ? 'button button-danger' : 'button'}
          data-testid="confirm-yes"
          onClick={props.onConfirm}
          // biome-ignore lint/a11y/noAutofocus: the user just opened this dialog to answer it; focus belongs on its answer (as a native dialog does)
          autoFocus
        >
          {props.confirmLabel}
        </button>
        <button type="button" className="button button-plain" data-testid="confirm-no" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </ModalDialog>
  );
}
