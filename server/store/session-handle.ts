/**
 * One session's folder behind one typed handle (SPEC §3): every read and write of a file under
 * `sessions/<id>/` goes through here, so the names stay private to `store/`, JSON is validated in
 * and out, and writes are atomic. Get one with `store.session(id)`; the id is checked there.
 *
 * A job gets a handle, not the store: it can touch its own session and nothing else.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SessionListItem } from '../../shared/api.ts';
import type { EventInput, SessionStatus, StopReason, TilthEvent } from '../../shared/events.ts';
import {
  InterviewStateSchema,
  MutationReportSchema,
  PrdSchema,
  RewindIntentSchema,
  RunRequestSchema,
  TaskIdSchema,
  SeedMetaSchema,
  type Checkpoint,
  type InterviewState,
  type LedgerEntry,
  type MutationReport,
  type PrdEntry,
  type RewindIntent,
  type RunRequest,
  type SeedMeta,
  type SendBack,
  type SteeringNote,
} from '../../shared/files.ts';
import { EvidenceSchema, type Evidence } from '../../shared/evidence.ts';
import { AddTaskStateSchema, type AddTaskState, type CheckAttempt } from '../../shared/review.ts';
import { SeedProofSchema, type SeedProof } from '../../shared/seed.ts';
import type { Summary } from '../../shared/summary.ts';
import { CorruptFileError, NotFoundError } from '../errors/app-error.ts';
import { Tree, type TreeWrite } from '../fs/tree.ts';
import type { SandboxConfig } from '../proc/sandbox.ts';
import type { EventLog } from './event-log.ts';
import { readJsonFile } from './json-file.ts';
import { ReviewComments } from './review-comments.ts';
import * as runFiles from './run-files.ts';
import { resolveTestPath, type StoredSeed } from './seed-input.ts';
import type { PidLockOwner } from './pid-lock.ts';
import { acquireRunLock, assertNotLockedElsewhere, holdsLease, type LockJob, type LockKind, lockedElsewhere, lockOwner, revokeRunLock } from './run-lock.ts';
import { SESSION_FILES } from './session-files.ts';
import { catchUp, currentSummary, saveSummary, type WholeView } from './summary-file.ts';

export type StopInfo = { reason: StopReason; phase?: 'interview' | 'run'; error?: string };
export type { LockKind };

/**
 * A kind of per-session state a room keeps in memory while the session is open in this process
 * (the merge's built preview, seed review's contract check): made on first use by `init`, held
 * by the store per session, and dropped with the session (`forget`, `remove`). Declare one per
 * kind at module level; the key is the object itself.
 */
export interface SessionStateKey<T> {
  readonly name: string;
  readonly init: () => T;
}

export function sessionState<T>(name: string, init: () => T): SessionStateKey<T> {
  return { name, init };
}

/**
 * What a handle needs from the store that made it (the store's checkpoint, log, summaries, bus
 * and per-session state). The store keeps these by id and private: outside `store/`, a session is
 * reached only through its handle.
 */
export interface SessionStoreCore {
  dir(id: string): string;
  exists(id: string): boolean;
  readCheckpoint(id: string): Checkpoint;
  updateCheckpoint(id: string, change: (current: Checkpoint) => Partial<Checkpoint>, options?: { durable?: boolean }): Checkpoint;
  setStatus(id: string, to: SessionStatus, stop?: StopInfo): Checkpoint;
  guardWrites(id: string, check: (() => void) | null): void;
  emit(id: string, input: EventInput): TilthEvent;
  log(id: string): EventLog;
  openLog(id: string): Promise<EventLog>;
  summaryOf(id: string): Promise<Summary>;
  wholeViewOf(id: string): Promise<WholeView | null>;
  publishAppendedElsewhere(id: string): void;
  listItem(id: string): SessionListItem;
  state<T>(id: string, key: SessionStateKey<T>): T;
  forget(id: string): void;
  readonly bus: { sessionsChanged(): void };
  /** Every write under the sessions folder goes through it. */
  readonly tree: Tree;
  /** How the session's untrusted commands run (the store's policy). */
  readonly sandbox: SandboxConfig;
}

export class SessionHandle {
  /** The session's folder (for the store's own rooms and tests; other code asks the handle). */
  readonly dir: string;
  private readonly folder: runFiles.SessionFolder;
  /** The reviewer's line comments on the task and session diffs (review-comments.jsonl). */
  readonly comments: ReviewComments;

  constructor(
    private readonly store: SessionStoreCore,
    readonly id: string,
  ) {
    this.dir = store.dir(id);
    this.folder = { tree: store.tree, dir: this.dir };
    this.comments = new ReviewComments(store.tree, this.dir);
  }

  private file(name: string): string {
    return path.join(this.dir, name);
  }

  private evidenceFile(taskId: string): string {
    return path.join(this.dir, SESSION_FILES.evidenceDir, `${TaskIdSchema.parse(taskId)}.json`);
  }

  private mutationFile(taskId: string): string {
    return path.join(this.dir, SESSION_FILES.mutationsDir, `${TaskIdSchema.parse(taskId)}.json`);
  }

  exists(): boolean {
    return this.store.exists(this.id);
  }

  /** The sandbox policy the session's untrusted commands run under. */
  get sandbox(): SandboxConfig {
    return this.store.sandbox;
  }

  // ── checkpoint and events ───────────────────────────────────────────────────────────────────

  readonly checkpoint = {
    read: (): Checkpoint => this.store.readCheckpoint(this.id),
    update: (change: (current: Checkpoint) => Partial<Checkpoint>, options?: { durable?: boolean }): Checkpoint =>
      this.store.updateCheckpoint(this.id, change, options),
    setStatus: (to: SessionStatus, stop?: StopInfo): Checkpoint => this.store.setStatus(this.id, to, stop),
  };

  /**
   * From now on this process's writes to the checkpoint and the log call `check` first, which
   * throws to refuse them (a queue worker whose lease on the run is over); null lifts it.
   */
  guardWrites(check: (() => void) | null): void {
    this.store.guardWrites(this.id, check);
  }

  /** The sessions list's row for this session; a session with an unreadable file still has one, with the problem. */
  listItem(): SessionListItem {
    return this.store.listItem(this.id);
  }

  /**
   * Publishes what another process appended to the log (a headless `tilth run`) to this process's
   * live subscribers; cheap when nothing is new.
   */
  publishAppendedElsewhere(): void {
    this.store.publishAppendedElsewhere(this.id);
  }

  /** This session's state of one kind (see `sessionState`), made on first use. */
  state<T>(key: SessionStateKey<T>): T {
    return this.store.state(this.id, key);
  }

  /** Drops what this process holds for the session: its open log, summary and state. */
  forget(): void {
    this.store.forget(this.id);
  }

  emit(input: EventInput): TilthEvent {
    return this.store.emit(this.id, input);
  }

  log(): EventLog {
    return this.store.log(this.id);
  }

  /** The log with its index built in the background: a long session's first read blocks nothing. */
  openLog(): Promise<EventLog> {
    return this.store.openLog(this.id);
  }

  // ── the seed ────────────────────────────────────────────────────────────────────────────────

  readonly prd = {
    /** The task list, or null before the seed is written. */
    read: (): PrdEntry[] | null => readJsonFile(this.file(SESSION_FILES.prd), PrdSchema),
    /** The task list; empty before the seed is written. */
    tasks: (): PrdEntry[] => this.prd.read() ?? [],
    write: (prd: PrdEntry[]): void => this.store.tree.writeJsonAtomic(this.file(SESSION_FILES.prd), PrdSchema.parse(prd)),
    /** Sets one task's status and returns the whole new list. */
    setTaskStatus: (taskId: string, status: PrdEntry['status']): PrdEntry[] => {
      const current = this.prd.read();
      if (!current) throw new NotFoundError('no_seed', `Session ${this.id} has no plan yet (its task list is missing).`);
      const next = current.map((t) => (t.id === taskId ? { ...t, status } : t));
      this.prd.write(next);
      return next;
    },
  };

  readonly seedMeta = {
    read: (): SeedMeta | null => readJsonFile(this.file(SESSION_FILES.seedMeta), SeedMetaSchema),
  };

  /** A session "has a seed" once both its task list and its seed metadata exist. */
  hasSeed(): boolean {
    return fs.existsSync(this.file(SESSION_FILES.prd)) && fs.existsSync(this.file(SESSION_FILES.seedMeta));
  }

  /**
   * The written seed through the schemas, with its locked test files' current contents read from
   * the worktree; `no_seed` before it is written, and a missing test file is reported naming it.
   */
  readSeed(): StoredSeed {
    const prd = this.prd.read();
    const meta = this.seedMeta.read();
    if (prd === null || meta === null) {
      const missing = prd === null ? SESSION_FILES.prd : SESSION_FILES.seedMeta;
      throw new NotFoundError('no_seed', `No seed in ${this.dir} yet: ${missing} is missing.`);
    }
    const { worktree } = this.checkpoint.read();
    const testFiles: Record<string, string> = {};
    for (const file of Object.keys(meta.locked_tests)) {
      const target = resolveTestPath(worktree, file);
      const stat = fs.lstatSync(target, { throwIfNoEntry: false });
      if (!stat?.isFile())
        throw new CorruptFileError(this.file(SESSION_FILES.seedMeta), `it locks ${file}, which is missing from the worktree (or is not a regular file)`);
      testFiles[file] = fs.readFileSync(target, 'utf8');
    }
    return { prd, meta, testFiles };
  }

  /**
   * Writes the seed all or nothing: `first` (the test files in the worktree), then the seed
   * metadata, then the task list — so until the last rename a first seed is not visible at all.
   */
  writeSeedFiles(seed: { prd: PrdEntry[]; meta: SeedMeta }, first: TreeWrite[]): void {
    const tree = this.store.tree;
    Tree.writeFilesAtomic([
      ...first,
      { tree, target: this.file(SESSION_FILES.seedMeta), content: `${JSON.stringify(SeedMetaSchema.parse(seed.meta), null, 2)}\n` },
      { tree, target: this.file(SESSION_FILES.prd), content: `${JSON.stringify(PrdSchema.parse(seed.prd), null, 2)}\n` },
    ]);
  }

  readonly seedProof = {
    read: (): SeedProof | null => readJsonFile(this.file(SESSION_FILES.seedProof), SeedProofSchema),
    /** Derived (the proof can run again), so written atomically but not fsynced. */
    write: (proof: SeedProof): void => this.store.tree.writeJsonAtomic(this.file(SESSION_FILES.seedProof), SeedProofSchema.parse(proof), { durable: false }),
  };

  /** The last add-task's state (add-task.json): what the review page shows after a reload. */
  readonly addTask = {
    read: (): AddTaskState | null => readJsonFile(this.file(SESSION_FILES.addTask), AddTaskStateSchema),
    write: (state: AddTaskState): void => this.store.tree.writeJsonAtomic(this.file(SESSION_FILES.addTask), AddTaskStateSchema.parse(state)),
  };

  readonly interview = {
    read: (): InterviewState | null => readJsonFile(this.file(SESSION_FILES.interview), InterviewStateSchema),
    /** The list shows whether a question waits (`needs_you`), so a write tells its listeners. */
    write: (state: InterviewState): void => {
      this.store.tree.writeJsonAtomic(this.file(SESSION_FILES.interview), InterviewStateSchema.parse(state));
      this.store.bus.sessionsChanged();
    },
  };

  // ── the run's files ─────────────────────────────────────────────────────────────────────────

  readonly progress = {
    append: (taskId: string, outcome: string, title: string): void => runFiles.appendProgress(this.folder, taskId, outcome, title),
    tail: (lines?: number, maxChars?: number): string => runFiles.progressTail(this.dir, lines, maxChars),
    /** Whether a line starting with `prefix` was written. */
    has: (prefix: string): boolean => runFiles.progressLines(this.dir).some((l) => l.startsWith(prefix)),
  };

  readonly ledger = {
    append: (taskId: string, entry: LedgerEntry): void => runFiles.appendLedger(this.folder, taskId, entry),
    /** Oldest first; with a limit, the last `limit` entries. */
    read: (taskId: string, limit?: number): LedgerEntry[] => runFiles.readLedger(this.dir, taskId, limit),
  };

  readonly checks = {
    append: (taskId: string, attempt: CheckAttempt): void => runFiles.appendCheckAttempt(this.folder, taskId, attempt),
    read: (taskId: string): CheckAttempt[] => runFiles.readCheckAttempts(this.dir, taskId),
  };

  readonly sendBacks = {
    append: (taskId: string, sendBack: SendBack): void => runFiles.appendSendBack(this.folder, taskId, sendBack),
    /** Oldest first. */
    read: (taskId: string): SendBack[] => runFiles.readSendBacks(this.dir, taskId),
    /** The one the task's current revision answers, or null for a first revision. */
    current: (task: { id: string; revision?: number | undefined }): SendBack | null =>
      task.revision ? (runFiles.readSendBacks(this.dir, task.id).findLast((s) => s.revision === task.revision) ?? null) : null,
  };

  readonly mutations = {
    read: (taskId: string): MutationReport | null => readJsonFile(this.mutationFile(taskId), MutationReportSchema),
    write: (taskId: string, report: MutationReport): void => {
      const file = this.mutationFile(taskId);
      this.store.tree.mkdir(path.dirname(file), { recursive: true });
      this.store.tree.writeJsonAtomic(file, MutationReportSchema.parse(report));
    },
  };

  /** The evidence receipt of an accepted task's latest revision (issue 28); null before one is written. */
  readonly evidence = {
    read: (taskId: string): Evidence | null => readJsonFile(this.evidenceFile(taskId), EvidenceSchema),
    write: (taskId: string, receipt: Evidence): void => {
      const file = this.evidenceFile(taskId);
      this.store.tree.mkdir(path.dirname(file), { recursive: true });
      this.store.tree.writeJsonAtomic(file, EvidenceSchema.parse(receipt));
    },
  };

  /** A rewind under way: written before anything moves, cleared once everything has. */
  readonly rewindIntent = {
    read: (): RewindIntent | null => readJsonFile(this.file(SESSION_FILES.rewindIntent), RewindIntentSchema),
    write: (intent: RewindIntent): void => this.store.tree.writeJsonAtomic(this.file(SESSION_FILES.rewindIntent), RewindIntentSchema.parse(intent)),
    clear: (): void => this.store.tree.remove(this.file(SESSION_FILES.rewindIntent)),
  };

  /**
   * The Run the API asked for, when runs go through the queue (see RunRequestSchema). `open`
   * replaces any earlier request; `close` takes it away only if it is still the one named, so one
   * request starts at most one run.
   */
  readonly runRequest = {
    open: (now = new Date()): RunRequest => {
      const request = RunRequestSchema.parse({ request_id: `r-${randomBytes(8).toString('hex')}`, requested_at: now.toISOString() });
      this.store.tree.writeJsonAtomic(this.file(SESSION_FILES.runRequest), request);
      return request;
    },
    /** The open request, or null (none, or a file that is not one: nothing may start from it). */
    read: (): RunRequest | null => this.readRunRequest(this.file(SESSION_FILES.runRequest)),
    /**
     * Closes `requestId` if it is the open request; false when it is not (taken, withdrawn,
     * replaced, never made), and then the file is not touched. The request is renamed away before
     * it is removed, which only one process can do, so two workers holding copies of one job
     * cannot both be told yes.
     */
    close: (requestId: string): boolean => {
      if (this.runRequest.read()?.request_id !== requestId) return false;
      const file = this.file(SESSION_FILES.runRequest);
      // Named like an atomic write's temp file, so one a crash leaves behind is swept at the next start.
      const claimed = this.file(`.${SESSION_FILES.runRequest}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        this.store.tree.rename(file, claimed);
      } catch {
        return false; // another process took it first
      }
      if (this.readRunRequest(claimed)?.request_id === requestId) {
        this.store.tree.remove(claimed);
        return true;
      }
      // A newer request arrived between the read and the rename: it stays open.
      this.store.tree.rename(claimed, file);
      return false;
    },
  };

  private readRunRequest(file: string): RunRequest | null {
    try {
      return readJsonFile(file, RunRequestSchema);
    } catch {
      return null;
    }
  }

  /**
   * What rewinds took off tasks: `archive/rewind-<n>/` holds each reset task's ledger, checks and
   * mutation report as they were. Moving is a rename per file, so it repeats safely after a crash.
   */
  readonly archive = {
    /** The rewinds that archived something, ascending. */
    rewinds: (): number[] => {
      const dir = this.file(SESSION_FILES.archiveDir);
      const names = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
      return names
        .map((n) => /^rewind-(\d+)$/.exec(n)?.[1])
        .filter((n): n is string => n !== undefined)
        .map(Number)
        .sort((a, b) => a - b);
    },
    /** The task's files a rewind would archive now, by their names in the session folder. */
    filesOf: (taskId: string): string[] => this.taskFiles(taskId).filter((f) => fs.existsSync(path.join(this.dir, f))),
    /** Moves the task's ledger, checks, mutation report and evidence receipt into `archive/rewind-<n>/`; what is already gone is skipped. */
    take: (n: number, taskId: string): void => {
      const into = path.join(this.file(SESSION_FILES.archiveDir), `rewind-${n}`);
      for (const rel of this.taskFiles(taskId)) {
        const from = path.join(this.dir, rel);
        if (!fs.existsSync(from)) continue;
        const to = path.join(into, rel);
        this.store.tree.mkdir(path.dirname(to), { recursive: true });
        this.store.tree.rename(from, to);
      }
    },
    /** Per rewind that archived any, the task's ledger and checks from before it, oldest rewind first. */
    attempts: (taskId: string): { rewind: number; ledger: LedgerEntry[]; checks: CheckAttempt[] }[] =>
      this.archive.rewinds().flatMap((n) => {
        const dir = path.join(this.file(SESSION_FILES.archiveDir), `rewind-${n}`);
        const ledger = runFiles.readLedger(dir, taskId);
        const checks = runFiles.readCheckAttempts(dir, taskId);
        return ledger.length > 0 || checks.length > 0 ? [{ rewind: n, ledger, checks }] : [];
      }),
  };

  /** A task's own files in the session folder, relative to it (the same layout inside an archive). */
  private taskFiles(taskId: string): string[] {
    const id = TaskIdSchema.parse(taskId);
    return [
      `${SESSION_FILES.ledgerDir}/${id}.jsonl`,
      `${SESSION_FILES.checksDir}/${id}.jsonl`,
      `${SESSION_FILES.mutationsDir}/${id}.json`,
      `${SESSION_FILES.evidenceDir}/${id}.json`,
    ];
  }

  readonly steering = {
    /** `noteId` names a note sent on to a queue worker, which adds it under the id it was given. */
    add: (text: string, now?: Date, noteId?: string): SteeringNote => runFiles.addSteeringNote(this.folder, text, now, noteId),
    read: (): SteeringNote[] => runFiles.readSteeringNotes(this.dir),
    /** The pending notes, marked consumed so the worker gets each exactly once. */
    takePending: (now?: Date): SteeringNote[] => runFiles.takePendingNotes(this.folder, now),
  };

  readonly learnings = {
    append: (task: { id: string; title: string }, learning: string): void => runFiles.appendLearning(this.folder, this.id, task, learning),
    read: (): string | null => runFiles.readLearnings(this.dir),
  };

  readonly summary = {
    /** summary.json with every event logged after it folded in. */
    current: (): Summary => currentSummary(this.log(), this.file(SESSION_FILES.summary), this.id),
    /** Folds in what was logged since `summary` was built, then writes it. */
    save: (summary: Summary): void => saveSummary(this.store.tree, this.file(SESSION_FILES.summary), catchUp(this.log(), summary)),
    /**
     * The summary as of the log's end for readers (the summary route), kept in memory while the
     * log is open, so a long session's summary.json is not read on every request. Do not change it.
     */
    forReaders: (): Promise<Summary> => this.store.summaryOf(this.id),
    /**
     * A finished run's aggregates and whole-run thinned timeline from summary.json's first line,
     * when that is the log's end and no summary is held; null otherwise (read `forReaders`).
     */
    storedWholeView: (): Promise<WholeView | null> => this.store.wholeViewOf(this.id),
  };

  // ── processes ───────────────────────────────────────────────────────────────────────────────

  readonly runLock = {
    /** Takes the session for this process; returns the release. Throws `session_locked` if another live process has it. */
    acquire: (kind: LockKind, hold?: { lease?: string; job?: LockJob }): (() => void) => acquireRunLock(this.file(SESSION_FILES.runLock), this.id, kind, hold),
    /** Throws `session_locked` when another live process runs the session (before any write). */
    assertFree: (): void => assertNotLockedElsewhere(this.file(SESSION_FILES.runLock), this.id),
    heldElsewhere: (): boolean => lockedElsewhere(this.file(SESSION_FILES.runLock)),
    /** The live process (not this one) holding it and what it recorded (its kind), or null. */
    owner: (): PidLockOwner | null => lockOwner(this.file(SESSION_FILES.runLock)),
    /** True while this process holds it under `lease` (a queue worker's hold on the run). */
    holdsLease: (lease: string): boolean => holdsLease(this.file(SESSION_FILES.runLock), lease),
    /** Gives the run up for its holder: a worker whose lease is over. The session can then run elsewhere. */
    revoke: (): void => revokeRunLock(this.file(SESSION_FILES.runLock)),
  };

  /** A folder for the mutation probe's throwaway worktree of one task, removed before use. */
  probeScratch(taskId: string): string {
    return path.join(this.dir, SESSION_FILES.probeScratch, TaskIdSchema.parse(taskId));
  }

  /** A folder for the merge's throwaway worktree, removed before use. */
  mergeScratch(): string {
    return this.file(SESSION_FILES.mergeScratch);
  }

  /**
   * Removes the temp files atomic writes left in the session's folders (a kill between staging and
   * renaming). Only while no process holds the session: the caller checks no job of its own has
   * started, and a run elsewhere (a queue worker, `tilth run`) keeps its temps. Returns how many.
   */
  removeStaleTemps(): number {
    if (this.runLock.heldElsewhere()) return 0;
    const folders = ['', SESSION_FILES.ledgerDir, SESSION_FILES.checksDir, SESSION_FILES.sendBacksDir, SESSION_FILES.mutationsDir, SESSION_FILES.evidenceDir];
    return folders.reduce((n, folder) => n + this.store.tree.removeStaleTemps(path.join(this.dir, folder), 0).length, 0);
  }

  /** Deletes the session folder (its worktree must already be detached from git). */
  remove(): void {
    this.store.forget(this.id);
    this.store.tree.remove(this.dir, { recursive: true });
    this.store.bus.sessionsChanged();
  }
}
