// Rendering a todo list as plain text, one line per todo, for the terminal or a notes file.

/**
 * @param {{ title: string, done: boolean }[]} todos
 * @returns {string} e.g. "1. [x] water plants\n2. [ ] buy milk"; "(nothing to do)" when empty
 */
export function formatTodos(todos) {
  if (todos.length === 0) return '(nothing to do)';
  return todos.map((todo, i) => `${i + 1}. [${todo.done ? 'x' : ' '}] ${todo.title}`).join('\n');
}
