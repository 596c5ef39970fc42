/**
 * @typedef {{ readonly title: string, readonly done: boolean }} Todo
 */

/**
 * A new todo, not done.
 * @param {string} title
 * @returns {Todo}
 */
export function createTodo(title) {
  const trimmed = String(title).trim();
  if (trimmed === '') throw new Error('a todo needs a title');
  return { title: trimmed, done: false };
}

/**
 * The todo marked done, as a new object.
 * @param {Todo} todo
 * @returns {Todo}
 */
export function complete(todo) {
  return { ...todo, done: true };
}
