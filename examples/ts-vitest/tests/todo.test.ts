import { describe, expect, it } from 'vitest';
import { formatTodos } from '../src/format.ts';
import { addTodo, completeTodo, pending } from '../src/todo.ts';

describe('todo list', () => {
  it('appends a trimmed, open todo', () => {
    expect(addTodo([], '  water plants ')).toEqual([{ title: 'water plants', done: false }]);
  });

  it('refuses a blank title', () => {
    expect(() => addTodo([], '   ')).toThrow(/needs a title/);
  });

  it('marks one todo done without touching the input', () => {
    const todos = addTodo(addTodo([], 'a'), 'b');
    const next = completeTodo(todos, 1);
    expect(next[1]?.done).toBe(true);
    expect(todos[1]?.done).toBe(false);
    expect(pending(next).map((t) => t.title)).toEqual(['a']);
  });

  it('numbers the todos and ticks the done ones', () => {
    const todos = completeTodo(addTodo(addTodo([], 'a'), 'b'), 0);
    expect(formatTodos(todos)).toBe('1. [x] a\n2. [ ] b');
    expect(formatTodos([])).toBe('(nothing to do)');
  });
});
