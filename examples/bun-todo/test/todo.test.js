import { describe, expect, test } from 'bun:test';
import { formatTodos } from '../src/format.js';
import { addTodo, completeTodo, pending } from '../src/todo.js';

describe('addTodo', () => {
  test('appends a trimmed, open todo', () => {
    expect(addTodo([], '  water plants ')).toEqual([{ title: 'water plants', done: false }]);
  });

  test('refuses a blank title', () => {
    expect(() => addTodo([], '   ')).toThrow(/needs a title/);
  });
});

test('completeTodo marks one todo done without touching the input', () => {
  const todos = addTodo(addTodo([], 'a'), 'b');
  const next = completeTodo(todos, 1);
  expect(next[1].done).toBe(true);
  expect(todos[1].done).toBe(false);
  expect(pending(next).map((todo) => todo.title)).toEqual(['a']);
});

test('formatTodos numbers the todos and ticks the done ones', () => {
  const todos = completeTodo(addTodo(addTodo([], 'a'), 'b'), 0);
  expect(formatTodos(todos)).toBe('1. [x] a\n2. [ ] b');
  expect(formatTodos([])).toBe('(nothing to do)');
});
