/**
 * The tasks the demo's scripted model can add after a run ("Add a task…", SPEC §10): for each, the
 * words of a request that asks for it, the acceptance test the add-task step writes, and the
 * function the worker then writes. A request for anything else is declined in words — the demo
 * has no code for it, and saying so beats a test nobody can pass.
 */
import { DEMO_ADDABLE } from '../../shared/demo.ts';
import type { ScriptedReplyInput } from '../scripted-model/model-server.ts';
import { call, section, turn, type Conversation } from './conversation.ts';

export type Addable = {
  key: string;
  /** The words of a task that asks for it (its title, description and criteria). */
  asks: RegExp;
  fn: string;
  /** The function as the worker writes it at the end of src/todo.js. */
  code: string;
  /** The acceptance test's cases, by name, and their bodies. */
  cases: { name: string; body: string[] }[];
};

const TODOS = "[{ title: 'water plants', done: false }, { title: 'buy milk', done: true }, { title: 'call mum', done: false }]";

export const ADDABLE: readonly Addable[] = [
  {
    key: 'count',
    asks: /\b(count|counts|counting|how many|number of)\b/i,
    fn: 'countOpen',
    code: [
      '/**',
      ' * @param {Todo[]} todos',
      ' * @returns {number} how many todos are not done yet',
      ' */',
      'export function countOpen(todos) {',
      '  return todos.filter((todo) => !todo.done).length;',
      '}',
    ].join('\n'),
    cases: [
      { name: 'countOpen counts the todos not done yet', body: [`assert.equal(countOpen(${TODOS}), 2);`] },
      { name: 'countOpen of an empty list is 0', body: ['assert.equal(countOpen([]), 0);'] },
    ],
  },
  {
    key: 'rename',
    asks: /\b(rename|renames|renaming|retitle|new title|(change|edit)s? (its|the|a todo's|a) title)\b/i,
    fn: 'renameTodo',
    code: [
      '/**',
      ' * @param {Todo[]} todos',
      ' * @param {number} index zero-based',
      ' * @param {string} title',
      ' * @returns {Todo[]} a new list where that todo has the new title, trimmed',
      ' */',
      'export function renameTodo(todos, index, title) {',
      '  if (!Number.isInteger(index) || index < 0 || index >= todos.length) throw new RangeError(`no todo at ${index}`);',
      '  const clean = String(title).trim();',
      "  if (clean === '') throw new Error('a todo needs a title');",
      '  return todos.map((todo, i) => (i === index ? { ...todo, title: clean } : todo));',
      '}',
    ].join('\n'),
    cases: [
      {
        name: 'renameTodo gives one todo a new trimmed title in a new list',
        body: [
          `const todos = ${TODOS};`,
          "const next = renameTodo(todos, 1, '  buy oat milk ');",
          "assert.equal(next[1].title, 'buy oat milk');",
          "assert.equal(todos[1].title, 'buy milk');",
        ],
      },
      {
        name: 'renameTodo refuses an empty title and an index with no todo',
        body: [`assert.throws(() => renameTodo(${TODOS}, 0, '  '), Error);`, `assert.throws(() => renameTodo(${TODOS}, 3, 'x'), RangeError);`],
      },
    ],
  },
  {
    key: 'reopen',
    asks: /\b(reopen|reopens|re-open|uncomplete|undo|uncheck|not done again|undone)\b/i,
    fn: 'reopenTodo',
    code: [
      '/**',
      ' * @param {Todo[]} todos',
      ' * @param {number} index zero-based',
      ' * @returns {Todo[]} a new list where that todo is open again',
      ' */',
      'export function reopenTodo(todos, index) {',
      '  if (!Number.isInteger(index) || index < 0 || index >= todos.length) throw new RangeError(`no todo at ${index}`);',
      '  return todos.map((todo, i) => (i === index ? { ...todo, done: false } : todo));',
      '}',
    ].join('\n'),
    cases: [
      {
        name: 'reopenTodo makes a done todo open again in a new list',
        body: [`const todos = ${TODOS};`, 'const next = reopenTodo(todos, 1);', 'assert.equal(next[1].done, false);', 'assert.equal(todos[1].done, true);'],
      },
      { name: 'reopenTodo refuses an index with no todo', body: [`assert.throws(() => reopenTodo(${TODOS}, 3), RangeError);`] },
    ],
  },
];

/** The task a text asks for, if the demo has one. */
export function addableIn(text: string): Addable | null {
  return ADDABLE.find((a) => a.asks.test(text)) ?? null;
}

export function addableTest(a: Addable): string {
  const lines = ["import { test } from 'node:test';", "import assert from 'node:assert/strict';", `import { ${a.fn} } from '../src/todo.js';`, ''];
  for (const c of a.cases) lines.push(`test('${c.name}', () => {`, ...c.body.map((l) => `  ${l}`), '});', '');
  return lines.join('\n');
}

/** What the demo can add, in a sentence's end. */
const CAN_ADD = DEMO_ADDABLE.map((a) => a.title.toLowerCase())
  .join(', ')
  .replace(/, ([^,]+)$/, ' or $1');

/**
 * The add-task step's reply: the test of the task the request asks for, each criterion checked by
 * its cases; or, for a task the demo has no code for — or a test the sink refused — the decline.
 */
export function addTaskReply(talk: Conversation): ScriptedReplyInput {
  const part = section(talk.prompt, '## The new task');
  const id = /^: (T-\d{3,}) — /.exec(part)?.[1] ?? 'T-000';
  const refused = talk.steps.find((s) => s.name === 'write_task_test' && s.result?.startsWith('ERROR'));
  if (refused) return turn(call('decline_task', { reason: `The demo model's test for ${id} was refused: ${refused.result!.replace(/^ERROR: /, '')}` }));
  const asked = addableIn(part);
  if (!asked) {
    return turn(
      call('decline_task', {
        reason: `The demo model is scripted, not AI: it has code only for a task that does one of these — ${CAN_ADD}. Describe one of them, or start a session with a model provider for anything else.`,
      }),
    );
  }
  const criteria = [...section(part, '### Acceptance criteria').matchAll(/^\d+\. .+$/gm)];
  return turn(
    call('write_task_test', {
      test_file: `tests/${id.toLowerCase().replace('-', '')}_${asked.key}.test.js`,
      content: addableTest(asked),
      criteria_tests: criteria.map(() => asked.cases.map((c) => c.name)),
    }),
  );
}
