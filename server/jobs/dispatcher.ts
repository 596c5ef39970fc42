/**
 * Where runs are started, queued and stopped: one seam with two implementations (issue 18).
 * `LocalDispatcher` (local-dispatcher.ts) runs them inside this process with an in-memory queue,
 * the default; a queue dispatcher hands them to a durable queue that `tilth worker` processes
 * take them from. The routes only ever talk to this interface.
 */
import type { RunState } from '../../shared/api.ts';
import type { SteeringNote } from '../../shared/files.ts';
import type { QueueView } from './queue.ts';

export interface RunDispatcher {
  /** Starts the run now if a slot is free, else queues it; a run already queued or running is left as it is. */
  request(sessionId: string): Promise<RunState>;
  /** Takes a queued run out of the queue; false if it was not queued. */
  cancel(sessionId: string): Promise<boolean>;
  /** Stops the session's running run wherever it runs and waits for it to end; false if none runs. */
  stop(sessionId: string, reason: string): Promise<boolean>;
  /** Queued (with its position), running or idle, as last known. */
  state(sessionId: string): RunState;
  /**
   * Hands a guidance note to the process running the session, which writes and emits it (one
   * writer per session); resolves with the note once written. Null when no other process runs
   * it: the caller writes the note (for the run under way here, or the next one).
   */
  note(sessionId: string, text: string): Promise<SteeringNote | null>;
  /** The concurrency limit in the configuration changed. */
  limitChanged(): void;
  /** The queue and its connected workers, for the settings page; null when runs execute in this process. */
  describe(): Promise<QueueView | null>;
  /** Lets go of its connections (runs in this process are stopped by their job runner). */
  close(): Promise<void>;
}
