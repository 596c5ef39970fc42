import test from 'ava';
import { formatTodos } from '../src/format.js';
import { addTodo, completeTodo, pending } from '../src/todo.js';

test('addTodo appends a trimmed, open todo', (t) => {
  t.deepEqual(addTodo([], '  water plants '), [{ title: 'water plants', done: false }]);
});

test('addTodo refuses a blank title', (t) => {
  t.throws(() => addTodo([], '   '), { message: /needs a title/ });
});

test('completeTodo marks one todo done without touching the input', (t) => {
  const todos = addTodo(addTodo([], 'a'), 'b');
  const next = completeTodo(todos, 1);
  t.true(next[1].done);
  t.false(todos[1].done);
  t.deepEqual(
    pending(next).map((todo) => todo.title),
    ['a'],
  );
});

test('formatTodos numbers the todos and ticks the done ones', (t) => {
  const todos = completeTodo(addTodo(addTodo([], 'a'), 'b'), 0);
  t.is(formatTodos(todos), '1. [x] a\n2. [ ] b');
  t.is(formatTodos([]), '(nothing to do)');
});
