import { formatTodos } from '../src/format.js';
import { addTodo, completeTodo, pending } from '../src/todo.js';

function assertEquals(actual, expected) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

Deno.test('addTodo appends a trimmed, open todo', () => {
  assertEquals(addTodo([], '  water plants '), [{ title: 'water plants', done: false }]);
});

Deno.test('completeTodo marks one todo done without touching the input', () => {
  const todos = addTodo(addTodo([], 'a'), 'b');
  const next = completeTodo(todos, 1);
  assertEquals(next[1].done, true);
  assertEquals(todos[1].done, false);
  assertEquals(pending(next).map((todo) => todo.title), ['a']);
});

Deno.test('formatTodos numbers the todos and ticks the done ones', () => {
  assertEquals(formatTodos(completeTodo(addTodo(addTodo([], 'a'), 'b'), 0)), '1. [x] a\n2. [ ] b');
});
