// A todo list kept as a plain array of { title, done, due } objects. Functions never mutate their input.
'use strict';

const ms = require('ms');

/**
 * @typedef {{ title: string, done: boolean, due: number | null }} Todo
 */

/**
 * @param {Todo[]} todos
 * @param {string} title
 * @param {{ in?: string, now?: number }} [options] `in`: a duration such as "2d" or "3h"
 * @returns {Todo[]} a new list with an open todo appended, due `in` from `now` (epoch ms) when given
 */
function addTodo(todos, title, options = {}) {
  const clean = String(title).trim();
  if (clean === '') throw new Error('a todo needs a title');
  let due = null;
  if (options.in !== undefined) {
    const span = ms(options.in);
    if (typeof span !== 'number' || !(span > 0)) throw new Error(`not a duration: ${options.in}`);
    due = (options.now ?? Date.now()) + span;
  }
  return [...todos, { title: clean, done: false, due }];
}

/**
 * @param {Todo[]} todos
 * @param {number} index zero-based
 * @returns {Todo[]} a new list where that todo is done
 */
function completeTodo(todos, index) {
  if (!Number.isInteger(index) || index < 0 || index >= todos.length) throw new RangeError(`no todo at ${index}`);
  return todos.map((todo, i) => (i === index ? { ...todo, done: true } : todo));
}

/**
 * @param {Todo[]} todos
 * @param {number} now epoch ms
 * @returns {Todo[]} the open todos whose due time has passed, in order
 */
function overdue(todos, now) {
  return todos.filter((todo) => !todo.done && todo.due !== null && todo.due < now);
}

module.exports = { addTodo, completeTodo, overdue };
