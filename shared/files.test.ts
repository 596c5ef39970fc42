import { describe, expect, it } from 'vitest';
import { CheckpointSchema, SeedMetaSchema } from './files.ts';

describe('files from before issue 12', () => {
  it('loads a checkpoint without an environment, and with one of the original presets', () => {
    const cp = CheckpointSchema.parse({
      session_id: '20260525-103149-3800ea',
      status: 'prepared',
      source: '/repo',
      base_branch: 'main',
      base_sha: 'abc',
      branch: 'session/20260525-103149-3800ea',
      worktree: '/sessions/x/worktree',
      checks_preset: 'node',
      created_at: '2026-05-25T10:31:49.000Z',
      updated_at: '2026-05-25T10:31:49.000Z',
    });
    expect(cp.project_env).toBeNull();
    expect(cp.checks_preset).toBe('node');
  });

  it('loads a seed-meta without an environment', () => {
    const meta = SeedMetaSchema.parse({
      interviewer_model: 'm',
      started_at: '2026-05-25T10:31:49.000Z',
      ended_at: '2026-05-25T10:31:49.000Z',
      tokens: { prompt: 0, completion: 0, total: 0 },
      tldr: '',
      open_questions: [],
      blockers: [],
      scope_notes: '',
      checks_preset: 'pytest',
      locked_tests: { 'tests/test_t001_x.py': 'ab' },
    });
    expect(meta.project_env).toBeUndefined();
  });
});
