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
import { CHECKS_FAILED_PREFIX } from '../agent/context.ts';
import { REJECT_FEEDBACK_HEAD } from '../engine/case.ts';
import { uncoveredCriteria } from '../../shared/coverage.ts';
import { EVALUATOR_LEDGER_HEADER } from '../engine/evaluator.ts';
import { WORKER_LEDGER_HEADER } from '../engine/worker-prompt.ts';
import type { ChatRequest, ScriptedReplyInput } from '../scripted-model/fake-model.ts';
import { call, readConversation, roleOf, section, succeeded, toolsOffered, turn, usage, withCallIds, type Conversation } from './conversation.ts';

export const DEMO_MODEL = 'tilth-demo (scripted, not AI)';
export { DEMO_LABEL } from '../../shared/demo.ts';

export const QUESTIONS = [
  { question: 'Which field should a todo gain?', options: ['A due date', 'A priority'] },
  { question: 'In a sentence: what should a user be able to do with it that they cannot today?' },
  { question: 'Should the text listing show the new field too?', options: ['Yes, show it in the listing', 'No, data only for now'] },
] as const;

/** `field` is the todo's property in code; `noun` is how a sentence names it ("the due date"). */
type Variant = {
  field: 'due' | 'priority';
  noun: string;
  fn: string;
  title: string;
  arg: string;
  other: string;
  bad: string;
  required: string;
  good: string;
  check: string;
};

const VARIANTS: Record<'due' | 'priority', Variant> = {
  due: {
    field: 'due',
    noun: 'due date',
    fn: 'setDue',
    title: 'Todos carry a due date',
    arg: "'2026-01-31'",
    other: "'tomorrow'",
    bad: 'return { ...todo, due: new Date(date) };',
    required: "if (!date) throw new Error('a due date is required');",
    good: 'return { ...todo, due: date };',
    check: 'if (!/^\\d{4}-\\d{2}-\\d{2}$/.test(date)) throw new Error(`not an ISO date: ${date}`);',
  },
  priority: {
    field: 'priority',
    noun: 'priority',
    fn: 'setPriority',
    title: 'Todos carry a priority',
    arg: "'high'",
    other: "'urgent'",
    bad: 'return { ...todo, priority: level.toUpperCase() };',
    required: "if (!level) throw new Error('a priority is required');",
    good: 'return { ...todo, priority: level };',
    check: "if (!['low', 'normal', 'high'].includes(level)) throw new Error(`unknown priority: ${level}`);",
  },
};

export function variantFor(answer: string): Variant {
  return /priorit/i.test(answer) ? VARIANTS.priority : VARIANTS.due;
}

/** The variant a prompt is about, from the words the seed put in its tasks. */
function variantIn(text: string): Variant {
  const named = /\b(setDue|setPriority)\(todo, value\)|\((due|priority): <value>\)/.exec(text);
  return named?.[1] === 'setPriority' || named?.[2] === 'priority' ? VARIANTS.priority : VARIANTS.due;
}

/**
 * The demo model's reply to one request. Which role asks is read from the tools it offers:
 * `submit_verdict` is the evaluator's, `submit_case` the worker's, `ask_user` the interviewer's,
 * and no tools at all is the learnings step — so no role is ever handed another's reply.
 */
export function demoReply(request: ChatRequest): ScriptedReplyInput {
  const tools = toolsOffered(request);
  const talk = readConversation(request.messages, [...tools]);
  const replies = { evaluator: evaluatorReply, worker: workerReply, interview: interviewReply, learnings: learningReply };
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

// ── The run ─────────────────────────────────────────────────────────────────────────────────────

function workerReply(talk: Conversation): ScriptedReplyInput {
  const task = /\*\*ID:\*\* (T-\d{3,})/.exec(talk.prompt)?.[1];
  const v = variantIn(talk.prompt);
  if (task === 'T-001') return fieldTurn(talk, v);
  if (task === 'T-002') return listingTurn(talk, v);
  return turn(call('submit_case', { summary: 'Done as the task describes.', ac_coverage: [] }));
}

/**
 * How far T-001's function has come: not there, a first try that stores the value changed (its
 * test fails), one that stores it as given, and one that also validates it.
 */
type Stage = 'none' | 'bad' | 'good' | 'checked';
const RANK: Record<Stage, number> = { none: 0, bad: 1, good: 2, checked: 3 };

function stageIn(code: string, v: Variant): Stage | null {
  if (code.includes(v.check)) return 'checked';
  if (code.includes(v.bad)) return 'bad';
  if (code.includes(v.good)) return 'good';
  return null;
}

const bodyOf = (stage: Stage, v: Variant): string[] => (stage === 'checked' ? [v.check, v.good] : stage === 'bad' ? [v.bad] : [v.required, v.good]);

function fieldFunction(v: Variant, stage: Stage): string {
  const param = v.field === 'due' ? 'date' : 'level';
  const lines = [
    '',
    '/**',
    ' * @param {{ title: string, done: boolean }} todo',
    ` * @param {string} ${param}`,
    ` * @returns {object} a new todo with its ${v.noun} set`,
    ' */',
    `export function ${v.fn}(todo, ${param}) {`,
  ];
  return [...lines, ...bodyOf(stage, v).map((l) => `  ${l}`), '}', ''].join('\n');
}

/**
 * T-001, the story with the detours: a first try whose check fails, the fix, a reject for the
 * missing validation, the validation, the suite run by hand, the accepted case. Each turn follows
 * from what this conversation shows — the file as read and as changed since, a failed check, a
 * reject — and from earlier verdicts in the prompt, so a fresh conversation after a resume picks
 * up the work found in the worktree rather than starting the story over.
 */
function fieldTurn(talk: Conversation, v: Variant): ScriptedReplyInput {
  const file = 'src/todo.js';
  const test = `tests/t001_${v.field}.test.js`;
  let stage: Stage | null = null;
  let found: Stage = 'none';
  let read = '';
  let checksFailed = false;
  let rejected = /\breject\b/.test(section(talk.prompt, WORKER_LEDGER_HEADER));
  let lastWrite = -1;
  let lastTestRun = -1;
  let submitted = false;
  for (const [i, step] of talk.steps.entries()) {
    if (!succeeded(step)) continue;
    const onFile = step.args.path === file;
    if (step.name === 'read_file' && onFile) {
      read = step.result!;
      stage = found = read.includes(`export function ${v.fn}(`) ? (stageIn(read, v) ?? 'good') : 'none';
    } else if ((step.name === 'write_file' || step.name === 'edit_file') && onFile) {
      stage = stageIn(String(step.args.content ?? step.args.new_string ?? ''), v) ?? stage;
      lastWrite = i;
    } else if (step.name === 'bash' && String(step.args.command).startsWith('node --test')) {
      lastTestRun = i;
    } else if (step.name === 'submit_case') {
      submitted = true;
      if (step.result!.startsWith(CHECKS_FAILED_PREFIX)) checksFailed = true;
      if (step.result!.startsWith(REJECT_FEEDBACK_HEAD)) rejected = true;
    }
  }
  if (stage === null) return turn(call('read_file', { path: file }), call('read_file', { path: test }));
  const now = stage;
  // The version to reach. The first try is the one whose check fails — unless earlier work was
  // found in the worktree: then the story goes on from there. Never behind what is there.
  let goal: Stage = rejected ? 'checked' : checksFailed || found !== 'none' ? 'good' : 'bad';
  if (RANK[now] > RANK[goal]) goal = now;
  if (now === 'none') return turn(call('write_file', { path: file, content: `${read}${fieldFunction(v, goal)}` }));
  if (now !== goal) return turn(call('edit_file', { path: file, old_string: bodyOf(now, v).join('\n  '), new_string: bodyOf(goal, v).join('\n  ') }));
  if (goal === 'checked' && lastTestRun < lastWrite) return turn(call('bash', { command: 'node --test tests/' }));
  const summary = {
    bad: `Added ${v.fn}.`,
    good: `Added ${v.fn}; it refuses an empty value and stores the rest as given.`,
    checked: `Added ${v.fn}: it validates the value and returns a new todo.`,
  }[goal];
  const criteria = [`${v.fn} returns a new todo with the ${v.noun} set`, `${v.fn} throws for a bad value`];
  // The very first case forgets the second criterion; the coverage gate sends it straight back.
  if (!submitted && found === 'none' && !rejected) criteria.pop();
  return turn(call('submit_case', { summary, ac_coverage: criteria.map((c) => ({ criterion: c, addressed_by: `${file}:${v.fn}()`, evidence: test })) }));
}

const LISTING_OLD = "return todos.map((todo, i) => `${i + 1}. [${todo.done ? 'x' : ' '}] ${todo.title}`).join('\\n');";
const listingNew = (v: Variant) =>
  `return todos.map((todo, i) => \`\${i + 1}. [\${todo.done ? 'x' : ' '}] \${todo.title}\${todo.${v.field} ? \` (${v.field}: \${todo.${v.field}})\` : ''}\`).join('\\n');`;

/** T-002, the clean task: read, one edit, the case. */
function listingTurn(talk: Conversation, v: Variant): ScriptedReplyInput {
  const file = 'src/format.js';
  const next = listingNew(v);
  let state: 'unread' | 'old' | 'done' = 'unread';
  for (const step of talk.steps) {
    if (!succeeded(step) || step.args.path !== file) continue;
    if (step.name === 'read_file') state = step.result!.includes(next) || !step.result!.includes(LISTING_OLD) ? 'done' : 'old';
    if (step.name === 'edit_file') state = 'done';
  }
  if (state === 'unread') return turn(call('read_file', { path: file }));
  if (state === 'old') return turn(call('edit_file', { path: file, old_string: LISTING_OLD, new_string: next }));
  return turn(
    call('submit_case', {
      summary: `The listing shows the ${v.noun}.`,
      ac_coverage: [{ criterion: `A todo with a ${v.field} is listed with it`, addressed_by: `${file}:formatTodos()`, evidence: 'tests/t002_listing.test.js' }],
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
  const test = task === 'T-002' ? 'tests/t002_listing.test.js' : `tests/t001_${v.field}.test.js`;
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
  if (task === 'T-001' && !/: reject\b/.test(section(prompt, EVALUATOR_LEDGER_HEADER)) && !prompt.includes(v.check)) {
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
