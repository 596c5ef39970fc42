// A todo list kept as a plain array of { title, done } objects. Functions never mutate their input.

/**
 * @typedef {{ title: string, done: boolean }} Todo
 */

/**
 * @param {Todo[]} todos
 * @param {string} title
 * @returns {Todo[]} a new list with an open todo appended
 */
export function addTodo(todos, title) {
  const clean = String(title).trim();
  if (clean === '') throw new Error('a todo needs a title');
  return [...todos, { title: clean, done: false }];
}

/**
 * @param {Todo[]} todos
 * @param {number} index zero-based
 * @returns {Todo[]} a new list where that todo is done
 */
export function completeTodo(todos, index) {
  if (!Number.isInteger(index) || index < 0 || index >= todos.length) throw new RangeError(`no todo at ${index}`);
  return todos.map((todo, i) => (i === index ? { ...todo, done: true } : todo));
}

/**
 * @param {Todo[]} todos
 * @returns {Todo[]} the todos not done yet, in order
 */
export function pending(todos) {
  return todos.filter((todo) => !todo.done);
}
