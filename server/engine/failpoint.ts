/**
 * Crash tests need a kill -9 at an exact moment that no outside timing can hit reliably (between
 * a task's commit and its plan update, say). `TILTH_FAILPOINT=<name>` in the environment makes
 * this process SIGKILL itself when it reaches that point. Unset, it does nothing.
 */
export type FailpointName = 'after_task_commit' | 'after_task_done_prd';

export function failpoint(name: FailpointName): void {
  if (process.env.TILTH_FAILPOINT === name) process.kill(process.pid, 'SIGKILL');
}
