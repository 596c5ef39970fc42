import { describe, expect, it } from 'vitest';
import {
  canAddNote,
  canMerge,
  canPush,
  canRun,
  failedTaskSubject,
  isFailedSubject,
  isTaskWorkSubject,
  sessionSubject,
  subjectRevision,
  taskSubject,
} from './session-rules.ts';

describe('session rules', () => {
  it('lets a prepared or stopped session run, and nothing else', () => {
    expect(canRun('prepared')).toBe(true);
    expect(canRun('stopped')).toBe(true);
    expect(canRun('running')).toBe(false);
    expect(canRun('all_done')).toBe(false);
  });

  it('takes notes while a run is ahead, merges a finished or paused run, and pushes a merged one too', () => {
    expect(['prepared', 'running', 'stopped'].every((s) => canAddNote(s as never))).toBe(true);
    expect(canAddNote('all_done')).toBe(false);
    expect(canMerge('merged')).toBe(false);
    expect(canPush('merged')).toBe(true);
  });
});

describe('commit subjects', () => {
  const task = { id: 'T-001', title: 'Add the parser' };

  it('reads back what the run writes', () => {
    expect(isTaskWorkSubject(taskSubject(task))).toBe(true);
    expect(isTaskWorkSubject(taskSubject(task), 'T-001')).toBe(true);
    expect(isTaskWorkSubject(taskSubject(task), 'T-002')).toBe(false);
    const failed = failedTaskSubject(task, 'max_iterations');
    expect(failed).toBe('T-001: FAILED (max_iterations): Add the parser');
    expect(isFailedSubject(failed)).toBe(true);
    expect(isTaskWorkSubject(failed)).toBe(false);
    expect(isTaskWorkSubject(failed, 'T-001')).toBe(false);
  });

  it('reads a revision after a send-back as the same task’s work, with its number', () => {
    const rev = { ...task, revision: 2 };
    expect(taskSubject(rev)).toBe('T-001 (rev 2): Add the parser');
    expect(taskSubject({ ...task, revision: undefined })).toBe('T-001: Add the parser');
    expect(isTaskWorkSubject(taskSubject(rev), 'T-001')).toBe(true);
    expect(isTaskWorkSubject(taskSubject(rev))).toBe(true);
    expect(isTaskWorkSubject(taskSubject(rev), 'T-002')).toBe(false);
    expect(subjectRevision(taskSubject(rev), 'T-001')).toBe(2);
    expect(subjectRevision(taskSubject(task), 'T-001')).toBe(1);
    expect(subjectRevision('T-0011: other', 'T-001')).toBe(null);
    const failed = failedTaskSubject(rev, 'iter_cap');
    expect(failed).toBe('T-001 (rev 2): FAILED (iter_cap): Add the parser');
    expect(isFailedSubject(failed)).toBe(true);
    expect(isTaskWorkSubject(failed, 'T-001')).toBe(false);
  });

  it('does not take a commit made by hand for a task’s', () => {
    expect(isTaskWorkSubject('fix typo')).toBe(false);
    expect(isFailedSubject('T-1: FAILED (x): y')).toBe(false);
  });
});

describe('the merge commit subject', () => {
  const session = { title: '', brief: '', branch: 'session/s1' };

  it("drops the brief's trailing full stop", () => {
    expect(sessionSubject({ ...session, brief: 'Add due dates to todos.\nThey sort by date.' })).toBe('Add due dates to todos');
  });

  it('drops other trailing punctuation and spaces, and keeps what is inside', () => {
    expect(sessionSubject({ ...session, title: 'Fix parse(), then ship!!  ' })).toBe('Fix parse(), then ship');
    expect(sessionSubject({ ...session, title: 'Add v1.2 support…' })).toBe('Add v1.2 support');
  });

  it("takes the brief's whole first sentence for a title cut short, never a subject that stops mid-word", () => {
    const brief = 'Let a todo carry a due date that the listing shows after its title, so overdue ones stand out. Keep the format plain.';
    const title = `${brief.slice(0, 79)}…`;
    expect(sessionSubject({ ...session, title, brief })).toBe('Let a todo carry a due date that the listing shows after its title, so overdue ones stand out');
    // A title that ends in … of its own is the user's: kept.
    expect(sessionSubject({ ...session, title: 'Wait for it…', brief: 'Something else entirely.' })).toBe('Wait for it');
    // A version's dot does not end the sentence.
    expect(sessionSubject({ ...session, brief: 'Support v1.2 files. Then more.' })).toBe('Support v1.2 files');
  });

  it('prefers the title, and falls back to the branch when nothing is left', () => {
    expect(sessionSubject({ ...session, title: 'Due dates', brief: 'Add due dates.' })).toBe('Due dates');
    expect(sessionSubject({ ...session, brief: '...' })).toBe('session/s1');
  });
});
