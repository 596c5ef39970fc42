import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTodos } from '../src/format.js';
import { addTodo, completeTodo, pending } from '../src/todo.js';

test('addTodo appends a trimmed, open todo', () => {
  assert.deepEqual(addTodo([], '  water plants '), [{ title: 'water plants', done: false }]);
});

test('addTodo refuses a blank title', () => {
  assert.throws(() => addTodo([], '   '), /needs a title/);
});

test('completeTodo marks one todo done without touching the input', () => {
  const todos = addTodo(addTodo([], 'a'), 'b');
  const next = completeTodo(todos, 1);
  assert.equal(next[1].done, true);
  assert.equal(todos[1].done, false);
  assert.deepEqual(pending(next).map((t) => t.title), ['a']);
});

test('formatTodos numbers the todos and ticks the done ones', () => {
  const todos = completeTodo(addTodo(addTodo([], 'a'), 'b'), 0);
  assert.equal(formatTodos(todos), '1. [x] a\n2. [ ] b');
  assert.equal(formatTodos([]), '(nothing to do)');
});
