/**
 * The run's header with its Stop and Resume: Resume asks first (what resuming will do), Stop acts
 * at once. The header shows what it is given; this part owns the confirmation and the controls.
 */
import { useState } from 'react';
import type { RunControlsApi } from './use-run-controls.ts';
import { ResumeConfirm } from './resume-confirm.tsx';
import { RunHeader, type RunHeaderProps } from './run-header.tsx';

export type RunBarProps = Omit<RunHeaderProps, 'controls' | 'stopping' | 'resuming' | 'actionError' | 'onStop' | 'onResume'> & {
  /** Which of Stop and Resume the run offers now (run-words.ts runControls). */
  offers: { stop: boolean; resume: boolean };
  controls: Pick<RunControlsApi, 'start' | 'stop'>;
};

export function RunBar({ offers, controls, ...header }: RunBarProps) {
  const [confirmResume, setConfirmResume] = useState(false);
  const { start, stop } = controls;
  return (
    <>
      <RunHeader
        {...header}
        controls={{ stop: offers.stop, resume: offers.resume && !confirmResume }}
        stopping={stop.isPending}
        resuming={start.isPending}
        actionError={(stop.error ?? start.error)?.message ?? null}
        onStop={() => {
          start.reset();
          if (!stop.isPending) stop.mutate();
        }}
        onResume={() => {
          stop.reset();
          setConfirmResume(true);
        }}
      />
      {confirmResume && offers.resume && (
        <ResumeConfirm
          sessionId={header.sessionId}
          resuming={start.isPending}
          onCancel={() => setConfirmResume(false)}
          onConfirm={() => {
            if (!start.isPending) start.mutate(undefined, { onSuccess: () => setConfirmResume(false) });
          }}
        />
      )}
    </>
  );
}
