// Rendering a todo list as plain text, one line per todo, for the terminal or a notes file.
'use strict';

const ms = require('ms');

/**
 * @param {{ title: string, done: boolean, due: number | null }[]} todos
 * @param {number} now epoch ms
 * @returns {string} e.g. "1. [ ] water plants (due in 2d)"; "(nothing to do)" when empty
 */
function formatTodos(todos, now) {
  if (todos.length === 0) return '(nothing to do)';
  return todos
    .map((todo, i) => {
      const due = todo.due === null || todo.done ? '' : todo.due >= now ? ` (due in ${ms(todo.due - now)})` : ` (overdue by ${ms(now - todo.due)})`;
      return `${i + 1}. [${todo.done ? 'x' : ' '}] ${todo.title}${due}`;
    })
    .join('\n');
}

module.exports = { formatTodos };
