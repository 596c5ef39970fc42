import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fillPrompt, loadPrompt, PromptError } from './prompts.ts';
import { tempDir } from '../testing/test-app.ts';

describe('prompts', () => {
  it('fills named slots', () => {
    expect(fillPrompt('Task {{task}} in {{ workspace }}.', { task: 'T-001', workspace: '/w' })).toBe('Task T-001 in /w.');
  });

  it('refuses a missing slot and an unknown one, naming both', () => {
    expect(() => fillPrompt('{{a}} {{b}}', { a: '1', c: '3' }, 'x.md')).toThrow(new PromptError('x.md: missing slot(s) b; unknown slot(s) c'));
  });

  it('inserts values literally, never expanding slots inside them', () => {
    expect(fillPrompt('{{a}}', { a: '{{a}} $& $1' })).toBe('{{a}} $& $1');
  });

  it('loads a prompt file by name and rejects names that are paths', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'hello.md'), 'Hello {{who}}');
    expect(loadPrompt('hello', { who: 'you' }, dir)).toBe('Hello you');
    expect(() => loadPrompt('../etc/passwd', {}, dir)).toThrow(/bad prompt name/);
    expect(() => loadPrompt('absent', {}, dir)).toThrow(/no prompt file/);
    fs.rmSync(dir, { recursive: true });
  });
});

describe('the product prompts', () => {
  it('load with exactly their slots', () => {
    expect(loadPrompt('interview', { checks_preset: 'pytest', test_file_pattern: 'tests/test_t<NNN>_<slug>.py', existing_task_ids: 'none' })).toContain(
      'tests/test_t<NNN>_<slug>.py',
    );
    for (const name of ['worker', 'evaluator', 'learnings']) expect(loadPrompt(name, {}).length).toBeGreaterThan(500);
  });

  it('never name harness files to the worker or the evaluator', () => {
    for (const name of ['worker', 'evaluator', 'learnings']) {
      const text = loadPrompt(name, {});
      for (const secret of ['prd.json', 'progress.txt', 'events.jsonl', 'checkpoint', 'seed-meta', 'ledger']) {
        expect(text.toLowerCase(), `${name} mentions ${secret}`).not.toContain(secret);
      }
    }
  });
});
