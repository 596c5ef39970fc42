// A todo list kept as a plain array of { title, done } objects. Functions never mutate their input.

export interface Todo {
  readonly title: string;
  readonly done: boolean;
}

/** A new list with an open todo appended; the title is trimmed and must not be blank. */
export function addTodo(todos: readonly Todo[], title: string): Todo[] {
  const clean = title.trim();
  if (clean === '') throw new Error('a todo needs a title');
  return [...todos, { title: clean, done: false }];
}

/** A new list where the todo at `index` (zero-based) is done. */
export function completeTodo(todos: readonly Todo[], index: number): Todo[] {
  if (!Number.isInteger(index) || index < 0 || index >= todos.length) throw new RangeError(`no todo at ${index}`);
  return todos.map((todo, i) => (i === index ? { ...todo, done: true } : todo));
}

/** The todos not done yet, in order. */
export function pending(todos: readonly Todo[]): Todo[] {
  return todos.filter((todo) => !todo.done);
}
