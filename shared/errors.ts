/**
 * The error catalogue: every code the server answers with, its HTTP status, and what it means.
 * The server throws only codes listed here (the status comes from here, not from the throw
 * site), and the web compares codes only through `ERROR_CODES`, so renaming or removing a code
 * is a type error on both sides rather than a silent mismatch.
 *
 * The stream's error frames carry codes from here too; their `status` is what the same refusal
 * would be over HTTP.
 */

interface ErrorEntry {
  readonly status: number;
  readonly meaning: string;
}

export const ERRORS = {
  // ── The request itself ──
  invalid_request: { status: 400, meaning: 'A body, query or path parameter does not match its schema; the message names each problem.' },
  invalid_json: { status: 400, meaning: 'The body is empty or not valid JSON.' },
  bad_request: { status: 400, meaning: 'Not valid HTTP, or another refusal of the HTTP layer (its 4xx status is kept).' },
  duplicate_host: { status: 400, meaning: 'More than one Host header.' },
  request_timeout: { status: 408, meaning: 'The request did not arrive in time.' },
  body_too_large: { status: 413, meaning: 'The body is larger than the server takes.' },
  uri_too_long: { status: 414, meaning: 'The request target, or a segment of its path, is too long.' },
  unsupported_media_type: { status: 415, meaning: 'The body is not application/json.' },
  headers_too_large: { status: 431, meaning: 'The request headers are too large.' },
  not_found: { status: 404, meaning: 'No such route.' },

  // ── Access ──
  unauthorized: { status: 401, meaning: 'Missing or wrong per-launch token.' },
  bad_host: { status: 403, meaning: 'The Host header is not a loopback name with the server’s port (DNS rebinding).' },
  bad_origin: { status: 403, meaning: 'A state-changing request or upgrade from another origin (CSRF).' },

  // ── Configuration and providers ──
  invalid_config: { status: 400, meaning: 'A settings change does not parse; nothing was saved.' },
  config_file_invalid: { status: 409, meaning: 'config.json on disk is invalid, so it cannot be updated.' },
  provider_not_configured: { status: 409, meaning: 'No model endpoint is configured for the role that is needed.' },
  provider_unreachable: { status: 502, meaning: 'The provider could not be reached.' },
  provider_refused: { status: 502, meaning: 'The provider answered with a refusal (a wrong key, an unknown model).' },
  provider_failure: { status: 502, meaning: 'A model call failed after its retries.' },

  // ── Workspaces and sessions ──
  invalid_path: { status: 400, meaning: 'A path the user gave cannot be used.' },
  link_refused: { status: 409, meaning: 'A file Tilth would write is, or goes through, a symbolic link; Tilth follows none.' },
  workspace_not_ready: { status: 400, meaning: 'The workspace is not a git repository with a commit.' },
  workspace_has_sessions: { status: 409, meaning: 'The repository has open sessions; open one, discard it, or start alongside.' },
  session_not_found: { status: 404, meaning: 'No session with that id.' },
  session_locked: { status: 409, meaning: 'Another Tilth process holds the session.' },
  sessions_dir_in_use: { status: 409, meaning: 'Another `tilth serve` uses the sessions folder.' },
  job_running: { status: 409, meaning: 'The session already has a job running.' },
  queue_unavailable: { status: 503, meaning: 'The run queue (TILTH_QUEUE, Redis) did not answer.' },
  queue_key_unusable: {
    status: 500,
    meaning: 'The run queue’s signing key ($TILTH_HOME/queue.key) can be read by other users or is not a key; the queue is not used with it.',
  },
  note_not_delivered: { status: 409, meaning: 'The worker running the session did not take a guidance note in time; send it again.' },
  demo_unavailable: { status: 409, meaning: 'This server has no demo mode.' },

  // ── Interview and seed ──
  question_not_pending: { status: 409, meaning: 'The answered question is not the one waiting.' },
  interview_not_retryable: { status: 409, meaning: 'The interview cannot be retried now; the message says why.' },
  no_seed: { status: 404, meaning: 'The session has no seed yet.' },
  seed_locked: { status: 409, meaning: 'The seed can be edited only before the run starts.' },
  seed_invalid: { status: 400, meaning: 'The edited seed does not pass its checks; one problem per line.' },
  unsafe_test_path: { status: 400, meaning: 'A test file path outside where the preset keeps tests.' },
  invalid_task_id: { status: 400, meaning: 'Not a task id like T-001.' },
  custom_checks_missing: { status: 400, meaning: 'The custom checks preset has no test command.' },
  environment_problem: { status: 409, meaning: 'The contract check could not run the tests (a missing runner or install).' },
  seed_write_failed: { status: 500, meaning: 'The seed files could not be written.' },

  // ── Run ──
  session_not_runnable: { status: 409, meaning: 'Only a prepared or stopped session can run.' },
  session_not_running: { status: 409, meaning: 'The session has no run to stop or to guide.' },
  session_not_stopped: { status: 409, meaning: 'Only a stopped session has a resume plan.' },
  session_not_rewindable: { status: 409, meaning: 'Only a finished or stopped session can be rewound (not a merged, archived or unseeded one).' },
  task_not_done: { status: 409, meaning: 'The task is not done: only a done task can be sent back, or be the point a rewind goes back to.' },
  nothing_to_rewind: { status: 409, meaning: 'The branch is already at the target and no task or change would be reset.' },
  rewind_not_possible: { status: 409, meaning: 'The rewind would drop a seed commit, or keep a commit of a task it resets; the message says which.' },

  // ── Review, merge and publishing ──
  task_not_found: { status: 404, meaning: 'The session has no task with that id.' },
  evidence_not_found: { status: 404, meaning: 'The task has no evidence receipt: one is written when the task is accepted and committed.' },
  session_not_reviewable: { status: 409, meaning: 'Comments are for a session whose run is over or paused (all done, stopped, merged or archived).' },
  comment_not_found: { status: 404, meaning: 'The session has no review comment with that id (it may have been deleted).' },
  comment_sent: { status: 409, meaning: 'The comment went back to the worker with its task; it is fixed from then on.' },
  too_many_comments: { status: 409, meaning: 'The session already keeps the most comments it takes (open and sent); delete open ones before adding more.' },
  session_busy: {
    status: 409,
    meaning: 'Another action on the session is in progress (a git action, or a task being added); the message says whether it can be cancelled and how.',
  },
  session_running: { status: 409, meaning: 'The session has a job running; stop it first.' },
  session_not_mergeable: { status: 409, meaning: 'The session’s state does not allow a merge.' },
  session_not_pushable: { status: 409, meaning: 'The session’s state does not allow a push.' },
  session_not_safe: { status: 409, meaning: 'Cleansing would lose work that is neither merged nor pushed.' },
  session_archived: { status: 409, meaning: 'The session is archived; its branch is gone.' },
  branch_missing: { status: 409, meaning: 'The session branch is gone.' },
  no_base_branch: { status: 409, meaning: 'The session started from a detached HEAD.' },
  base_missing: { status: 409, meaning: 'The base branch no longer exists.' },
  base_dirty: { status: 409, meaning: 'The source checkout has uncommitted changes on the base branch.' },
  base_moved: { status: 409, meaning: 'The base branch moved while the merge was prepared.' },
  ff_impossible: { status: 409, meaning: 'A fast-forward merge is not possible.' },
  merge_conflict: { status: 409, meaning: 'The merge has conflicts.' },
  merge_tests_failed: { status: 409, meaning: 'The tests fail on the merge result.' },
  merge_criteria_unproven: {
    status: 409,
    meaning: 'A done task has a criterion without evidence (no test, not red before, not green after, or unclaimed); merge with the override or fix it.',
  },
  merge_mutants_survive: {
    status: 409,
    meaning: "The mutation gate is on and a done task's tests missed a mutant of its code; merge with the override or strengthen the tests.",
  },
  merge_failed: { status: 409, meaning: 'git could not complete the merge; nothing was changed.' },
  git_tampered: { status: 409, meaning: 'The worktree or branch was changed outside Tilth.' },
  pr_unavailable: { status: 409, meaning: 'No way to open a pull request (no gh, not a GitHub remote).' },
  push_failed: { status: 502, meaning: 'git push failed.' },
  pr_failed: { status: 502, meaning: 'gh pr create failed.' },

  // ── Sending work back (issue 15) ──
  session_not_reopenable: {
    status: 409,
    meaning: 'A task can be sent back or added only when the run is over or stopped (not before it, not running, merged or archived).',
  },
  add_task_cancelled: { status: 409, meaning: 'The task being added was cancelled before anything was written; the session is as it was.' },
  add_task_declined: { status: 422, meaning: 'The model said why it could not write a test for the task as described; nothing was added.' },
  add_task_timed_out: {
    status: 504,
    meaning: 'The model did not finish the new task’s test within the add-task deadline (TILTH_ADD_TASK_SECONDS); nothing was added.',
  },

  // ── Stream frames ──
  bad_frame: { status: 400, meaning: 'A WebSocket frame that is not JSON or not a known frame.' },
  too_many_frames: { status: 429, meaning: 'A burst of frames past the budget; the connection is closed.' },
  too_many_subscriptions: { status: 409, meaning: 'The connection follows too many sessions.' },
  after_seq_ahead: { status: 409, meaning: 'A subscription from past the end of the log.' },

  // ── The scripted model server (tests and demo mode) ──
  invalid_fake_script: { status: 400, meaning: 'A script for the scripted model does not match its schema.' },

  // ── The server's own faults (5xx: the message is hidden unless written for the user) ──
  internal_error: { status: 500, meaning: 'An unexpected server error; its log has the details.' },
  response_invalid: { status: 500, meaning: 'A handler answered with a body its contract does not allow (a server bug).' },
  corrupt_file: { status: 500, meaning: 'A file under the sessions folder is unreadable or does not match its schema.' },
  git_failed: { status: 500, meaning: 'A git command failed unexpectedly.' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERRORS;

/** The codes whose status is `S`, so a `ConflictError` can only carry a 409 code. */
export type ErrorCodeWithStatus<S extends number> = { [K in ErrorCode]: (typeof ERRORS)[K]['status'] extends S ? K : never }[ErrorCode];

/**
 * The web client's own codes, for failures that never got a server answer: no response, an
 * error status without the standard body, a body that does not match its schema, or an error
 * that is not an API error at all.
 */
export const CLIENT_ERRORS = {
  network_error: 'The server could not be reached.',
  http_error: 'An error status without the standard error body.',
  bad_response: 'A response body that does not match its schema.',
  client_error: 'An error in the page itself, not an API answer.',
} as const;

export type ClientErrorCode = keyof typeof CLIENT_ERRORS;

/** Every code by name (`ERROR_CODES.seed_invalid`), for comparisons that the compiler checks. */
export const ERROR_CODES = Object.fromEntries([...Object.keys(ERRORS), ...Object.keys(CLIENT_ERRORS)].map((code) => [code, code])) as {
  readonly [K in ErrorCode | ClientErrorCode]: K;
};

export function errorStatus(code: ErrorCode): number {
  return ERRORS[code].status;
}
