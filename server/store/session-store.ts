/**
 * Session folders under the sessions root (SPEC §3): creating them, reading and writing their
 * files through the schemas in `shared/files.ts`, and the event log with its bus.
 *
 * Everything that touches a session folder goes through here, so ids are validated, JSON is
 * written atomically, and events are on disk before anyone hears of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SessionListItem } from '../../shared/api.ts';
import type { EventInput, SessionStatus, TilthEvent } from '../../shared/events.ts';
import { emptySummary, TIMELINE_SERIES, type Summary } from '../../shared/summary.ts';
import { CheckpointSchema, type Checkpoint } from '../../shared/files.ts';
import { AppError, NotFoundError } from '../errors/app-error.ts';
import type { SandboxMode, SandboxConfig } from '../proc/sandbox.ts';
import { Tree } from '../fs/tree.ts';
import { EventBus } from './event-bus.ts';
import { EventLog } from './event-log.ts';
import { catchUp, catchUpAsync, storedSummaryAsync, storedWholeView, type WholeView } from './summary-file.ts';
import { readJsonFile } from './json-file.ts';
import { SessionHandle, type SessionStateKey, type SessionStoreCore, type StopInfo } from './session-handle.ts';
import { SESSION_FILES as FILES } from './session-files.ts';
import { isSessionId, newSessionId, sessionDir } from './session-id.ts';

export interface NewSession {
  source: string;
  brief: string;
  title?: string;
  baseBranch: string | null;
  baseSha: string | null;
  status?: SessionStatus;
}

export interface LogCacheLimits {
  /**
   * Index memory the open logs may hold (8 bytes per event); default 8 MB, a million events'
   * worth. Reopening a log let go costs one read of its events.idx (about 15 ms at a million
   * events, 1–2 ms at 100k).
   */
  bytes: number;
  /** Open logs kept at most, whatever their size; default 64. */
  logs: number;
  /**
   * Timeline rows the summaries held in memory may have in all (about 115 bytes each); default
   * 60k, about 300k events' worth. Past it the least recently read ones nobody follows are
   * let go and read again from summary.json when asked for; the one being read is kept whatever
   * its size.
   */
  summaryRows: number;
}

const DEFAULT_LOG_CACHE: LogCacheLimits = { bytes: 8 * 1024 * 1024, logs: 64, summaryRows: 60_000 };

export interface StoreOptions {
  logCache?: LogCacheLimits;
  /**
   * How the sessions' untrusted commands run: the mode (default `auto`) and folders to hide from
   * them besides the sessions folder itself (the Tilth home, which holds the keys).
   */
  sandbox?: { mode: SandboxMode; alsoHide?: readonly string[] };
}

export class SessionStore {
  readonly bus = new EventBus();
  private readonly logs = new Map<string, EventLog>();
  /** Per open log, its summary kept current in memory (see summaryOf). */
  private readonly summaries = new Map<string, Summary>();
  /** Per session, the highest seq published on the bus (see publishAppendedElsewhere). */
  private readonly published = new Map<string, number>();
  /** Per session, a check that must pass before this process writes its log or checkpoint (see guardWrites). */
  private readonly writeGuards = new Map<string, () => void>();
  /** Every write under the sessions folder goes through it (no link is followed). */
  readonly tree: Tree;
  private readonly logCache: LogCacheLimits;
  /**
   * The sandbox policy of every session's untrusted commands. It hides every session's files and
   * other sessions' worktrees (a command's own worktree is bound back on top).
   */
  readonly sandbox: SandboxConfig;

  constructor(
    readonly root: string,
    options: StoreOptions = {},
  ) {
    this.tree = Tree.ensure(root);
    this.logCache = options.logCache ?? DEFAULT_LOG_CACHE;
    this.sandbox = { mode: options.sandbox?.mode ?? 'auto', hide: [root, ...(options.sandbox?.alsoHide ?? [])].map((p) => path.resolve(p)) };
    this.core = {
      tree: this.tree,
      sandbox: this.sandbox,
      bus: this.bus,
      dir: (id) => this.dir(id),
      exists: (id) => this.exists(id),
      readCheckpoint: (id) => this.readCheckpoint(id),
      updateCheckpoint: (id, change, options) => this.updateCheckpoint(id, change, options),
      setStatus: (id, to, stop) => this.setStatus(id, to, stop),
      guardWrites: (id, check) => this.guardWrites(id, check),
      emit: (id, input) => this.emit(id, input),
      log: (id) => this.log(id),
      openLog: (id) => this.openLog(id),
      summaryOf: (id) => this.summaryOf(id),
      wholeViewOf: (id) => this.wholeViewOf(id),
      publishAppendedElsewhere: (id) => this.publishAppendedElsewhere(id),
      listItem: (id) => this.listItem(id),
      state: (id, key) => this.state(id, key),
      forget: (id) => this.forget(id),
    };
  }

  /** Per session, its state of each kind (see `sessionState`), dropped with the session. */
  private readonly states = new Map<string, Map<SessionStateKey<unknown>, unknown>>();
  /** The by-id operations, for the handles only (see SessionStoreCore). */
  private readonly core: SessionStoreCore;

  /** The handle through which everything reads and writes one session's folder. */
  session(id: string): SessionHandle {
    return new SessionHandle(this.core, id);
  }

  private state<T>(id: string, key: SessionStateKey<T>): T {
    let states = this.states.get(id);
    if (!states) {
      states = new Map();
      this.states.set(id, states);
    }
    if (!states.has(key)) states.set(key, key.init());
    return states.get(key) as T;
  }

  /** The session's folder; for the store and its handle, and tests. */
  private dir(id: string): string {
    return sessionDir(this.root, id);
  }

  private file(id: string, name: string): string {
    return path.join(this.dir(id), name);
  }

  private exists(id: string): boolean {
    return fs.existsSync(path.join(this.dir(id), FILES.checkpoint));
  }

  /** Session ids on disk, newest first. Folders whose names are not ids are ignored. */
  ids(): string[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.root);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    return names.filter(isSessionId).sort().reverse();
  }

  /** Creates the folder, the checkpoint and the log; the worktree is the git layer's job. */
  create(init: NewSession, now: Date = new Date()): Checkpoint {
    let id = newSessionId(now);
    while (fs.existsSync(this.dir(id))) id = newSessionId(now);
    const dir = this.dir(id);
    this.tree.mkdir(dir);
    const stamp = now.toISOString();
    const checkpoint = CheckpointSchema.parse({
      session_id: id,
      status: init.status ?? 'interviewing',
      source: init.source,
      base_branch: init.baseBranch,
      base_sha: init.baseSha,
      branch: `session/${id}`,
      worktree: path.join(dir, FILES.worktree),
      brief: init.brief,
      title: init.title ?? '',
      created_at: stamp,
      updated_at: stamp,
    });
    this.tree.writeJsonAtomic(path.join(dir, FILES.checkpoint), checkpoint);
    this.emit(id, { type: 'status_changed', data: { from: null, to: checkpoint.status } });
    this.bus.sessionsChanged();
    return checkpoint;
  }

  private readCheckpoint(id: string): Checkpoint {
    const checkpoint = readJsonFile(this.file(id, FILES.checkpoint), CheckpointSchema);
    if (!checkpoint) throw new NotFoundError('session_not_found', `No session ${id} under ${this.root}`);
    return checkpoint;
  }

  /**
   * Makes every later append to the session's log and write of its checkpoint by this process
   * call `check` first, which throws to refuse it (a queue worker whose lease on the run is
   * over); null lifts it.
   */
  private guardWrites(id: string, check: (() => void) | null): void {
    if (check) this.writeGuards.set(id, check);
    else this.writeGuards.delete(id);
  }

  /** Read-modify-write of the checkpoint; the new file replaces the old atomically. */
  private updateCheckpoint(id: string, change: (current: Checkpoint) => Partial<Checkpoint>, options: { durable?: boolean } = {}): Checkpoint {
    this.writeGuards.get(id)?.();
    const current = this.readCheckpoint(id);
    const next = CheckpointSchema.parse({ ...current, ...change(current), updated_at: new Date().toISOString() });
    this.tree.writeJsonAtomic(this.file(id, FILES.checkpoint), next, options);
    this.bus.sessionsChanged();
    return next;
  }

  /** Changes status, records why, and logs `status_changed` (plus `stop` when it is a stop). */
  private setStatus(id: string, to: SessionStatus, stop?: StopInfo): Checkpoint {
    let from: SessionStatus | null = null;
    const next = this.updateCheckpoint(id, (current) => {
      from = current.status;
      return stop ? { status: to, last_stop: stop.reason, last_error: stop.error ?? null } : { status: to };
    });
    if (stop) {
      this.emit(id, {
        type: 'stop',
        data: { reason: stop.reason, ...(stop.phase ? { phase: stop.phase } : {}), ...(stop.error ? { error: stop.error } : {}) },
      });
    }
    this.emit(id, { type: 'status_changed', data: { from, to, ...(stop ? { reason: stop.reason } : {}) } });
    return next;
  }

  /**
   * The session's log, for synchronous reads and appends. Readers on a request path use
   * `openLog` first, so a cold log is indexed without blocking the event loop.
   */
  private log(id: string): EventLog {
    let log = this.logs.get(id);
    if (log) {
      // Most recently used last: eviction walks from the front.
      this.logs.delete(id);
      this.logs.set(id, log);
      return log;
    }
    log = new EventLog(this.file(id, FILES.events), id, this.file(id, FILES.eventsIndex), this.tree);
    this.logs.set(id, log);
    this.evictIdleLogs(id);
    return log;
  }

  /** The session's log with its index built in the background (the sidecar, then what follows it). */
  private async openLog(id: string): Promise<EventLog> {
    const log = this.log(id);
    await log.ready();
    // Whatever is on disk when nobody has been following the session is history that readers get
    // from the log; only later appends by another process are ours to publish
    // (publishAppendedElsewhere). A subscriber that just joined reads its backlog from disk.
    if (!this.published.has(id)) this.published.set(id, log.lastSeq);
    this.evictIdleLogs(id);
    return log;
  }

  /**
   * Keeps the open logs' indexes and their number within the cache limits by
   * closing the least recently used ones nobody follows live. A closed log leaves its sidecar
   * current, so opening it again reads that instead of the whole log.
   */
  private evictIdleLogs(keep: string): void {
    let bytes = 0;
    for (const log of this.logs.values()) bytes += log.memoryBytes;
    for (const [id, log] of this.logs) {
      if (bytes <= this.logCache.bytes && this.logs.size <= this.logCache.logs) return;
      if (id === keep || this.bus.subscriberCount(id) > 0) continue;
      bytes -= log.memoryBytes;
      log.close();
      this.logs.delete(id);
      this.summaries.delete(id);
    }
  }

  /**
   * The session's summary as of its log's end, for readers (the summary route): kept in memory
   * while its log is open (and within the cache's rows) and folded forward from there, so a long
   * session's summary.json is not read on every request. Callers must not change it.
   */
  private async summaryOf(id: string): Promise<Summary> {
    const held = this.summaries.get(id);
    if (held) {
      const log = await this.openLog(id);
      this.summaries.delete(id);
      this.summaries.set(id, held);
      return catchUp(log, held);
    }
    const log = this.log(id);
    let summary: Summary;
    const stored = await storedSummaryAsync(this.file(id, FILES.summary));
    if (stored && !log.indexed && stored.last_seq === (await log.readTailCold(1))[0]?.seq) {
      // A cold log the file already covers (a finished run): no need to wait for its index.
      void this.openLog(id).catch(() => {});
      summary = stored;
    } else {
      await this.openLog(id);
      // Missing, older or damaged: it is derived, so it is rebuilt from the log.
      summary = await catchUpAsync(log, stored ?? emptySummary(id));
    }
    // Another request may have read it meanwhile: keep one, fold forward.
    const first = this.summaries.get(id) ?? summary;
    this.summaries.delete(id);
    this.summaries.set(id, first);
    this.evictIdleSummaries(id);
    return log.indexed ? catchUp(log, first) : first;
  }

  /**
   * A finished run's summary as a dashboard first asks for it, without summary.json's rows: the
   * file's first line (aggregates and the whole run's thinned timeline) when it covers the log's
   * end. Null while a summary is held (it is current, and its view is cached) or when the file
   * is behind the log, has no stored view or is damaged: the caller reads the summary then.
   */
  private async wholeViewOf(id: string): Promise<WholeView | null> {
    if (this.summaries.has(id)) return null;
    const stored = await storedWholeView(this.file(id, FILES.summary));
    if (stored === null) return null;
    const log = this.log(id);
    const lastSeq = log.indexed ? log.lastSeq : ((await log.readTailCold(1))[0]?.seq ?? 0);
    if (stored.head.last_seq !== lastSeq) return null;
    // The events page comes next: the log is indexed meanwhile, as the summary's first read does.
    if (!log.indexed) void this.openLog(id).catch(() => {});
    return stored;
  }

  /** Keeps the held summaries' timeline rows within the cache limit, least recently read first. */
  private evictIdleSummaries(keep: string): void {
    const rows = (summary: Summary) => TIMELINE_SERIES.reduce((n, series) => n + summary.timeline[series].length, 0);
    let total = 0;
    for (const summary of this.summaries.values()) total += rows(summary);
    for (const [id, summary] of this.summaries) {
      if (total <= this.logCache.summaryRows) return;
      if (id === keep || this.bus.subscriberCount(id) > 0) continue;
      total -= rows(summary);
      this.summaries.delete(id);
    }
  }

  /** Summaries held in memory now (for tests). */
  get heldSummaryCount(): number {
    return this.summaries.size;
  }

  /** Logs held open now (for tests and the server-scale bench). */
  get openLogCount(): number {
    return this.logs.size;
  }

  /** Disk first, then wire: the event is appended before any subscriber sees it. */
  private emit(id: string, input: EventInput): TilthEvent {
    this.writeGuards.get(id)?.();
    const log = this.log(id);
    const before = log.lastSeq;
    const event = log.append(input);
    // A new log gets log_opened first; publish it too so live subscribers see no gap.
    if (event.seq > before + 1) for (const opened of log.readAfter(before, event.seq - before - 1)) this.bus.publish(id, opened);
    this.published.set(id, event.seq);
    this.bus.publish(id, event);
    return event;
  }

  /**
   * Publishes events another process appended to this session's log (a headless `tilth run`),
   * so live subscribers see them too. Called by the watcher when the log changes; cheap when
   * nothing is new. Events are already on disk, so the ordering rule still holds.
   */
  private publishAppendedElsewhere(id: string): void {
    // Nobody live: a later subscriber reads these from disk as its backlog, so a log nobody
    // follows is not even opened, and the mark is set again when someone follows it.
    if (this.bus.subscriberCount(id) === 0) {
      this.published.delete(id);
      return;
    }
    const log = this.log(id);
    // Still being indexed for the subscriber that just joined: its backlog read covers these.
    if (log.indexing) return;
    const last = log.lastSeq;
    let seq = this.published.get(id);
    if (seq === undefined) {
      // First sight since someone followed: what is on disk is their backlog.
      this.published.set(id, last);
      return;
    }
    while (seq < last) {
      const page = log.readAfter(seq, 500);
      if (page.length === 0) break;
      for (const event of page) this.bus.publish(id, event);
      seq = page.at(-1)!.seq;
    }
    this.published.set(id, seq);
  }

  /** One list row per session folder; a session with an unreadable file still shows, with the problem. */
  list(): SessionListItem[] {
    return this.ids().map((id) => this.listItem(id));
  }

  private listItem(id: string): SessionListItem {
    try {
      const cp = this.readCheckpoint(id);
      const prd = this.session(id).prd.tasks();
      return {
        id,
        status: cp.status,
        source: cp.source,
        title: cp.title,
        brief: cp.brief,
        tasks: { total: prd.length, done: prd.filter((t) => t.status === 'done').length },
        cost_usd: cp.usage.cost_usd + cp.interview_usage.cost_usd,
        last_stop: cp.last_stop,
        last_error: cp.last_error,
        created_at: cp.created_at,
        updated_at: cp.updated_at,
        problem: null,
        needs_you: cp.status === 'interviewing' && this.session(id).interview.read()?.pending != null,
      };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const stat = fs.statSync(this.dir(id), { throwIfNoEntry: false });
      const when = (stat?.mtime ?? new Date(0)).toISOString();
      return {
        id,
        status: 'failed',
        source: '',
        title: '',
        brief: '',
        tasks: { total: 0, done: 0 },
        cost_usd: 0,
        last_stop: null,
        last_error: null,
        created_at: when,
        updated_at: when,
        problem: err.message,
        needs_you: false,
      };
    }
  }

  /** Drops what is held open for a session (before its folder is removed). */
  private forget(id: string): void {
    this.logs.get(id)?.close();
    this.logs.delete(id);
    this.summaries.delete(id);
    this.published.delete(id);
    this.states.delete(id);
  }

  close(): void {
    for (const log of this.logs.values()) log.close();
    this.logs.clear();
    this.summaries.clear();
    this.states.clear();
  }
}
