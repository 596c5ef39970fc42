/**
 * Getting the work out: the merge preview and merge, push, pull request and cleanse. Built on an
 * `ApiClient` so tests pass one with a fake fetch; the page uses `review` (the browser's client).
 * Discard is `seeding.discardSession` (it is the same call the new-session page makes).
 */
import {
  COMMENTS_PAGE_MAX,
  type AddedTask,
  type AddTaskCancel,
  type CleanseResult,
  type MergePreview,
  type MergeResult,
  type MergeStrategy,
  type NewTask,
  type PrResult,
  type PushResult,
  type ReopenResult,
  type ReviewComment,
  type RewindResult,
} from '../../../shared/review.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { api as browserApi } from '../api/browser.ts';
import { ApiError, type ApiClient } from '../api/client.ts';

export type { CleanseResult, PrResult, PushResult, RewindResult };

/** A comment as the reviewer writes it on a diff line (null task: the session diff). */
export type NewComment = Pick<ReviewComment, 'task_id' | 'file' | 'line' | 'side' | 'text'>;

/** Reads of the comment list in a row that may start over because its cursor was deleted. */
const LIST_ATTEMPTS = 3;

export function reviewCalls(api: ApiClient) {
  return {
    /** Builds the merge in a scratch worktree and runs the done tasks' acceptance tests on it. */
    previewMerge(input: { sessionId: string; strategy: MergeStrategy }): Promise<MergePreview> {
      return api.call('previewMerge', { params: { id: input.sessionId }, body: { strategy: input.strategy } });
    },

    /** `override` is sent only when set, so a plain merge is refused on failing tests. */
    merge(input: { sessionId: string; strategy: MergeStrategy; override: boolean }): Promise<MergeResult> {
      const body = input.override ? { strategy: input.strategy, override_failed_tests: true } : { strategy: input.strategy };
      return api.call('merge', { params: { id: input.sessionId }, body });
    },

    push(input: { sessionId: string; remote: string }): Promise<PushResult> {
      return api.call('push', { params: { id: input.sessionId }, body: { remote: input.remote } });
    },

    openPr(input: { sessionId: string; remote: string | null }): Promise<PrResult> {
      return api.call('openPr', { params: { id: input.sessionId }, body: input.remote === null ? {} : { remote: input.remote } });
    },

    cleanse(sessionId: string): Promise<CleanseResult> {
      return api.call('cleanse', { params: { id: sessionId } });
    },

    /** Adds a task after the run; the model writes its test within the request. */
    addTask(input: { sessionId: string; task: NewTask }): Promise<AddedTask> {
      return api.call('addTask', { params: { id: input.sessionId }, body: input.task });
    },

    /** Cancels the add-task under way (its request then fails with `add_task_cancelled`); nothing is added. */
    cancelAddTask(sessionId: string): Promise<AddTaskCancel> {
      return api.call('cancelAddTask', { params: { id: sessionId } });
    },

    /** Sends a done task back as its next revision with a note and comments (absent ids: every open one on its diff). */
    reopenTask(input: { sessionId: string; taskId: string; note: string; commentIds: string[] }): Promise<ReopenResult> {
      const body = { ...(input.note.trim() ? { note: input.note } : {}), comment_ids: input.commentIds };
      return api.call('reopenTask', { params: { id: input.sessionId, taskId: input.taskId }, body });
    },

    /**
     * Every comment of the session, oldest first, read a page at a time (the pages show them all:
     * the session review lists every one, a task's diff places its own). A comment deleted
     * between two pages can be the next page's cursor, which the server then no longer knows;
     * the read starts over then, a few times at most.
     */
    async listComments(sessionId: string, signal?: AbortSignal): Promise<ReviewComment[]> {
      for (let attempt = 1; ; attempt++) {
        const comments: ReviewComment[] = [];
        let after: string | undefined;
        try {
          for (;;) {
            const page = await api.call('listComments', { params: { id: sessionId }, query: { after, limit: String(COMMENTS_PAGE_MAX) } }, { signal });
            comments.push(...page.comments);
            if (!page.has_more || page.next_after === null) return comments;
            after = page.next_after;
          }
        } catch (error) {
          const cursorGone = after !== undefined && error instanceof ApiError && error.code === ERROR_CODES.comment_not_found;
          if (!cursorGone || attempt >= LIST_ATTEMPTS) throw error;
        }
      }
    },

    addComment(input: { sessionId: string; comment: NewComment }): Promise<ReviewComment> {
      return api.call('addComment', { params: { id: input.sessionId }, body: input.comment });
    },

    editComment(input: { sessionId: string; commentId: string; text: string }): Promise<ReviewComment> {
      return api.call('editComment', { params: { id: input.sessionId, commentId: input.commentId }, body: { text: input.text } });
    },

    async deleteComment(input: { sessionId: string; commentId: string }): Promise<void> {
      await api.call('deleteComment', { params: { id: input.sessionId, commentId: input.commentId } });
    },

    /** Moves the branch back to after the seed or a done task; the session ends stopped. */
    rewind(input: { sessionId: string; after: string }): Promise<RewindResult> {
      return api.call('rewind', { params: { id: input.sessionId }, body: { after: input.after } });
    },
  };
}

export const review = reviewCalls(browserApi);
