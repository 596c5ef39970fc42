/**
 * The two fields the demo's interview can plan (SPEC §10): the todo's property, the function that
 * sets it, and each version of that function the scripted worker knows — from a first try whose
 * test fails to one that also refuses what a tightened test or a reviewer asks it to refuse.
 */
/**
 * `field` is the todo's property in code; `noun` is how a sentence names it ("the due date").
 * `check` validates the value; `worded` does the same with a message that says what is expected;
 * `strict` is the further check a tightened test or a reviewer may ask for (a day that exists, a
 * level in any case), and `strictAsk` the words of a note that asks for it.
 */
export type Variant = {
  field: 'due' | 'priority';
  param: 'date' | 'level';
  noun: string;
  fn: string;
  title: string;
  arg: string;
  other: string;
  bad: string;
  required: string;
  good: string;
  check: string;
  worded: string;
  strict: { before: string[]; after: string[] };
  strictAsk: RegExp;
  /** What the strict version does, in a sentence's middle. */
  strictDoes: string;
};

const VARIANTS: Record<'due' | 'priority', Variant> = {
  due: {
    field: 'due',
    param: 'date',
    noun: 'due date',
    fn: 'setDue',
    title: 'Todos carry a due date',
    arg: "'2026-01-31'",
    other: "'tomorrow'",
    bad: 'return { ...todo, due: new Date(date) };',
    required: "if (!date) throw new Error('a due date is required');",
    good: 'return { ...todo, due: date };',
    check: 'if (!/^\\d{4}-\\d{2}-\\d{2}$/.test(date)) throw new Error(`not an ISO date: ${date}`);',
    worded: 'if (!/^\\d{4}-\\d{2}-\\d{2}$/.test(date)) throw new Error(`a due date is written YYYY-MM-DD, as in 2026-01-31, not "${date}"`);',
    strict: {
      before: [],
      after: [
        'const day = new Date(`${date}T00:00:00Z`);',
        'if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== date) throw new Error(`no such day: ${date}`);',
      ],
    },
    strictAsk: /impossible|exist|real (calendar )?(date|day)|calendar|no such (day|date)|valid (date|day)|\d{4}-(02-3\d|1[3-9]|\d\d-(3[2-9]|[4-9]\d))/i,
    strictDoes: 'refuses a day that does not exist, such as 2026-02-30',
  },
  priority: {
    field: 'priority',
    param: 'level',
    noun: 'priority',
    fn: 'setPriority',
    title: 'Todos carry a priority',
    arg: "'high'",
    other: "'urgent'",
    bad: 'return { ...todo, priority: level.toUpperCase() };',
    required: "if (!level) throw new Error('a priority is required');",
    good: 'return { ...todo, priority: level };',
    check: "if (!['low', 'normal', 'high'].includes(level)) throw new Error(`unknown priority: ${level}`);",
    worded: "if (!['low', 'normal', 'high'].includes(level)) throw new Error(`a priority is low, normal or high, not \"${level}\"`);",
    strict: { before: ['level = String(level).toLowerCase();'], after: [] },
    strictAsk: /\b(any case|upper|lower|capital|case-insensitive|HIGH|Low|LOW|High)\b/,
    strictDoes: 'takes a level in any case, such as "High"',
  },
};

export function variantFor(answer: string): Variant {
  return /priorit/i.test(answer) ? VARIANTS.priority : VARIANTS.due;
}

/** The variant a prompt is about, from the words the seed put in its tasks. */
export function variantIn(text: string): Variant {
  const named = /\b(setDue|setPriority)\(todo, value\)|\((due|priority): <value>\)/.exec(text);
  return named?.[1] === 'setPriority' || named?.[2] === 'priority' ? VARIANTS.priority : VARIANTS.due;
}
