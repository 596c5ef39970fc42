/**
 * Adding a task after the run, as state for the form (issue 15, issue 27): the draft, this page's
 * add and cancel requests, and the outcome to show — this page's own, else the session's record
 * of the last add-task (`add-task.json`), so a reload or another tab finds how it ended.
 */
import { useMutation, useQueryClient, type UseMutationResult } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ERROR_CODES } from '../../../shared/errors.ts';
import type { AddedTask, AddTaskCancel, AddTaskState } from '../../../shared/review.ts';
import { queryKeys } from '../api/queries.ts';
import { review } from './review-api.ts';
import { reviewKeys } from './queries.ts';
import { actionError, type ActionError } from './use-review-actions.ts';

/** The new task as the reviewer writes it: the criteria one per line. */
export interface TaskDraft {
  title: string;
  description: string;
  criteria: string;
}

export interface TaskDraftState extends TaskDraft {
  /** The criteria's lines, trimmed, blank ones left out. */
  lines: string[];
  /** Every field is filled in: the form may be sent. */
  ready: boolean;
  setTitle: (title: string) => void;
  setDescription: (description: string) => void;
  setCriteria: (criteria: string) => void;
  /** Every field at once: a demo pick, or the empty form after an add. */
  fill: (draft: TaskDraft) => void;
}

/** The form's fields: kept through a refusal or a cancel, to try again; emptied once the task is added. */
export function useTaskDraft(): TaskDraftState {
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [criteria, setCriteria] = useState('');
  const lines = criteria
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const fill = (draft: TaskDraft) => {
    setTitle(draft.title);
    setDescription(draft.description);
    setCriteria(draft.criteria);
  };
  const ready = title.trim() !== '' && description.trim() !== '' && lines.length > 0;
  return { title, description, criteria, lines, ready, setTitle, setDescription, setCriteria, fill };
}

export interface AddTaskRequest {
  add: UseMutationResult<AddedTask, Error, void>;
  cancel: UseMutationResult<AddTaskCancel, Error, void>;
  /** This page's add, once it is done; cleared when the next one is sent. */
  added: AddedTask | null;
  /** An add-task is under way: this page's, or one the session detail says another started. */
  working: boolean;
}

/** This page's add and cancel; whatever their outcome, and when one started elsewhere ends, the review and the session are read again. */
export function useAddTask(sessionId: string, draft: TaskDraftState, inProgress: boolean): AddTaskRequest {
  const queryClient = useQueryClient();
  const [added, setAdded] = useState<AddedTask | null>(null);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: reviewKeys.session(sessionId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.sessionDetail(sessionId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.sessions }),
    ]);
  const cancel = useMutation({ mutationFn: () => review.cancelAddTask(sessionId), onSettled: refresh });
  const add = useMutation({
    mutationFn: () => review.addTask({ sessionId, task: { title: draft.title, description: draft.description, acceptance_criteria: draft.lines } }),
    onMutate: () => {
      setAdded(null);
      cancel.reset();
    },
    onSuccess: (result) => {
      setAdded(result);
      draft.fill({ title: '', description: '', criteria: '' });
    },
    onSettled: refresh,
  });
  // One started elsewhere (or before a reload) ended: the plan and the review have moved on.
  const wasWorking = useRef(inProgress);
  useEffect(() => {
    if (wasWorking.current && !inProgress) void refresh();
    wasWorking.current = inProgress;
  });
  return { add, cancel, added, working: add.isPending || inProgress };
}

/** What an add-task ended with, however this page learnt it (its own request, or the session's record). */
export type Outcome =
  | { kind: 'added'; taskId: string; title: string; testFile: string; red: number }
  | { kind: 'cancelled' }
  | { kind: 'failed'; code: string; message: string };

export interface AddTaskOutcome {
  /** The task added, by this page or (until it is built) as the record says. */
  shown: Extract<Outcome, { kind: 'added' }> | null;
  /** A cancel is what the reviewer asked for: said plainly, not as an error. */
  cancelled: boolean;
  error: ActionError | null;
  /** Hides the record's outcome for good; null when the outcome shown is this page's own. */
  dismiss: (() => void) | null;
}

/** The session's record of an add-task this page did not see end (a reload, another tab); null when there is nothing to say. */
function recorded(last: AddTaskState | null, pendingIds: ReadonlySet<string>): Outcome | null {
  if (last === null) return null;
  if (last.state === 'added')
    return pendingIds.has(last.task_id) ? { kind: 'added', taskId: last.task_id, title: last.title, testFile: last.test_file, red: last.red } : null;
  if (last.state === 'failed')
    return last.code === ERROR_CODES.add_task_cancelled ? { kind: 'cancelled' } : { kind: 'failed', code: last.code, message: last.message };
  if (last.state === 'interrupted') {
    return {
      kind: 'failed',
      code: 'add_task_interrupted',
      message: `Adding “${last.title}” was cut short: the server stopped before it finished. Check the plan below, and add it again if it is not there.`,
    };
  }
  return null;
}

const seenKey = (sessionId: string) => `tilth.add-task.seen.${sessionId}`;

/** The outcome of this page's own request; else the session's record of the last one, until dismissed (kept in this browser). */
export function useAddTaskOutcome(input: {
  sessionId: string;
  last: AddTaskState | null;
  pendingIds: ReadonlySet<string>;
  request: AddTaskRequest;
}): AddTaskOutcome {
  const { sessionId, last, pendingIds } = input;
  const { add, cancel, added, working } = input.request;
  const failed = actionError(add.error);
  const [seen, setSeen] = useState(() => localStorage.getItem(seenKey(sessionId)));
  const dismiss = () => {
    if (last === null) return;
    localStorage.setItem(seenKey(sessionId), last.started_at);
    setSeen(last.started_at);
  };
  const fromRecord = !working && add.status === 'idle' && last !== null && last.started_at !== seen ? recorded(last, pendingIds) : null;
  const cancelled =
    fromRecord?.kind === 'cancelled' ||
    failed?.code === ERROR_CODES.add_task_cancelled ||
    (cancel.data?.cancelled === true && !add.isPending && failed === null);
  const error = fromRecord?.kind === 'failed' ? fromRecord : cancelled ? null : (failed ?? actionError(cancel.error));
  const shown =
    added !== null
      ? { kind: 'added' as const, taskId: added.task.id, title: added.task.title, testFile: added.test_file, red: added.red.length }
      : fromRecord?.kind === 'added'
        ? fromRecord
        : null;
  return { shown, cancelled, error, dismiss: fromRecord !== null ? dismiss : null };
}
