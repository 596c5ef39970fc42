/**
 * The names inside a session folder (SPEC §3). Private to `store/`: every other room reaches a
 * session's files through its handle (`session-handle.ts`), so no one else builds these paths.
 * `sessions/README.md` documents the same list and a test holds the two together.
 */
export const SESSION_FILES = {
  checkpoint: 'checkpoint.json',
  events: 'events.jsonl',
  eventsIndex: 'events.idx',
  prd: 'prd.json',
  seedMeta: 'seed-meta.json',
  seedProof: 'seed-proof.json',
  addTask: 'add-task.json',
  interview: 'interview.json',
  progress: 'progress.txt',
  ledgerDir: 'ledger',
  checksDir: 'checks',
  mutationsDir: 'mutations',
  evidenceDir: 'evidence',
  sendBacksDir: 'send-backs',
  probeScratch: 'probe-scratch',
  steering: 'steering.jsonl',
  reviewComments: 'review-comments.jsonl',
  summary: 'summary.json',
  learnings: 'proposed-learnings.md',
  runLock: 'run.lock',
  mergeScratch: 'merge-scratch',
  rewindIntent: 'rewind.json',
  runRequest: 'run-request.json',
  archiveDir: 'archive',
  worktree: 'workspace',
} as const;

/** How each entry appears in the README's layout block: folders end in `/`, per-task files use `<task>`. */
export const LAYOUT_NAMES: readonly string[] = Object.entries(SESSION_FILES).map(([key, name]) => {
  if (key === 'ledgerDir' || key === 'checksDir' || key === 'sendBacksDir') return `${name}/<task>.jsonl`;
  if (key === 'mutationsDir' || key === 'evidenceDir') return `${name}/<task>.json`;
  if (key === 'archiveDir') return `${name}/rewind-<n>/`;
  if (key === 'worktree' || key === 'mergeScratch' || key === 'probeScratch') return `${name}/`;
  return name;
});
