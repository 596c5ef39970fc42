/**
 * What the demo's scripted model says (SPEC §10). It is not AI: every reply is written here, and
 * the user's answers pick between written variants. The interview asks three questions (the first
 * picks the feature, the second is free-form and lands in the seed, the third decides whether a
 * second task is planned); the run then shows a failing check being fixed and one evaluator
 * reject before the accept, on the bundled JavaScript example.
 */
import type { ScriptedReplyInput } from '../testing/fake-model.ts';

export const DEMO_MODEL = 'tilth-demo (scripted, not AI)';
export { DEMO_LABEL } from '../../shared/demo.ts';

export const QUESTIONS = [
  { question: 'Which field should a todo gain?', options: ['A due date', 'A priority'] },
  { question: 'In a sentence: what should a user be able to do with it that they cannot today?' },
  { question: 'Should the text listing show the new field too?', options: ['Yes, show it in the listing', 'No, data only for now'] },
] as const;

type Variant = { field: 'due' | 'priority'; fn: string; title: string; arg: string; bad: string; good: string; check: string };

const VARIANTS: Record<'due' | 'priority', Variant> = {
  due: {
    field: 'due',
    fn: 'setDue',
    title: 'Todos carry a due date',
    arg: "'2026-01-31'",
    bad: 'return { ...todo, due: new Date(date) };',
    good: 'return { ...todo, due: date };',
    check: "if (!/^\\d{4}-\\d{2}-\\d{2}$/.test(date)) throw new Error(`not an ISO date: ${date}`);",
  },
  priority: {
    field: 'priority',
    fn: 'setPriority',
    title: 'Todos carry a priority',
    arg: "'high'",
    bad: 'return { ...todo, priority: level.toUpperCase() };',
    good: 'return { ...todo, priority: level };',
    check: "if (!['low', 'normal', 'high'].includes(level)) throw new Error(`unknown priority: ${level}`);",
  },
};

export function variantFor(answer: string): Variant {
  return /priorit/i.test(answer) ? VARIANTS.priority : VARIANTS.due;
}

let n = 0;
const call = (name: string, args: Record<string, unknown>) => ({ id: `demo_${++n}`, name, arguments: args });
const turn = (...calls: ReturnType<typeof call>[]): ScriptedReplyInput => ({ tool_calls: calls, usage: { prompt_tokens: 900, completion_tokens: 60, cost: 0 } });

/** The interview's replies up to and including question `index` (0-based), given the answers so far. */
export function interviewTurns(index: number): ScriptedReplyInput[] {
  const q = QUESTIONS[index]!;
  const ask = turn(call('ask_user', 'options' in q ? { question: q.question, options: [...q.options] } : { question: q.question }));
  if (index > 0) return [ask];
  return [turn(call('glob', { pattern: 'src/*.js' }), call('read_file', { path: 'src/todo.js' }), call('read_file', { path: 'AGENTS.md' })), ask];
}

/** Covers the first criterion only: the second (validation) is the evaluator's to catch. */
function testFor(v: Variant): string {
  return [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    `import { ${v.fn} } from '../src/todo.js';`,
    '',
    `test('${v.fn} stores the ${v.field} on a new todo object', () => {`,
    "  const todo = { title: 'water plants', done: false };",
    `  const next = ${v.fn}(todo, ${v.arg});`,
    `  assert.equal(next.${v.field}, ${v.arg});`,
    `  assert.equal(todo.${v.field}, undefined);`,
    '});',
    '',
  ].join('\n');
}

function formatTest(v: Variant): string {
  return [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { formatTodos } from '../src/format.js';",
    '',
    `test('the listing shows the ${v.field} after the title', () => {`,
    `  const text = formatTodos([{ title: 'water plants', done: false, ${v.field}: ${v.arg} }]);`,
    `  assert.equal(text, '1. [ ] water plants (${v.field}: ' + ${v.arg} + ')');`,
    '});',
    '',
  ].join('\n');
}

/** The write_seed turn, shaped by the three answers. */
export function seedTurn(answers: string[]): ScriptedReplyInput {
  const v = variantFor(answers[0] ?? '');
  const why = (answers[1] ?? '').trim() || `keep track of each todo's ${v.field}`;
  const withListing = !/^no/i.test(answers[2] ?? '');
  const prd = [
    {
      id: 'T-001',
      title: v.title,
      description: `Add ${v.fn}(todo, value) to src/todo.js so a user can ${why.replace(/[.\s]+$/, '')}.`,
      acceptance_criteria: [`${v.fn} returns a new todo with the ${v.field} set, leaving the original unchanged`, `${v.fn} throws an Error for a value it does not accept`],
    },
  ];
  const tests: Record<string, string> = { [`tests/t001_${v.field}.test.js`]: testFor(v) };
  if (withListing) {
    prd.push({
      id: 'T-002',
      title: `The listing shows the ${v.field}`,
      description: `formatTodos in src/format.js adds " (${v.field}: <value>)" after the title of a todo that has one.`,
      acceptance_criteria: [`A todo with a ${v.field} is listed as "1. [ ] <title> (${v.field}: <value>)"`],
    });
    tests[`tests/t002_listing.test.js`] = formatTest(v);
  }
  return turn(
    call('write_seed', {
      prd_entries: prd,
      test_files: tests,
      tldr: prd.map((t) => `- **${t.id}:** ${t.title}`).join('\n'),
      open_questions: [],
      blockers: [],
      scope_notes: `In the user's words: "${why}". ${withListing ? 'The text listing shows the new field.' : 'The listing is left as it is.'}`,
    }),
  );
}

/** The whole run: a failing check fixed, one reject then accept on T-001, a clean T-002. */
export function runTurns(answers: string[]): ScriptedReplyInput[] {
  const v = variantFor(answers[0] ?? '');
  const withListing = !/^no/i.test(answers[2] ?? '');
  const param = v.field === 'due' ? 'date' : 'level';
  const fn = (body: string[]) => ['', '/**', ` * @param {{ title: string, done: boolean }} todo`, ` * @param {string} ${param}`, ` * @returns {object} a new todo with its ${v.field} set`, ' */', `export function ${v.fn}(todo, ${param}) {`, ...body.map((l) => `  ${l}`), '}', ''].join('\n');
  const append = (code: string) => call('bash', { command: `cat >> src/todo.js <<'EOF'\n${code}EOF` });
  const verdict = (verdict: 'accept' | 'reject', concern: string, extra: Record<string, unknown> = {}): ScriptedReplyInput => ({
    tool_calls: [call('submit_verdict', { verdict, concern, evidence: [`tests/t001_${v.field}.test.js`], ...extra })],
    usage: { prompt_tokens: 2400, completion_tokens: 90, cost: 0 },
  });
  const theCase = (summary: string, criteria: string[]): ScriptedReplyInput =>
    turn(call('submit_case', { summary, ac_coverage: criteria.map((c) => ({ criterion: c, addressed_by: `src/todo.js:${v.fn}()`, evidence: `tests/t001_${v.field}.test.js` })) }));
  const criteria = [`${v.fn} returns a new todo with the ${v.field} set`, `${v.fn} throws for a bad value`];
  const turns: ScriptedReplyInput[] = [
    turn(call('read_file', { path: 'src/todo.js' }), call('read_file', { path: `tests/t001_${v.field}.test.js` })),
    turn(append(fn([v.bad]))),
    theCase(`Added ${v.fn}.`, criteria),
    // The checks failed: read the report, replace the function.
    turn(call('edit_file', { path: 'src/todo.js', old_string: v.bad, new_string: v.good })),
    theCase(`Added ${v.fn}; it stores the value as given.`, criteria),
    verdict('reject', `${v.fn} accepts any value: the second criterion asks for an Error on a bad one, and nothing checks it.`, {
      rejection_category: 'acceptance_gap',
      next_step: `Validate the value in ${v.fn} and throw an Error naming it when it is not accepted.`,
    }),
    turn(call('edit_file', { path: 'src/todo.js', old_string: v.good, new_string: `${v.check}\n  ${v.good}` })),
    turn(call('bash', { command: 'node --test tests/' })),
    theCase(`Added ${v.fn}: it validates the value and returns a new todo.`, criteria),
    verdict('accept', 'Both criteria are met and the test covers them.'),
    { content: JSON.stringify({ learning: 'Run the whole suite with `node --test tests/`; each area has its own file.' }), usage: { prompt_tokens: 700, completion_tokens: 30, cost: 0 } },
  ];
  if (withListing) {
    const old = "return todos.map((todo, i) => `${i + 1}. [${todo.done ? 'x' : ' '}] ${todo.title}`).join('\\n');";
    const next = `return todos.map((todo, i) => \`\${i + 1}. [\${todo.done ? 'x' : ' '}] \${todo.title}\${todo.${v.field} ? \` (${v.field}: \${todo.${v.field}})\` : ''}\`).join('\\n');`;
    turns.push(
      turn(call('read_file', { path: 'src/format.js' })),
      turn(call('edit_file', { path: 'src/format.js', old_string: old, new_string: next })),
      turn(call('submit_case', { summary: `The listing shows the ${v.field}.`, ac_coverage: [{ criterion: `A todo with a ${v.field} is listed with it`, addressed_by: 'src/format.js:formatTodos()', evidence: 'tests/t002_listing.test.js' }] })),
      { tool_calls: [call('submit_verdict', { verdict: 'accept', concern: 'The listing change is small and tested.', evidence: ['tests/t002_listing.test.js'] })], usage: { prompt_tokens: 2100, completion_tokens: 60, cost: 0 } },
      { content: '{"learning": null}', usage: { prompt_tokens: 600, completion_tokens: 8, cost: 0 } },
    );
  }
  return turns;
}
