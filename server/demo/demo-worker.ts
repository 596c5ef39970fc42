/**
 * The demo's scripted worker (SPEC §10). Each turn follows from what the conversation shows — the
 * file as read and as changed since, a check that failed, a reject, a reviewer's send-back — and
 * from earlier verdicts in the prompt, so a fresh conversation after a resume picks up the work
 * found in the worktree rather than starting the story over.
 *
 * It answers what the review loop invites as a model would, within what it has code for: a test
 * tightened in seed review fails a version, so it moves to the next one it knows; a send-back
 * note is read for what it asks (a day that exists, clearer words, trimmed spaces…) and the code
 * changes accordingly; a task added after the run is written. Past its repertoire it says so in
 * words and presents no case — the harness then ends the task as it ends any model that stops.
 */
import { DEMO_SEND_BACK_ASKS } from '../../shared/demo.ts';
import { CHECKS_FAILED_PREFIX } from '../agent/context.ts';
import { REJECT_FEEDBACK_HEAD } from '../engine/case.ts';
import { WORKER_LEDGER_HEADER } from '../engine/worker-prompt.ts';
import type { ScriptedReplyInput } from '../scripted-model/model-server.ts';
import { call, section, succeeded, turn, usage, type Conversation, type Step } from './conversation.ts';
import { addableIn, type Addable } from './demo-features.ts';
import { variantIn, type Variant } from './demo-variants.ts';

/**
 * What the reviewer's send-back asks, as the worker's prompt carries it: the note and the comments,
 * without the section's own preamble or the worker's last case ('' when the task was not sent back).
 */
export function sentBackPart(prompt: string): string {
  const part = section(prompt, '## Sent back by the reviewer');
  const from = part.indexOf('\n### ');
  const to = part.indexOf('\n### Your case last time');
  return from < 0 ? '' : part.slice(from, to < 0 ? undefined : to);
}

/**
 * The end of the script: the reason in words and no tool call. The harness nudges a model that
 * stops like this and, when it keeps stopping, fails the task — the end a real stuck model meets.
 */
function outOfScript(why: string): ScriptedReplyInput {
  return {
    content: `${why} The demo model is scripted, not AI: it cannot write code it has no version of. A session with a model provider would read this and write the code; in the demo, the task ends here.`,
    usage: usage(900, 80),
  };
}

export function workerReply(talk: Conversation): ScriptedReplyInput {
  const task = /\*\*ID:\*\* (T-\d{3,})/.exec(talk.prompt)?.[1] ?? '?';
  const asked = section(talk.prompt, '## Your task');
  const v = variantIn(talk.prompt);
  // By what the task asks, not its id: a task added after a data-only plan is T-002 too.
  if (asked.includes(`${v.fn}(todo, value)`)) return fieldTurn(talk, v);
  if (asked.includes(`(${v.field}: <value>)`)) return listingTurn(talk, v);
  const feature = addableIn(asked);
  if (feature) return featureTurn(talk, task, feature);
  const title = /^\*\*Title:\*\* (.+)$/m.exec(asked)?.[1] ?? task;
  return outOfScript(`The demo model has no code for ${task} ("${title}"): it knows the tasks its interview plans and the ones Add task offers.`);
}

/** What the tool calls so far did to one file, and how the checks went on each version of it. */
type FileStory = {
  /** The file as this conversation last saw it (null: not read yet). */
  text: string | null;
  /** The text when first read. */
  first: string | null;
  lastWrite: number;
  lastTestRun: number;
  submitted: boolean;
  rejected: boolean;
  checksFailed: boolean;
  /** The file's text each time a check or a test run by hand failed on it. */
  failedOn: string[];
  /** The first line of the last failure that says what failed. */
  failure: string;
};

function failureLine(output: string): string {
  return (
    output
      .split('\n')
      .map((l) => l.trim())
      .find((l) => /^not ok\b|AssertionError|Error:|expected/i.test(l))
      ?.slice(0, 200) ?? 'the checks fail'
  );
}

const testRunFailed = (step: Step) => step.name === 'bash' && String(step.args.command).startsWith('node --test') && !/\[exit 0\]\s*$/.test(step.result ?? '');

function storyOf(talk: Conversation, file: string): FileStory {
  const story: FileStory = {
    text: null,
    first: null,
    lastWrite: -1,
    lastTestRun: -1,
    submitted: false,
    rejected: false,
    checksFailed: false,
    failedOn: [],
    failure: '',
  };
  const failed = (output: string) => {
    if (story.text !== null) story.failedOn.push(story.text);
    story.failure = failureLine(output);
  };
  for (const [i, step] of talk.steps.entries()) {
    if (!succeeded(step)) {
      if (step.result !== null && testRunFailed(step)) failed(step.result);
      continue;
    }
    const onFile = step.args.path === file;
    if (step.name === 'read_file' && onFile) {
      story.text = step.result!;
      story.first ??= story.text;
    } else if (step.name === 'write_file' && onFile) {
      story.text = String(step.args.content);
      story.lastWrite = i;
    } else if (step.name === 'edit_file' && onFile && story.text !== null) {
      story.text = story.text.replace(String(step.args.old_string), String(step.args.new_string));
      story.lastWrite = i;
    } else if (step.name === 'bash' && String(step.args.command).startsWith('node --test')) {
      story.lastTestRun = i;
      if (testRunFailed(step)) failed(step.result!);
    } else if (step.name === 'submit_case') {
      story.submitted = true;
      if (step.result!.startsWith(CHECKS_FAILED_PREFIX)) {
        story.checksFailed = true;
        failed(step.result!);
      }
      if (step.result!.startsWith(REJECT_FEEDBACK_HEAD)) story.rejected = true;
    }
  }
  return story;
}

// ── T-001: the field ────────────────────────────────────────────────────────────────────────────

/**
 * How far T-001's function has come: not there, a first try that stores the value changed (its
 * test fails), one that stores it as given, one that also validates it, and one that also does the
 * variant's further check. A failed check moves it one rung up; the top rung failing ends the script.
 */
const LADDER = ['none', 'bad', 'good', 'checked', 'strict'] as const;
type Stage = (typeof LADDER)[number];
const rank = (s: Stage) => LADDER.indexOf(s);

/** What a reviewer's note can ask besides the strict check: clearer words, trimmed spaces, null clearing the field. */
type Change = 'worded' | 'trim' | 'clear';
const CHANGES: Record<Change, RegExp> = {
  worded: /\b(message|wording|words|clearer|explain|says?)\b/i,
  trim: /\b(trim|trims|trimmed|spaces?|whitespace)\b/i,
  clear: /\b(clear|clears|unset|remove|null)\b/i,
};
type Version = { stage: Stage; changes: Change[] };

function functionText(text: string, fn: string): string | null {
  const at = text.indexOf(`export function ${fn}(`);
  const end = at < 0 ? -1 : text.indexOf('\n}', at);
  return end < 0 ? null : text.slice(at, end + 2);
}

const clearLines = (v: Variant) => [`if (${v.param} === null) {`, `  const { ${v.field}: _cleared, ...rest } = todo;`, '  return rest;', '}'];
const trimLine = (v: Variant) => `${v.param} = String(${v.param}).trim();`;

function versionIn(text: string, v: Variant): Version {
  const fn = functionText(text, v.fn);
  if (fn === null) return { stage: 'none', changes: [] };
  const has = (line: string) => fn.includes(line);
  const strictMark = v.strict.after.at(-1) ?? v.strict.before[0]!;
  const stage: Stage = has(strictMark) ? 'strict' : has(v.check) || has(v.worded) ? 'checked' : has(v.bad) ? 'bad' : 'good';
  const changes = (['clear', 'trim', 'worded'] as const).filter((c) => has({ worded: v.worded, trim: trimLine(v), clear: clearLines(v)[0]! }[c]));
  return { stage, changes };
}

function fieldFunction(v: Variant, { stage, changes }: Version): string {
  const check = changes.includes('worded') ? v.worded : v.check;
  const body = {
    none: [],
    bad: [v.bad],
    good: [v.required, v.good],
    checked: [check, v.good],
    strict: [...v.strict.before, check, ...v.strict.after, v.good],
  }[stage];
  const lines = [...(changes.includes('clear') ? clearLines(v) : []), ...(changes.includes('trim') ? [trimLine(v)] : []), ...body];
  return [`export function ${v.fn}(todo, ${v.param}) {`, ...lines.map((l) => `  ${l}`), '}'].join('\n');
}

function fieldDoc(v: Variant): string {
  return [
    '/**',
    ' * @param {{ title: string, done: boolean }} todo',
    ` * @param {string} ${v.param}`,
    ` * @returns {object} a new todo with its ${v.noun} set`,
    ' */',
  ].join('\n');
}

function summaryOf(v: Variant, { stage, changes }: Version): string {
  const does = {
    none: '',
    bad: '',
    good: 'it refuses an empty value and stores the rest as given',
    checked: 'it validates the value and returns a new todo',
    strict: `it validates the value, ${v.strictDoes}, and returns a new todo`,
  }[stage];
  const extra = changes.map((c) => ({ worded: 'its error says what is expected', trim: 'it trims spaces first', clear: `null clears the ${v.noun}` })[c]);
  const all = [does, ...extra].filter(Boolean);
  return all.length === 0 ? `Added ${v.fn}.` : `Added ${v.fn}: ${all.join('; ')}.`;
}

/**
 * T-001, the story with the detours: a first try whose check fails, the fix, a reject for the
 * missing validation, the validation, the task's test run by hand, the accepted case. A tightened
 * test moves it further up the ladder; a send-back note is read for the rung and the changes it asks.
 */
function fieldTurn(talk: Conversation, v: Variant): ScriptedReplyInput {
  const file = 'src/todo.js';
  const test = `tests/t001_${v.field}.test.js`;
  const story = storyOf(talk, file);
  if (story.text === null) return turn(call('read_file', { path: file }), call('read_file', { path: test }));
  const sent = sentBackPart(talk.prompt);
  const changes = (Object.keys(CHANGES) as Change[]).filter((c) => CHANGES[c].test(sent));
  const askStrict = v.strictAsk.test(sent);
  if (sent && changes.length === 0 && !askStrict) {
    return outOfScript(
      `The reviewer's note asks for something the demo model has no code for. It acts on a note that asks it to ${DEMO_SEND_BACK_ASKS.join('; ')}.`,
    );
  }
  const now = versionIn(story.text, v);
  const found = versionIn(story.first!, v).stage;
  const rejected = story.rejected || /\breject\b/.test(section(talk.prompt, WORKER_LEDGER_HEADER));
  // The rung to reach. The first try is the one whose check fails — unless earlier work was found
  // in the worktree: then the story goes on from there. Never behind what is there, and always
  // above every version the checks failed on.
  let goal: Stage = askStrict ? 'strict' : rejected ? 'checked' : story.checksFailed || found !== 'none' ? 'good' : 'bad';
  const failedAt = Math.max(-1, ...story.failedOn.map((text) => rank(versionIn(text, v).stage)));
  if (failedAt === rank('strict')) {
    return outOfScript(
      `The checks still fail with every version of ${v.fn} the demo model has (the last one validates the value and ${v.strictDoes}): ${story.failure}.`,
    );
  }
  goal = LADDER[Math.max(rank(goal), rank(now.stage), failedAt + 1)]!;
  const target: Version = { stage: goal, changes: [...new Set([...now.changes, ...changes])].sort() };
  if (now.stage === 'none') return turn(call('write_file', { path: file, content: `${story.text}\n${fieldDoc(v)}\n${fieldFunction(v, target)}\n` }));
  const current = functionText(story.text, v.fn)!;
  if (current !== fieldFunction(v, target)) return turn(call('edit_file', { path: file, old_string: current, new_string: fieldFunction(v, target) }));
  if (rank(goal) >= rank('checked') && story.lastTestRun < story.lastWrite) return turn(call('bash', { command: `node --test ${test}` }));
  const criteria = [`${v.fn} returns a new todo with the ${v.noun} set`, `${v.fn} throws for a bad value`];
  // The very first case forgets the second criterion; the coverage gate sends it straight back.
  if (!story.submitted && found === 'none' && !rejected) criteria.pop();
  return turn(
    call('submit_case', {
      summary: summaryOf(v, target),
      ac_coverage: criteria.map((c) => ({ criterion: c, addressed_by: `${file}:${v.fn}()`, evidence: test })),
    }),
  );
}

// ── T-002: the listing ──────────────────────────────────────────────────────────────────────────

const LISTING_OLD = "return todos.map((todo, i) => `${i + 1}. [${todo.done ? 'x' : ' '}] ${todo.title}`).join('\\n');";
/** The listing with the field, shown for every todo that has one (`open`: for open todos only). */
const listingNew = (v: Variant, open = false) =>
  `return todos.map((todo, i) => \`\${i + 1}. [\${todo.done ? 'x' : ' '}] \${todo.title}\${todo.${v.field}${open ? ' && !todo.done' : ''} ? \` (${v.field}: \${todo.${v.field}})\` : ''}\`).join('\\n');`;
const LEAVE_OFF_DONE = /\b(done|finished|completed|closed|open)\b/i;

/** T-002, the clean task: read, one edit, the case. A send-back may ask to leave the field off done todos. */
function listingTurn(talk: Conversation, v: Variant): ScriptedReplyInput {
  const file = 'src/format.js';
  const story = storyOf(talk, file);
  if (story.text === null) return turn(call('read_file', { path: file }));
  const sent = sentBackPart(talk.prompt);
  if (sent && !LEAVE_OFF_DONE.test(sent)) {
    return outOfScript(`The reviewer's note asks for something the demo model has no code for in the listing: it can only leave the ${v.noun} off done todos.`);
  }
  const state = story.text.includes(listingNew(v, true))
    ? 'open'
    : story.text.includes(listingNew(v))
      ? 'new'
      : story.text.includes(LISTING_OLD)
        ? 'old'
        : 'new';
  const failed = story.failedOn.map((text) => (text.includes(listingNew(v, true)) ? 2 : text.includes(listingNew(v)) ? 1 : 0));
  if (failed.includes(2)) return outOfScript(`The checks still fail with every version of the listing the demo model has: ${story.failure}.`);
  const goal = sent || failed.includes(1) ? 'open' : state === 'old' ? 'new' : state;
  if (state !== goal) {
    const old = state === 'old' ? LISTING_OLD : listingNew(v, state === 'open');
    return turn(call('edit_file', { path: file, old_string: old, new_string: listingNew(v, goal === 'open') }));
  }
  return turn(
    call('submit_case', {
      summary: goal === 'open' ? `The listing shows the ${v.noun} of open todos.` : `The listing shows the ${v.noun}.`,
      ac_coverage: [{ criterion: `A todo with a ${v.field} is listed with it`, addressed_by: `${file}:formatTodos()`, evidence: 'tests/t002_listing.test.js' }],
    }),
  );
}

// ── A task added after the run ──────────────────────────────────────────────────────────────────

/** A task Add task offered: read the file, write the function, present it against every criterion. */
function featureTurn(talk: Conversation, task: string, feature: Addable): ScriptedReplyInput {
  const file = 'src/todo.js';
  const story = storyOf(talk, file);
  if (story.text === null) return turn(call('read_file', { path: file }));
  if (story.failedOn.length > 0) return outOfScript(`The checks fail with the only version of ${feature.fn} the demo model has: ${story.failure}.`);
  if (sentBackPart(talk.prompt)) return outOfScript(`The demo model has one version of ${feature.fn} and cannot change it as the reviewer asks.`);
  if (!story.text.includes(`export function ${feature.fn}(`))
    return turn(call('write_file', { path: file, content: `${story.text.trimEnd()}\n\n${feature.code}\n` }));
  const criteria = [...section(talk.prompt, '### Acceptance criteria').matchAll(/^- (.+)$/gm)].map((m) => m[1]!);
  return turn(
    call('submit_case', {
      summary: `Added ${feature.fn} for ${task}.`,
      ac_coverage: criteria.map((c) => ({ criterion: c, addressed_by: `${file}:${feature.fn}()` })),
    }),
  );
}
