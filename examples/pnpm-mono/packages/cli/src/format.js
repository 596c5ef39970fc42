import { createTodo } from '@mono/core';

/**
 * One line per todo: `[x] title` when done, `[ ] title` when not.
 * @param {import('@mono/core').Todo[]} todos
 * @returns {string}
 */
export function formatList(todos) {
  return todos.map((t) => `${t.done ? '[x]' : '[ ]'} ${t.title}`).join('\n');
}

/**
 * Todos from lines of text, one per non-empty line.
 * @param {string} text
 */
export function parseList(text) {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => createTodo(line));
}
