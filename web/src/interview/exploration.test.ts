import { describe, expect, it } from 'vitest';
import { eventLog, interviewCall, interviewResult } from '../../../shared/test-events.ts';
import { explorationLines, formatToolCall } from './exploration.ts';

describe('formatToolCall', () => {
  it('words the read-only tools the way a person would say them', () => {
    expect(formatToolCall({ tool: 'read_file', args: { path: 'src/todo.js' } })).toBe('read src/todo.js');
    expect(formatToolCall({ tool: 'glob', args: { pattern: 'tests/**/*.py' } })).toBe('glob tests/**/*.py');
    expect(formatToolCall({ tool: 'grep', args: { pattern: 'due', path_glob: 'src/**' } })).toBe("grep 'due' in src/**");
    expect(formatToolCall({ tool: 'grep', args: { pattern: 'due' } })).toBe("grep 'due'");
    expect(formatToolCall({ tool: 'write_seed', args: { prd_entries: [] } })).toBe('write the seed');
  });

  it('survives arguments the model got wrong', () => {
    expect(formatToolCall({ tool: 'read_file', args: {} })).toBe('read (no path given)');
    expect(formatToolCall({ tool: 'glob', args: null })).toBe('glob (no pattern given)');
    expect(formatToolCall({ tool: 'grep', args: { pattern: 42 } })).toBe('grep (no pattern given)');
    expect(formatToolCall({ tool: 'read_file', args: '(unparseable JSON)' })).toBe('read_file ((unparseable JSON))');
    expect(formatToolCall({ tool: 'shell', args: { cmd: 'ls' } })).toBe('shell {"cmd":"ls"}');
  });

  it('keeps a line short and on one line', () => {
    const text = formatToolCall({ tool: 'grep', args: { pattern: `a\n${'x'.repeat(200)}` } });
    expect(text).not.toContain('\n');
    expect(text.length).toBeLessThan(100);
    expect(text).toContain('…');
  });
});

describe('explorationLines', () => {
  it('lists the interview tool calls in order, leaving questions to the Q&A history', () => {
    const lines = explorationLines(
      eventLog(
        interviewCall('glob', { pattern: 'src/**/*.js' }),
        interviewResult('glob', 'src/todo.js'),
        interviewCall('ask_user', { question: 'Which format?' }),
        { type: 'tool_call', data: { tool: 'bash', args: { cmd: 'ls' }, task_id: 'T-001' } },
        interviewCall('read_file', { path: 'src/todo.js' }),
      ),
    );
    expect(lines.map((l) => [l.tool, l.text])).toEqual([
      ['glob', 'glob src/**/*.js'],
      ['read_file', 'read src/todo.js'],
    ]);
    expect(lines[0]?.preview).toBe('src/todo.js');
    expect(lines[1]?.preview).toBeNull();
  });

  it('pairs each result with its call, in order, and flags errors', () => {
    const lines = explorationLines(
      eventLog(
        interviewCall('read_file', { path: 'a.js' }),
        interviewCall('read_file', { path: '../secret' }),
        interviewResult('read_file', 'const a = 1;'),
        interviewResult('read_file', 'ERROR: ../secret is outside the repository'),
      ),
    );
    expect(lines.map((l) => l.error)).toEqual([false, true]);
    expect(lines[1]?.preview).toContain('outside');
  });
});
