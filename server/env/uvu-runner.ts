/**
 * uvu has no report and no way to run one test by name, and its CLI takes a folder and a pattern,
 * not files. So uvu's tests run under a small runner of Tilth's own (issue 29), passed to node
 * with `--input-type=module -e` as the unittest runner is passed to python: it stands in for the
 * `uvu` module itself — `suite`, `test` and their `before`/`after`/`.each` hooks, `only`, `skip`
 * and `run` — with uvu's order and state, loads each test file alone (a file that does not load,
 * or registers no test, is a load error of that file; the others still run), runs the suites, and
 * writes one JSON report (the unittest runner's shape: cases, load errors). `uvu/assert` stays the
 * project's own. ES module test files reach the stand-in through a resolve hook registered with
 * `module.register`; CommonJS ones through `Module._load`.
 *
 * argv: the report path (empty: no report, for a run nobody reads), `--case <full name>` (repeated) to run
 * one test (`Suite › title`, or the title of a test outside any suite), then the files.
 *
 * What each test did is recorded when it ran, in order; the text it prints is its own, beside a
 * line per test (`✔ Suite › title`, `✘ …` with the error, `- … (skipped)`) and uvu's totals.
 * The run fails when a test failed, a file did not load, or no test ran.
 */
export const UVU_RUNNER = `
import fs from 'node:fs';
import path from 'node:path';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(1);
const report = args.shift();
let only = null;
while (args[0] === '--case') { args.shift(); (only ??= []).push(args.shift()); }
const files = args;
const SEP = ' \\u203a ';
const cases = [];
const loadErrors = [];
let queue = null;

// A suite's cases and hooks, empty: a new suite's, and what run() and each file start from again.
const empty = () => ({ tests: [], only: [], skipped: [], before: [], after: [], bEach: [], aEach: [] });
const context = (name, state) => ({ name, state, ...empty() });
function setup(ctx) {
  ctx.state.__test__ = '';
  ctx.state.__suite__ = ctx.name;
  const test = (name, handler) => { ctx.tests.push({ name, handler }); };
  const hook = (key) => (handler) => { ctx[key].push(handler); };
  test.before = hook('before');
  test.before.each = hook('bEach');
  test.after = hook('after');
  test.after.each = hook('aEach');
  test.only = (name, handler) => { ctx.only.push({ name, handler }); };
  test.skip = (name) => { ctx.skipped.push(String(name ?? '')); };
  test.run = () => {
    if (queue === null) return;
    queue.push({ ...ctx });
    Object.assign(ctx, empty());
  };
  return test;
}
const uvu = {
  suite: (name = '', state = {}) => setup(context(String(name), state)),
  exec: async () => {},
};
// uvu's own test, one suite for every file: emptied before each file loads, so a file that
// never calls test.run() leaves nothing for the next one to run.
const main = context('', {});
uvu.test = setup(main);
globalThis.__tilth_uvu__ = uvu;

const shim = 'data:text/javascript,' + encodeURIComponent(
  'const u = globalThis.__tilth_uvu__; export const suite = u.suite; export const test = u.test; export const exec = u.exec;',
);
const hooks = 'data:text/javascript,' + encodeURIComponent(
  'export async function resolve(specifier, context, next) {' +
    ' if (specifier === "uvu") return { url: ' + JSON.stringify(shim) + ', shortCircuit: true };' +
    ' return next(specifier, context); }',
);
register(hooks);
const load = Module._load;
Module._load = function (request, parent, isMain) {
  return request === 'uvu' ? uvu : load.call(this, request, parent, isMain);
};

const fullName = (suite, name) => (suite ? suite + SEP + name : name);
const said = (err) => {
  if (!(err instanceof Error)) return String(err);
  const details = typeof err.details === 'string' ? '\\n' + err.details : '';
  return (err.stack || err.message) + details;
};
// A case asked for: its full name, or the title of a test outside any suite (or of a seed from before full names).
const chosen = (suite, name) => only === null || only.some((o) => fullName(suite, name) === o || (!o.includes(SEP) && name === o));
const record = (file, suite, name, outcome, message) => {
  const full = fullName(suite, name);
  if (!chosen(suite, name)) return null;
  const entry = { file, name, full_title: suite ? suite + ' > ' + name : name, outcome, message };
  cases.push(entry);
  const mark = outcome === 'passed' ? '\\u2714' : outcome === 'failed' ? '\\u2718' : '-';
  process.stdout.write(mark + ' ' + full + (outcome === 'skipped' ? ' (skipped)' : '') + '\\n');
  if (message) process.stdout.write(message.replace(/^/gm, '    ') + '\\n');
  return entry;
};

async function runSuite(file, ctx) {
  const running = ctx.only.length > 0 ? ctx.only : ctx.tests;
  for (const name of ctx.skipped) record(file, ctx.name, name, 'skipped', '');
  if (ctx.only.length > 0) for (const t of ctx.tests) record(file, ctx.name, t.name, 'skipped', '');
  const wanted = running.filter((t) => chosen(ctx.name, t.name));
  if (wanted.length === 0) return;
  try {
    for (const hook of ctx.before) await hook(ctx.state);
  } catch (err) {
    for (const t of wanted) record(file, ctx.name, t.name, 'failed', 'the suite\\'s before hook failed: ' + said(err));
    return;
  }
  const ran = [];
  for (const t of wanted) {
    ctx.state.__test__ = t.name;
    try {
      for (const hook of ctx.bEach) await hook(ctx.state);
      await t.handler(ctx.state);
      for (const hook of ctx.aEach) await hook(ctx.state);
      ran.push(record(file, ctx.name, t.name, 'passed', ''));
    } catch (err) {
      try { for (const hook of ctx.aEach) await hook(ctx.state); } catch {}
      ran.push(record(file, ctx.name, t.name, 'failed', said(err)));
    }
  }
  ctx.state.__test__ = '';
  try {
    for (const hook of ctx.after) await hook(ctx.state);
  } catch (err) {
    // The suite's cases fail with it: their results are changed, never given a second one.
    const message = 'the suite\\'s after hook failed: ' + said(err);
    for (const c of ran) Object.assign(c, { outcome: 'failed', message });
    process.stdout.write('\\u2718 ' + (ctx.name || 'the suite') + ': ' + message.replace(/\\n/g, '\\n    ') + '\\n');
  }
}

const loaded = [];
for (const file of files) {
  queue = [];
  Object.assign(main, empty());
  try {
    await import(pathToFileURL(path.resolve(file)).href);
    if (queue.length === 0) throw new Error('it registers no uvu test: no suite of it called run()');
    loaded.push({ file, suites: queue });
  } catch (err) {
    loadErrors.push({ file, message: said(err) });
    process.stdout.write('\\u2718 ' + file + ' did not load\\n' + said(err).replace(/^/gm, '    ') + '\\n');
  }
  queue = null;
}
for (const { file, suites } of loaded) for (const ctx of suites) await runSuite(file, ctx);

const count = (o) => cases.filter((c) => c.outcome === o).length;
process.stdout.write('\\n  Total:     ' + cases.length + '\\n  Passed:    ' + count('passed') + '\\n  Skipped:   ' + count('skipped') + '\\n');
if (report) fs.writeFileSync(report, JSON.stringify({ cases, load_errors: loadErrors, unknown: [], bare: [] }));
process.exitCode = count('failed') > 0 || loadErrors.length > 0 || count('passed') === 0 ? 1 : 0;
`;

/** Where the report path sits in uvuArgs' list. */
export const UVU_REPORT_ARG = 3;

/** The runner as node's arguments: the script, the report path (empty for none), the cases asked for (none: all), then the files. */
export function uvuArgs(report: string, files: readonly string[], names: readonly string[] = []): string[] {
  return ['--input-type=module', '-e', UVU_RUNNER, report, ...names.flatMap((name) => ['--case', name]), ...files];
}
