const t = require('tap');
const { formatTodos } = require('../src/format.js');
const { addTodo, completeTodo, pending } = require('../src/todo.js');

t.test('addTodo', async (t) => {
  t.test('appends a trimmed, open todo', async (t) => {
    t.same(addTodo([], '  water plants '), [{ title: 'water plants', done: false }]);
  });
  t.test('refuses a blank title', async (t) => {
    t.throws(() => addTodo([], '   '), { message: /needs a title/ });
  });
});

t.test('completeTodo marks one todo done without touching the input', async (t) => {
  const todos = addTodo(addTodo([], 'a'), 'b');
  const next = completeTodo(todos, 1);
  t.equal(next[1].done, true);
  t.equal(todos[1].done, false);
  t.same(
    pending(next).map((todo) => todo.title),
    ['a'],
  );
});

t.test('formatTodos numbers the todos and ticks the done ones', async (t) => {
  const todos = completeTodo(addTodo(addTodo([], 'a'), 'b'), 0);
  t.equal(formatTodos(todos), '1. [x] a\n2. [ ] b');
  t.equal(formatTodos([]), '(nothing to do)');
});
