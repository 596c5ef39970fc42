/**
 * The run's three calls as mutations, shared by the seed review (Run) and the run view (Stop,
 * Resume, guidance). A start or stop answers with the session and run state, which go straight
 * into the detail cache so the page switches views at once; the detail is refetched after anyway.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SessionDetail } from '../../../../shared/api.ts';
import { runs } from '../../api/mutations.ts';
import { queryKeys } from '../../api/queries.ts';

export function useRunControls(sessionId: string) {
  const queryClient = useQueryClient();
  const key = queryKeys.sessionDetail(sessionId);
  const patch = (next: Pick<SessionDetail, 'session' | 'run'>) =>
    queryClient.setQueryData<SessionDetail>(key, (old) => (old === undefined ? old : { ...old, ...next }));
  const refresh = () => void queryClient.invalidateQueries({ queryKey: key });

  const start = useMutation({
    mutationFn: () => runs.startRun(sessionId),
    onSuccess: (res) => patch(res),
    onSettled: refresh,
  });
  const stop = useMutation({
    mutationFn: () => runs.stopRun(sessionId),
    onSuccess: (res) => patch({ session: res.session, run: { state: 'idle', queue_position: null } }),
    onSettled: refresh,
  });
  const note = useMutation({
    mutationFn: (text: string) => runs.addNote({ sessionId, text }),
  });
  return { start, stop, note };
}

export type RunControlsApi = ReturnType<typeof useRunControls>;
