'use strict';

const assert = require('node:assert/strict');
const { addTodo, completeTodo, overdue } = require('../src/todo.js');
const { formatTodos } = require('../src/format.js');

const NOW = Date.UTC(2026, 0, 31);
const DAY = 24 * 60 * 60 * 1000;

describe('todo list', () => {
  it('appends a trimmed, open todo with no due time', () => {
    assert.deepEqual(addTodo([], '  water plants '), [{ title: 'water plants', done: false, due: null }]);
  });

  it('turns a duration into a due time', () => {
    assert.equal(addTodo([], 'pay rent', { in: '2d', now: NOW })[0].due, NOW + 2 * DAY);
  });

  it('refuses a blank title and a duration it cannot read', () => {
    assert.throws(() => addTodo([], '   '), /needs a title/);
    assert.throws(() => addTodo([], 'x', { in: 'soon' }), /not a duration: soon/);
  });

  it('lists open todos past their due time', () => {
    const todos = completeTodo(addTodo(addTodo([], 'a', { in: '1d', now: NOW }), 'b', { in: '1d', now: NOW }), 1);
    assert.deepEqual(overdue(todos, NOW + 2 * DAY).map((t) => t.title), ['a']);
  });

  it('numbers the todos, ticks the done ones and says when they are due', () => {
    const todos = completeTodo(addTodo(addTodo([], 'a', { in: '2d', now: NOW }), 'b'), 1);
    assert.equal(formatTodos(todos, NOW), '1. [ ] a (due in 2d)\n2. [x] b');
    assert.equal(formatTodos([], NOW), '(nothing to do)');
  });
});
