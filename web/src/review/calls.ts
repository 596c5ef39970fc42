/**
 * Getting the work out: the merge preview and merge, push, pull request and cleanse. Built on an
 * `ApiClient` so tests pass one with a fake fetch; the page uses `review` (the browser's client).
 * Discard is `seeding.discardSession` (it is the same call the new-session page makes).
 */
import { z } from 'zod';
import { MergePreviewSchema, MergeResultSchema, PrResultSchema, type MergePreview, type MergeResult, type MergeStrategy } from '../../../shared/review.ts';
import { api as browserApi } from '../api/browser.ts';
import type { ApiClient } from '../api/client.ts';

export const PushResultSchema = z.object({ remote: z.string(), branch: z.string() });
export type PushResult = z.infer<typeof PushResultSchema>;
export type PrResult = z.infer<typeof PrResultSchema>;
export const CleanseResultSchema = z.object({ removed_worktree: z.boolean(), removed_branch: z.boolean() });
export type CleanseResult = z.infer<typeof CleanseResultSchema>;

const sessionPath = (id: string) => `/api/sessions/${encodeURIComponent(id)}`;

export function reviewCalls(api: ApiClient) {
  return {
    /** Builds the merge in a scratch worktree and runs the done tasks' acceptance tests on it. */
    previewMerge(input: { sessionId: string; strategy: MergeStrategy }): Promise<MergePreview> {
      return api.post(`${sessionPath(input.sessionId)}/merge/preview`, { strategy: input.strategy }, MergePreviewSchema);
    },

    /** `override` is sent only when set, so a plain merge is refused on failing tests. */
    merge(input: { sessionId: string; strategy: MergeStrategy; override: boolean }): Promise<MergeResult> {
      const body = input.override ? { strategy: input.strategy, override_failed_tests: true } : { strategy: input.strategy };
      return api.post(`${sessionPath(input.sessionId)}/merge`, body, MergeResultSchema);
    },

    push(input: { sessionId: string; remote: string }): Promise<PushResult> {
      return api.post(`${sessionPath(input.sessionId)}/push`, { remote: input.remote }, PushResultSchema);
    },

    openPr(input: { sessionId: string; remote: string | null }): Promise<PrResult> {
      return api.post(`${sessionPath(input.sessionId)}/pr`, input.remote === null ? {} : { remote: input.remote }, PrResultSchema);
    },

    cleanse(sessionId: string): Promise<CleanseResult> {
      return api.post(`${sessionPath(sessionId)}/cleanse`, {}, CleanseResultSchema);
    },
  };
}

export const review = reviewCalls(browserApi);
