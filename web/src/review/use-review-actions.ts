/**
 * The session review's actions as plain state for the components: each has `run`, `pending`, the
 * server's refusal (`{code, message}`) and its last answer. Every action, whatever its outcome,
 * refreshes what it may have changed: the review, the session's detail and the sessions list.
 */
import { useMutation, useQueryClient, type UseMutationResult } from '@tanstack/react-query';
import { ERROR_CODES } from '../../../shared/errors.ts';
import type { MergePreview, MergeResult, MergeStrategy } from '../../../shared/review.ts';
import { ApiError } from '../api/client.ts';
import { seeding } from '../api/mutations.ts';
import { queryKeys } from '../api/queries.ts';
import { navigate } from '../router.tsx';
import { paths } from '../paths.ts';
import { review, type CleanseResult, type PrResult, type PushResult, type RewindResult } from './review-api.ts';
import { reviewKeys } from './queries.ts';

export interface ActionError {
  code: string;
  message: string;
}

export interface Action<TInput, TResult> {
  run: (input: TInput) => void;
  reset: () => void;
  pending: boolean;
  error: ActionError | null;
  data: TResult | null;
}

export function actionError(error: Error | null): ActionError | null {
  if (error === null) return null;
  return error instanceof ApiError ? { code: error.code, message: error.message } : { code: ERROR_CODES.client_error, message: error.message };
}

function asAction<TInput, TResult>(m: UseMutationResult<TResult, Error, TInput>): Action<TInput, TResult> {
  return {
    run: (input) => {
      if (!m.isPending) m.mutate(input);
    },
    reset: m.reset,
    pending: m.isPending,
    error: actionError(m.error),
    data: m.data ?? null,
  };
}

export interface ReviewActions {
  preview: Action<MergeStrategy, MergePreview>;
  merge: Action<{ strategy: MergeStrategy; override: boolean }, MergeResult>;
  push: Action<string, PushResult>;
  pr: Action<string | null, PrResult>;
  cleanse: Action<void, CleanseResult>;
  /** `after`: "seed" or a task id. */
  rewind: Action<string, RewindResult>;
  /** Resolves once the session is gone (then the page leaves for the sessions list). */
  discard: () => Promise<void>;
}

export function useReviewActions(sessionId: string): ReviewActions {
  const queryClient = useQueryClient();
  const refresh = async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: reviewKeys.session(sessionId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.sessionDetail(sessionId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.sessions }),
    ]);
  };
  // A refused preview may mean the repo changed under us (a dirty checkout, a moved base): the
  // review's allowed actions are asked again as well.
  const preview = useMutation({ mutationFn: (strategy: MergeStrategy) => review.previewMerge({ sessionId, strategy }), onSettled: refresh });
  const merge = useMutation({
    mutationFn: (input: { strategy: MergeStrategy; override: boolean }) => review.merge({ sessionId, ...input }),
    onSettled: refresh,
  });
  const push = useMutation({ mutationFn: (remote: string) => review.push({ sessionId, remote }), onSettled: refresh });
  const pr = useMutation({ mutationFn: (remote: string | null) => review.openPr({ sessionId, remote }), onSettled: refresh });
  const cleanse = useMutation({ mutationFn: () => review.cleanse(sessionId), onSettled: refresh });
  const rewind = useMutation({ mutationFn: (after: string) => review.rewind({ sessionId, after }), onSettled: refresh });

  return {
    preview: asAction(preview),
    merge: asAction(merge),
    push: asAction(push),
    pr: asAction(pr),
    cleanse: asAction(cleanse),
    rewind: asAction(rewind),
    discard: async () => {
      await seeding.discardSession(sessionId);
      queryClient.removeQueries({ queryKey: reviewKeys.session(sessionId) });
      queryClient.removeQueries({ queryKey: queryKeys.sessionDetail(sessionId) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
      navigate(paths.sessions);
    },
  };
}
