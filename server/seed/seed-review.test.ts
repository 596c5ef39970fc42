import { describe, expect, it } from 'vitest';
import { PrdEntrySchema, SeedMetaSchema } from '../../shared/files.ts';
import { seedKey } from './seed-review.ts';

const meta = SeedMetaSchema.parse({
  interviewer_model: 'm',
  started_at: '2026-01-01T00:00:00.000Z',
  ended_at: '2026-01-01T00:00:00.000Z',
  tokens: { prompt: 0, completion: 0, total: 0 },
  tldr: '',
  open_questions: [],
  blockers: [],
  scope_notes: '',
  checks_preset: 'node',
  locked_tests: { 'tests/t001_x.test.js': 'ab' },
});
const task = PrdEntrySchema.parse({
  id: 'T-001',
  title: 'Due dates',
  description: 'Add setDue(todo, date).',
  acceptance_criteria: ['setDue stores the date'],
  criteria_tests: [['stores a due date']],
});

describe('seedKey: when the contract check runs again', () => {
  it('changes when a criterion, title or description is reworded, so an edit is checked again', () => {
    const before = seedKey([task], meta);
    expect(seedKey([{ ...task, acceptance_criteria: ['setDue stores an ISO date'] }], meta)).not.toBe(before);
    expect(seedKey([{ ...task, title: 'Due dates on todos' }], meta)).not.toBe(before);
    expect(seedKey([{ ...task, description: 'Add setDue(todo, iso).' }], meta)).not.toBe(before);
  });

  it('stays the same when only the status moves, so a reload does not run the tests again', () => {
    expect(seedKey([{ ...task, status: 'in_progress' }], meta)).toBe(seedKey([task], meta));
  });
});
