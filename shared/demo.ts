/** How the demo's model is named to the user, on every page of a demo session. */
export const DEMO_LABEL = 'demo model — scripted, not AI';

/** A task the demo's scripted model can add after a run, as the Add task form offers to fill it in. */
export type DemoAddable = { title: string; description: string; criteria: string[] };

export const DEMO_ADDABLE: readonly DemoAddable[] = [
  {
    title: 'Count the open todos',
    description: 'countOpen(todos) in src/todo.js says how many todos are not done yet.',
    criteria: ['countOpen returns the number of todos not done', 'An empty list counts 0'],
  },
  {
    title: 'Rename a todo',
    description: 'renameTodo(todos, index, title) in src/todo.js gives one todo a new title, trimmed, in a new list.',
    criteria: ['The todo at the index gets the new title, trimmed; the list passed in is unchanged', 'An empty title or an index with no todo is refused'],
  },
  {
    title: 'Reopen a done todo',
    description: 'reopenTodo(todos, index) in src/todo.js makes a done todo open again, in a new list.',
    criteria: ['The todo at the index is open again; the list passed in is unchanged', 'An index with no todo is refused with a RangeError'],
  },
];

/** What a send-back note can ask of the demo's scripted model, as the send-back form says it. */
export const DEMO_SEND_BACK_ASKS = [
  'refuse a day that does not exist, such as 2026-02-30 (due date)',
  'take a level in any case, such as "High" (priority)',
  'word the error so it says what is expected',
  'trim spaces from the value',
  'let null clear the field',
  'leave the field off done todos (the listing)',
] as const;
