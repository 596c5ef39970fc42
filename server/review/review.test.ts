import { describe, expect, it } from 'vitest';
import { CheckpointSchema, type Checkpoint } from '../../shared/files.ts';
import type { SessionStatus } from '../../shared/events.ts';
import { mergeAllowed, stateRefusal } from './review.ts';

const SHA = 'abc123def4567890abc123def4567890abc12345';
const merged = { strategy: 'squash' as const, into: 'main', sha: SHA, backup_ref: 'refs/tilth/backup/x', undo: 'git reset', at: '2026-01-01T00:00:00.000Z' };

function checkpoint(status: SessionStatus, extra: Partial<Checkpoint> = {}): Checkpoint {
  return {
    ...CheckpointSchema.parse({
      session_id: 's1',
      status,
      source: '/repo',
      base_branch: 'main',
      base_sha: 'base',
      branch: 'session/s1',
      worktree: '/wt',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    }),
    ...extra,
  };
}

const mergeReason = (cp: Checkpoint) => mergeAllowed(cp, 'head', true).reason;

describe('merge refusals say the real state', () => {
  it('says a merged session is already merged, where and at which commit', () => {
    expect(mergeReason(checkpoint('merged', { merged }))).toBe('already merged into main at abc123de');
  });

  it('says a session cleansed after its merge was merged, not that its run must finish', () => {
    const reason = mergeReason(checkpoint('archived', { merged }));
    expect(reason).toBe('already merged into main at abc123de, and then cleansed: its branch is gone');
    expect(reason).not.toMatch(/finish the run|a archived/);
  });

  it('says a session cleansed after a push was pushed', () => {
    const pushed = { remote: 'origin', branch: 'session/s1', at: '2026-01-01T00:00:00.000Z' };
    expect(mergeReason(checkpoint('archived', { pushed }))).toBe('already pushed to origin as session/s1, and then cleansed: its branch is gone');
  });

  it('tells a failed interview to retry or discard, not to finish a run it never had', () => {
    expect(mergeReason(checkpoint('failed'))).toBe(
      'the interview failed before it wrote a plan, so there is no work to merge: retry the interview, or discard the session',
    );
  });

  it('tells a running session to let the run finish or stop it', () => {
    expect(mergeReason(checkpoint('running'))).toBe('the run is still going: let it finish, or stop it first');
  });

  it('says a session still interviewing or not yet run has nothing to merge', () => {
    expect(mergeReason(checkpoint('interviewing'))).toBe(
      'the interview is still going: answer its questions and run the plan it writes; there is nothing to merge yet',
    );
    expect(mergeReason(checkpoint('prepared'))).toBe('the run has not started: run the plan first; there is nothing to merge yet');
  });

  it('allows a finished or stopped session with work on its branch', () => {
    expect(mergeAllowed(checkpoint('all_done'), 'head', true)).toEqual({ allowed: true, reason: null });
    expect(mergeAllowed(checkpoint('stopped'), 'head', true)).toEqual({ allowed: true, reason: null });
  });

  it('never writes "a" before a vowel', () => {
    const statuses: SessionStatus[] = ['interviewing', 'prepared', 'running', 'failed', 'merged', 'archived'];
    for (const status of statuses) expect(mergeReason(checkpoint(status))).not.toMatch(/\ba [aeiou]/);
  });
});

describe('push refusals', () => {
  it('let a merged session be pushed', () => {
    expect(stateRefusal(checkpoint('merged', { merged }), 'push')).toBeNull();
  });

  it('say what a failed interview needs', () => {
    expect(stateRefusal(checkpoint('failed'), 'push')).toBe(
      'the interview failed before it wrote a plan, so there is no work to push: retry the interview, or discard the session',
    );
  });
});
