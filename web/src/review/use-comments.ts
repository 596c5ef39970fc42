/**
 * The line comments of one session for the diff viewer and the list: the query, and add, edit
 * and delete as mutations that refresh the list whatever their outcome (a refusal may mean the
 * list moved on, e.g. a comment sent meanwhile).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReviewComment } from '../../../shared/review.ts';
import { review, type NewComment } from './review-api.ts';
import { commentsQuery, reviewKeys } from './queries.ts';
import { actionError, type ActionError } from './use-review-actions.ts';

export interface CommentActions {
  /** Null while loading or after a failed load. */
  comments: ReviewComment[] | null;
  loadError: Error | null;
  add: (comment: NewComment) => Promise<ReviewComment>;
  edit: (commentId: string, text: string) => Promise<ReviewComment>;
  remove: (commentId: string) => Promise<void>;
}

export function useComments(sessionId: string): CommentActions {
  const queryClient = useQueryClient();
  const list = useQuery(commentsQuery(sessionId));
  const onSettled = () => queryClient.invalidateQueries({ queryKey: reviewKeys.comments(sessionId) });
  const add = useMutation({ mutationFn: (comment: NewComment) => review.addComment({ sessionId, comment }), onSettled });
  const edit = useMutation({ mutationFn: (input: { commentId: string; text: string }) => review.editComment({ sessionId, ...input }), onSettled });
  const remove = useMutation({ mutationFn: (commentId: string) => review.deleteComment({ sessionId, commentId }), onSettled });
  return {
    comments: list.data ?? null,
    loadError: list.error,
    add: add.mutateAsync,
    edit: (commentId, text) => edit.mutateAsync({ commentId, text }),
    remove: remove.mutateAsync,
  };
}

/** The words of a failed comment action, for the form that made it. */
export function commentError(error: unknown): ActionError {
  return actionError(error instanceof Error ? error : new Error(String(error))) ?? { code: 'client_error', message: String(error) };
}
