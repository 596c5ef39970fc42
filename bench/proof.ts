/**
 * bench/proof: what the evidence costs on the bundled examples — the red proof of a seed (each
 * named test case run alone, sandboxed) and the mutation probe of one accepted task (its tests
 * against each mutant of the changed lines), for node --test on the JavaScript example and
 * pytest on the Python one. Prints per example: cases and the proof's time (and per case), the
 * file-level contract check's time for scale, mutants tried/killed/survived and the probe's time.
 * Figures only; nothing here passes or fails.
 * Run: npx tsx bench/proof.ts [--budget 60]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { PrdEntry } from '../shared/files.ts';
import type { ChecksPreset } from '../shared/seed.ts';
import { makeExampleRepo } from '../server/demo/example-repo.ts';
import { commitAll, worktreeRefOf } from '../server/git/worktree-git.ts';
import { checkContract } from '../server/proof/contract-check.ts';
import { probeTask } from '../server/proof/mutation-probe.ts';
import { proveCases } from '../server/proof/red-proof.ts';
import { SessionStore } from '../server/store/session-store.ts';
import { makePreparedSession } from '../server/testing/run-fixtures.ts';
import { TEST_SANDBOX } from '../server/testing/sandbox.ts';

const { values } = parseArgs({ options: { budget: { type: 'string', default: '60' } } });
const BUDGET_MS = Number(values.budget) * 1000;

interface Example {
  name: 'js-todo' | 'py-todo';
  preset: ChecksPreset;
  testFile: string;
  test: string;
  cases: string[];
  implFile: string;
  impl: string;
  env?: Record<string, string>;
}

const EXAMPLES: Example[] = [
  {
    name: 'js-todo',
    preset: 'node',
    testFile: 'tests/t001_adult.test.js',
    test: [
      "import { test } from 'node:test';",
      "import assert from 'node:assert/strict';",
      "import { isAdult, label } from '../src/adult.js';",
      "test('an adult is 18 or older', () => { assert.equal(isAdult(30), true); });",
      "test('a child is younger', () => { assert.equal(isAdult(5), false); });",
      "test('the label says which', () => { assert.equal(label(40), 'adult'); });",
      '',
    ].join('\n'),
    cases: ['an adult is 18 or older', 'a child is younger', 'the label says which'],
    implFile: 'src/adult.js',
    impl: "export function isAdult(age) {\n  return age >= 18;\n}\n\nexport function label(age) {\n  return isAdult(age) ? 'adult' : 'child';\n}\n",
  },
  {
    name: 'py-todo',
    preset: 'pytest',
    testFile: 'tests/test_t001_adult.py',
    test: [
      'from todo.adult import is_adult, label',
      '',
      'def test_adult():',
      '    assert is_adult(30) is True',
      '',
      'def test_child():',
      '    assert is_adult(5) is False',
      '',
      'def test_label():',
      '    assert label(40) == "adult"',
      '',
    ].join('\n'),
    cases: ['test_adult', 'test_child', 'test_label'],
    implFile: 'todo/adult.py',
    impl: 'def is_adult(age):\n    return age >= 18\n\n\ndef label(age):\n    return "adult" if is_adult(age) else "child"\n',
    env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' },
  },
];

const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

console.log(`bench/proof: red proof per seed and mutation probe per task (budget ${BUDGET_MS / 1000} s)`);
for (const ex of EXAMPLES) {
  const repo = await makeExampleRepo(ex.name);
  const store = new SessionStore(path.join(repo.dir, '..', 'sessions'));
  try {
    const task: PrdEntry = {
      id: 'T-001',
      title: 'Adult',
      description: 'Tell adults from children.',
      acceptance_criteria: ex.cases.map((c) => `criterion of ${c}`),
      criteria_tests: ex.cases.map((c) => [c]),
      status: 'pending',
    };
    const id = await makePreparedSession(store, repo.dir, ex.preset, [
      { id: 'T-001', title: 'Adult', criteria: task.acceptance_criteria, criteriaTests: task.criteria_tests!, tests: { [ex.testFile]: ex.test } },
    ]);
    const cp = store.session(id).checkpoint.read();
    const input = {
      prd: [task],
      testFiles: { [ex.testFile]: ex.test },
      preset: ex.preset,
      scope: { sandbox: TEST_SANDBOX, worktree: cp.worktree, git: null, network: false },
      env: ex.env ?? {},
    };

    let started = performance.now();
    await checkContract(input);
    const contractMs = performance.now() - started;
    started = performance.now();
    const red = await proveCases(input, [task]);
    const redMs = performance.now() - started;
    const results = (red['T-001'] ?? []).map((p) => p.result).join(', ');

    fs.mkdirSync(path.dirname(path.join(cp.worktree, ex.implFile)), { recursive: true });
    fs.writeFileSync(path.join(cp.worktree, ex.implFile), ex.impl);
    const sha = await commitAll(await worktreeRefOf(cp), 'T-001: Adult');
    started = performance.now();
    const probe = await probeTask({
      sandbox: TEST_SANDBOX,
      checkpoint: cp,
      taskId: 'T-001',
      sha: sha!,
      scratch: store.session(id).probeScratch('T-001'),
      preset: ex.preset,
      project: null,
      lockedTests: [ex.testFile],
      budgetMs: BUDGET_MS,
    });
    const probeMs = performance.now() - started;
    console.log(`  ${ex.name} (${ex.preset})`);
    console.log(`    contract check (1 file)      ${secs(contractMs).padStart(8)}`);
    console.log(`    red proof (${ex.cases.length} cases)         ${secs(redMs).padStart(8)}  (${secs(redMs / ex.cases.length)} per case; ${results})`);
    console.log(
      `    mutation probe               ${secs(probeMs).padStart(8)}  (${probe.killed + probe.survived} mutants: ${probe.killed} killed, ${probe.survived} survived${probe.note ? `; ${probe.note}` : ''})`,
    );
    for (const s of probe.survivors) console.log(`      survivor ${s.file}:${s.line} ${s.description}`);
  } finally {
    store.close();
    await repo.cleanup();
  }
}
