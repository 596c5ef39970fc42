import { describe, expect, it } from 'vitest';
import { CheckpointSchema, CustomChecksSchema, SeedMetaSchema } from './files.ts';

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

describe('CustomChecksSchema', () => {
  const messages = (value: unknown) => CustomChecksSchema.safeParse(value).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];

  it('takes a test command with {files}, and a one-case command beside a test command that writes {junit}', () => {
    expect(messages({ test: 'bun test {files}' })).toEqual([]);
    expect(messages({ test: 'bun test {files} --reporter-outfile={junit}', case: 'bun test {file} -t {case_pattern} --reporter-outfile={junit}' })).toEqual([]);
    expect(messages({ test: 'deno test {files} --junit-path={junit}', case: 'deno test {file} --filter {case} --junit-path={junit}' })).toEqual([]);
  });

  it('says what each command lacks', () => {
    expect(messages({ test: 'bun test' })).toEqual(['test: the test command must contain {files}']);
    expect(messages({ test: 'x {files} {junit}', case: 'x {case} {junit}' })).toEqual(['case: the one-case command must contain {file}']);
    expect(messages({ test: 'x {files} {junit}', case: 'x {file} {junit}' })).toEqual(['case: the one-case command must contain {case} or {case_pattern}']);
    expect(messages({ test: 'x {files} {junit}', case: 'x {file} {case}' })).toEqual([
      'case: the one-case command must contain {junit}: its result is read from the report',
    ]);
    expect(messages({ test: 'x {files}', case: 'x {file} {case} {junit}' })).toEqual([
      'case: a one-case command needs a test command with {junit}: both are read from the JUnit report',
    ]);
  });
});
