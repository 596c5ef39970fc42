/**
 * What the demo's scripted model says (SPEC §10). It is not AI: every reply is written here, and
 * the user's answers pick between written variants. The interview asks three questions (the first
 * picks the feature, the second is free-form and lands in the seed, the third decides whether a
 * second task is planned); the run then shows a case sent back by the coverage gate, a failing
 * check being fixed and one evaluator reject before the accept, on the bundled JavaScript example.
 *
 * The script is keyed by position, not queued. `demoReply` reads the request as a model would —
 * which role asks (the tools it offers), which task the prompt names, what the conversation
 * already holds (answers given, the file as read, checks that failed, a reject, earlier verdicts
 * in the prompt) — and gives the reply that fits there. A queue breaks the moment a call is
 * repeated or cut short; this way Stop and Resume, a crash and a restart, or an interview turn
 * asked again all land on a reply that moves the story on. After such a detour the story may be
 * shorter (a task rejected once is not rejected again; work found in the worktree is kept), and
 * it always ends: the worker builds and submits, the evaluator accepts once the checks pass and
 * the criteria are met.
 */
import { uncoveredCriteria } from '../../shared/coverage.ts';
import { EVALUATOR_LEDGER_HEADER } from '../engine/evaluator.ts';
import type { ChatRequest, ScriptedReplyInput } from '../scripted-model/model-server.ts';
import { call, readConversation, roleOf, section, succeeded, toolsOffered, turn, usage, withCallIds, type Conversation } from './conversation.ts';
import { addTaskReply } from './demo-features.ts';
import { variantFor, variantIn, type Variant } from './demo-variants.ts';
import { workerReply } from './demo-worker.ts';

export { DEMO_LABEL } from '../../shared/demo.ts';

export const QUESTIONS = [
  { question: 'Which field should a todo gain?', options: ['A due date', 'A priority'] },
  { question: 'In a sentence: what should a user be able to do with it that they cannot today?' },
  { question: 'Should the text listing show the new field too?', options: ['Yes, show it in the listing', 'No, data only for now'] },
] as const;

/**
 * The demo model's reply to one request. Which role asks is read from the tools it offers:
 * `submit_verdict` is the evaluator's, `submit_case` the worker's, `ask_user` the interviewer's,
 * and no tools at all is the learnings step — so no role is ever handed another's reply.
 */
export function demoReply(request: ChatRequest): ScriptedReplyInput {
  const tools = toolsOffered(request);
  const talk = readConversation(request.messages, [...tools]);
  const replies = { evaluator: evaluatorReply, worker: workerReply, interview: interviewReply, add_task: addTaskReply, learnings: learningReply };
  const role = roleOf(tools);
  const reply = role === 'unknown' ? { content: 'The demo model has nothing scripted for this request.', usage: usage(100, 10) } : replies[role](talk);
  return withCallIds(request, reply, 'demo');
}

// ── The interview ───────────────────────────────────────────────────────────────────────────────

const READ_TOOLS = new Set(['glob', 'grep', 'read_file']);

/** A look at the code first, then each question not yet answered, then the seed. */
function interviewReply(talk: Conversation): ScriptedReplyInput {
  const answers: (string | undefined)[] = QUESTIONS.map(() => undefined);
  let explored = false;
  for (const step of talk.steps) {
    if (READ_TOOLS.has(step.name)) explored = true;
    if (step.name !== 'ask_user' || !succeeded(step)) continue;
    const index = QUESTIONS.findIndex((q) => q.question === step.args.question);
    if (index >= 0) answers[index] = step.result!;
  }
  const next = answers.indexOf(undefined);
  if (next < 0) return seedTurn(answers as string[]);
  if (next === 0 && !explored)
    return turn(call('glob', { pattern: 'src/*.js' }), call('read_file', { path: 'src/todo.js' }), call('read_file', { path: 'AGENTS.md' }));
  const q = QUESTIONS[next]!;
  return turn(call('ask_user', 'options' in q ? { question: q.question, options: [...q.options] } : { question: q.question }));
}

/**
 * One test per criterion; the second checks only an empty value, so a function that refuses
 * nothing else passes it, and the evaluator is the one to catch that.
 */
function firstTest(v: Variant): string {
  return `${v.fn} stores the ${v.noun} on a new todo object`;
}
function secondTest(v: Variant): string {
  return `${v.fn} throws for an empty ${v.noun}`;
}

function testFor(v: Variant): string {
  return [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    `import { ${v.fn} } from '../src/todo.js';`,
    '',
    `test('${firstTest(v)}', () => {`,
    "  const todo = { title: 'water plants', done: false };",
    `  const next = ${v.fn}(todo, ${v.arg});`,
    `  assert.equal(next.${v.field}, ${v.arg});`,
    `  assert.equal(todo.${v.field}, undefined);`,
    '});',
    '',
    `test('${secondTest(v)}', () => {`,
    `  assert.throws(() => ${v.fn}({ title: 'water plants', done: false }, ''));`,
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
    `test('the listing shows the ${v.noun} after the title', () => {`,
    `  const text = formatTodos([{ title: 'water plants', done: false, ${v.field}: ${v.arg} }]);`,
    `  assert.equal(text, '1. [ ] water plants (${v.field}: ' + ${v.arg} + ')');`,
    '});',
    '',
  ].join('\n');
}

/**
 * An answer as the middle of a sentence ("so a user can …"): its first word lowercased unless it
 * is a name or an acronym (a capital after the first letter, as in "API" or "McDonald"), and its
 * closing full stop or spaces dropped.
 */
export function sentenceMiddle(text: string): string {
  const trimmed = text.replace(/[.\s]+$/, '');
  const first = /^\S+/.exec(trimmed)?.[0] ?? '';
  const lower = first.length > 0 && !/[A-Z]/.test(first.slice(1)) && first !== 'I' ? first.charAt(0).toLowerCase() + first.slice(1) : first;
  return lower + trimmed.slice(first.length);
}

/** The write_seed turn, shaped by the three answers. */
export function seedTurn(answers: string[]): ScriptedReplyInput {
  const v = variantFor(answers[0] ?? '');
  const why = sentenceMiddle((answers[1] ?? '').trim() || `keep track of each todo's ${v.noun}`);
  const withListing = !/^no/i.test(answers[2] ?? '');
  const prd = [
    {
      id: 'T-001',
      title: v.title,
      description: `Add ${v.fn}(todo, value) to src/todo.js so a user can ${why}.`,
      acceptance_criteria: [
        `${v.fn} returns a new todo with the ${v.noun} set, leaving the original unchanged`,
        `${v.fn} throws an Error for a value it does not accept`,
      ],
      criteria_tests: [[firstTest(v)], [secondTest(v)]],
    },
  ];
  const tests: Record<string, string> = { [`tests/t001_${v.field}.test.js`]: testFor(v) };
  if (withListing) {
    prd.push({
      id: 'T-002',
      title: `The listing shows the ${v.noun}`,
      description: `formatTodos in src/format.js adds " (${v.field}: <value>)" after the title of a todo that has one.`,
      acceptance_criteria: [`A todo with a ${v.noun} is listed as "1. [ ] <title> (${v.field}: <value>)"`],
      criteria_tests: [[`the listing shows the ${v.noun} after the title`]],
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

/**
 * The evaluator rejects a failing check, a case that leaves a criterion out (the coverage gate
 * answers those first, so this is its second line), and T-001's first case without validation
 * (it has not rejected this task before: its earlier verdicts are in its prompt); everything else
 * it accepts. It gives its word on each criterion.
 */
function evaluatorReply(talk: Conversation): ScriptedReplyInput {
  const prompt = talk.prompt;
  const task = /^# Task to evaluate: (T-\d{3,})/m.exec(prompt)?.[1];
  const v = variantIn(prompt);
  const own = task ? new RegExp(`tests/${task.toLowerCase().replace('-', '')}_[\\w-]+\\.test\\.js`).exec(prompt)?.[0] : undefined;
  const test = own ?? `tests/t001_${v.field}.test.js`;
  const criteria = [...section(prompt, '## Acceptance criteria').matchAll(/^(\d+)\. (.+)$/gm)].map((m) => m[2]!);
  const claimed = [...section(prompt, '### Criteria coverage').matchAll(/^- (.+?) — addressed by (.+)$/gm)].map((m) => ({
    criterion: m[1]!,
    addressed_by: m[2]!,
  }));
  const left = uncoveredCriteria(criteria, { summary: '-', ac_coverage: claimed });
  /** Every criterion met, with where; `unmet` (1-based) not, with why. */
  const words = (unmet: number | null, why = '') =>
    criteria.map((_, i) => (i + 1 === unmet ? { n: i + 1, met: false, note: why } : { n: i + 1, met: true, note: `${test} passes and the diff does it.` }));
  const verdict = (args: Record<string, unknown>, tokens = usage(2400, 90)): ScriptedReplyInput => ({
    tool_calls: [call('submit_verdict', { evidence: [test], ...args })],
    usage: tokens,
  });
  if (/^### .+ — FAIL$/m.test(prompt)) {
    return verdict({
      verdict: 'reject',
      rejection_category: 'half_finished',
      concern: 'A check still fails.',
      next_step: 'Make every check pass, then submit the case again.',
    });
  }
  if (left.length > 0) {
    const n = criteria.indexOf(left[0]!) + 1;
    return verdict({
      verdict: 'reject',
      concern: `The case does not say where ${left.map((c) => `"${c}"`).join(' and ')} is met, and the diff does not show it on its own.`,
      rejection_category: 'acceptance_gap',
      next_step: `Show in the case where each acceptance criterion is met, starting with "${left[0]}", and make sure the code does it.`,
      criteria: words(n, 'The case leaves it out.'),
    });
  }
  // A revision the reviewer asked for must change something: their requirements are criteria too.
  if (prompt.includes("## The reviewer's requirements") && prompt.includes('(empty diff)')) {
    return verdict({
      verdict: 'reject',
      rejection_category: 'acceptance_gap',
      concern: 'The reviewer sent this task back for a change, and the diff is empty: nothing they asked for was done.',
      next_step: "Change the code as the reviewer's note asks, then submit the case again.",
    });
  }
  if (task === 'T-001' && !/: reject\b/.test(section(prompt, EVALUATOR_LEDGER_HEADER)) && ![v.check, v.worded].some((c) => prompt.includes(c))) {
    return verdict({
      verdict: 'reject',
      concern: `${v.fn} refuses only an empty value: ${v.other} still goes through, and the second criterion asks for an Error on any value it does not accept. The test checks only the empty one.`,
      rejection_category: 'acceptance_gap',
      next_step: `Validate the value in ${v.fn} and throw an Error naming it when it is not accepted.`,
      criteria: words(2, `${v.other} goes through without an Error; the test tries only an empty value.`),
    });
  }
  if (task === 'T-001') return verdict({ verdict: 'accept', concern: 'Both criteria are met and the test covers them.', criteria: words(null) });
  return verdict(
    {
      verdict: 'accept',
      concern: task === 'T-002' ? 'The listing change is small and tested.' : 'The checks pass and the diff does what the task asks.',
      criteria: words(null),
    },
    usage(2100, 60),
  );
}

/** One lesson after T-001, none after the others. */
function learningReply(talk: Conversation): ScriptedReplyInput {
  if (/^Task just completed: T-001\b/m.test(talk.prompt)) {
    return { content: JSON.stringify({ learning: 'Run the whole suite with `node --test tests/`; each area has its own file.' }), usage: usage(700, 30) };
  }
  return { content: '{"learning": null}', usage: usage(600, 8) };
}
