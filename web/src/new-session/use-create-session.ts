import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { ApiError } from '../api/client.ts';
import { seeding, type CreateSessionInput } from '../api/mutations.ts';
import { queryKeys } from '../api/queries.ts';
import { navigate } from '../router.tsx';
import { paths } from '../paths.ts';
import { clearDraft, tabStorage } from './draft.ts';

/**
 * Creating the session, which opens its interview and forgets the draft; and discarding another
 * session of the workspace, which clears a refusal it caused.
 */
export function useCreateSession() {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (input: CreateSessionInput) => seeding.createSession(input),
    onSuccess: (session) => {
      clearDraft(tabStorage());
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
      navigate(paths.session(session.id));
    },
    onError: (error) => {
      // The check may be older than the other session: ask again so the choices appear.
      if (error instanceof ApiError && error.code === ERROR_CODES.workspace_has_sessions) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.workspaceChecks });
      }
    },
  });

  const discard = async (id: string) => {
    await seeding.discardSession(id);
    create.reset();
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.workspaceChecks }),
      queryClient.invalidateQueries({ queryKey: queryKeys.sessions }),
    ]);
  };

  return { create, discard };
}
