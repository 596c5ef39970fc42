/**
 * The run's own files in a session folder: the per-task ledger and check runs, progress.txt, the
 * user's guidance notes and the proposed learnings (SPEC §3). Reached through the session handle;
 * the worker never sees these names, the harness reads them into prose.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LedgerEntrySchema, SendBackSchema, SteeringNoteSchema, TaskIdSchema, type LedgerEntry, type SendBack, type SteeringNote } from '../../shared/files.ts';
import { CheckAttemptSchema, type CheckAttempt } from '../../shared/review.ts';
import type { Tree } from '../fs/tree.ts';
import { appendJsonl, readJsonl, rewriteJsonl } from './jsonl.ts';
import { SESSION_FILES as FILES } from './session-files.ts';

/** A session's folder, and the tree every write in it goes through. */
export interface SessionFolder {
  tree: Tree;
  dir: string;
}

/** Reference §3.5. */
export const PROGRESS_TAIL_LINES = 30;
export const PROGRESS_MAX_CHARS = 4_000;

function ledgerFile(sessionDir: string, taskId: string): string {
  return path.join(sessionDir, FILES.ledgerDir, `${TaskIdSchema.parse(taskId)}.jsonl`);
}

export function appendLedger(at: SessionFolder, taskId: string, entry: LedgerEntry): void {
  appendJsonl(at.tree, ledgerFile(at.dir, taskId), LedgerEntrySchema, entry);
}

/** Oldest first; with a limit, the last `limit` entries. */
export function readLedger(sessionDir: string, taskId: string, limit?: number): LedgerEntry[] {
  const all = readJsonl(ledgerFile(sessionDir, taskId), LedgerEntrySchema);
  return limit === undefined ? all : limit <= 0 ? [] : all.slice(-limit);
}

/** A reviewer's send-backs of a task, oldest first (issue 15). */
export function appendSendBack(at: SessionFolder, taskId: string, sendBack: SendBack): void {
  appendJsonl(at.tree, path.join(at.dir, FILES.sendBacksDir, `${TaskIdSchema.parse(taskId)}.jsonl`), SendBackSchema, sendBack);
}

export function readSendBacks(sessionDir: string, taskId: string): SendBack[] {
  return readJsonl(path.join(sessionDir, FILES.sendBacksDir, `${TaskIdSchema.parse(taskId)}.jsonl`), SendBackSchema);
}

/** Every check run of a task's cases, for the task review (failed ones never reach the ledger). */
export function appendCheckAttempt(at: SessionFolder, taskId: string, attempt: CheckAttempt): void {
  appendJsonl(at.tree, path.join(at.dir, FILES.checksDir, `${TaskIdSchema.parse(taskId)}.jsonl`), CheckAttemptSchema, attempt);
}

export function readCheckAttempts(sessionDir: string, taskId: string): CheckAttempt[] {
  return readJsonl(path.join(sessionDir, FILES.checksDir, `${TaskIdSchema.parse(taskId)}.jsonl`), CheckAttemptSchema);
}

/** `<id>\tdone\t<title>` or `<id>\tfailed:<reason>\t<title>`, one line per task outcome. */
export function appendProgress(at: SessionFolder, taskId: string, outcome: string, title: string): void {
  const line = `${taskId}\t${outcome}\t${title.replace(/\s+/g, ' ').trim()}`.trimEnd();
  at.tree.appendFile(path.join(at.dir, FILES.progress), `${line}\n`);
}

/** The non-empty lines of progress.txt; none before the first outcome. */
export function progressLines(sessionDir: string): string[] {
  const text = readTextIfExists(path.join(sessionDir, FILES.progress)) ?? '';
  return text.split('\n').filter((l) => l.trim() !== '');
}

/** The last lines of progress, capped in characters from the end, for the worker's prompt. */
export function progressTail(sessionDir: string, lines = PROGRESS_TAIL_LINES, maxChars = PROGRESS_MAX_CHARS): string {
  const tail = progressLines(sessionDir).slice(-lines).join('\n');
  return tail.length > maxChars ? tail.slice(tail.length - maxChars) : tail;
}

function readTextIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Appends a learning under its task's heading; the file starts with a note that nothing applies it. */
export function appendLearning(at: SessionFolder, sessionId: string, task: { id: string; title: string }, learning: string): void {
  const file = path.join(at.dir, FILES.learnings);
  if (!fs.existsSync(file)) {
    at.tree.writeFile(
      file,
      `# Proposed learnings — session ${sessionId}\n\nCandidates noticed during the run. Nothing applies them: review each one and copy what holds up into AGENTS.md yourself.\n`,
    );
  }
  at.tree.appendFile(file, `\n## From ${task.id} — ${task.title}\n\n- ${learning.trim()}\n`);
}

export function readLearnings(sessionDir: string): string | null {
  return readTextIfExists(path.join(sessionDir, FILES.learnings));
}

const steeringFile = (sessionDir: string) => path.join(sessionDir, FILES.steering);

export function addSteeringNote(at: SessionFolder, text: string, now = new Date(), noteId = `n-${randomBytes(4).toString('hex')}`): SteeringNote {
  const note: SteeringNote = { note_id: noteId, ts: now.toISOString(), text: text.trim(), consumed_at: null };
  appendJsonl(at.tree, steeringFile(at.dir), SteeringNoteSchema, note);
  return note;
}

export function readSteeringNotes(sessionDir: string): SteeringNote[] {
  return readJsonl(steeringFile(sessionDir), SteeringNoteSchema);
}

/**
 * Hands the pending notes to the worker exactly once: marks them consumed (atomically) and
 * returns them. The file is small, so it is rewritten whole.
 */
export function takePendingNotes(at: SessionFolder, now = new Date()): SteeringNote[] {
  const notes = readSteeringNotes(at.dir);
  const pending = notes.filter((n) => n.consumed_at === null);
  if (pending.length === 0) return [];
  const when = now.toISOString();
  rewriteJsonl(
    at.tree,
    steeringFile(at.dir),
    SteeringNoteSchema,
    notes.map((n) => (n.consumed_at === null ? { ...n, consumed_at: when } : n)),
  );
  return pending;
}
