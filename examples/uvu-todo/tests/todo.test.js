import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatTodos } from '../src/format.js';
import { addTodo, completeTodo, pending } from '../src/todo.js';

const AddTodo = suite('addTodo');

AddTodo('appends a trimmed, open todo', () => {
  assert.equal(addTodo([], '  water plants '), [{ title: 'water plants', done: false }]);
});

AddTodo('refuses a blank title', () => {
  assert.throws(() => addTodo([], '   '), /needs a title/);
});

AddTodo.run();

const CompleteTodo = suite('completeTodo');

CompleteTodo('marks one todo done without touching the input', () => {
  const todos = addTodo(addTodo([], 'a'), 'b');
  const next = completeTodo(todos, 1);
  assert.ok(next[1].done);
  assert.not.ok(todos[1].done);
  assert.equal(
    pending(next).map((todo) => todo.title),
    ['a'],
  );
});

CompleteTodo.run();

const FormatTodos = suite('formatTodos');

FormatTodos('numbers the todos and ticks the done ones', () => {
  const todos = completeTodo(addTodo(addTodo([], 'a'), 'b'), 0);
  assert.is(formatTodos(todos), '1. [x] a\n2. [ ] b');
  assert.is(formatTodos([]), '(nothing to do)');
});

FormatTodos.run();
