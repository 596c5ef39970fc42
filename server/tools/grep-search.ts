/**
 * Runs the grep tool's regex search off the server's event loop, with a deadline.
 *
 * Why a thread: the pattern is the model's, and JavaScript regexes backtrack — `(a+)+$` over one
 * line of 27 `a`s and a `!` held the event loop for 7 s, and every request, stream and run of the
 * server with it. The search (reading the files and matching) runs in a worker thread
 * (grep-worker.mjs); the main thread only waits for its reply. A search past its deadline is
 * terminated with its thread — V8 interrupts even a regex mid-backtrack — and reported as
 * `timedOut`, never awaited to the end.
 *
 * Threads are reused: a finished search returns its thread to a small idle pool, so a grep pays
 * the thread's start-up (~30 ms) once rather than per call. Concurrent greps (several runs and an
 * interview) each get their own thread, so one slow pattern never delays another's deadline.
 */
import { Worker } from 'node:worker_threads';

export interface GrepSearchRequest {
  pattern: string;
  /** Absolute paths, already confined by the caller. */
  files: string[];
  /** Files larger than this are skipped, and never read whole. */
  maxFileBytes: number;
  /** A NUL byte within this many leading bytes marks a binary file, which is skipped. */
  sniffBytes: number;
  maxResults: number;
  /** Hit lines come back cut to this many chars plus one, so the caller can mark the cut. */
  maxLineChars: number;
}

export type GrepSearchResult = { timedOut: false; hits: Array<[fileIndex: number, lineNumber: number, text: string]>; more: number } | { timedOut: true };

const WORKER_URL = new URL('./grep-worker.mjs', import.meta.url);
const MAX_IDLE = 2;
const idle: Worker[] = [];

function startWorker(): Worker {
  const worker = new Worker(WORKER_URL);
  // An idle thread must not keep the process alive, nor crash it if it dies.
  worker.unref();
  const forget = () => {
    const at = idle.indexOf(worker);
    if (at >= 0) idle.splice(at, 1);
  };
  worker.on('error', forget);
  worker.on('exit', forget);
  return worker;
}

export function searchOffThread(request: GrepSearchRequest, timeoutMs: number): Promise<GrepSearchResult> {
  const worker = idle.pop() ?? startWorker();
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (reply: { hits: Array<[number, number, string]>; more: number }) => {
      done();
      if (idle.length < MAX_IDLE) idle.push(worker);
      else void worker.terminate();
      resolve({ timedOut: false, ...reply });
    };
    const onError = (err: Error) => {
      done();
      void worker.terminate();
      reject(err);
    };
    const onExit = (code: number) => {
      done();
      reject(new Error(`the grep thread exited unexpectedly (code ${code})`));
    };
    const timer = setTimeout(() => {
      done();
      void worker.terminate();
      resolve({ timedOut: true });
    }, timeoutMs);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(request);
  });
}
