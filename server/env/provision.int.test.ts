/**
 * The examples as users have them — installed with `npm ci` from the lockfile, or a virtualenv
 * with an editable install — each given to a session's worktree and tested there with the
 * project's own command, in the sandbox without network, through the `custom` preset's path (the
 * runner presets come with detection). The checkout must come out byte for byte as it went in.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventInput } from '../../shared/events.ts';
import type { ProjectEnv } from '../../shared/project-env.ts';
import { projectEnv } from '../testing/project-env.ts';
import { runChecks } from '../proof/checks.ts';
import { addWorktree } from '../git/repo.ts';
import { commitAll, worktreeRefOf, type WorktreeRef } from '../git/worktree-git.ts';
import { detectSandbox } from '../proc/sandbox.ts';
import { runUntrusted } from '../proc/untrusted.ts';
import { makeExampleRepo, type ExampleName, type ExampleRepo } from '../demo/example-repo.ts';
import { installExample } from '../testing/example-installs.ts';
import { useTempStore } from '../testing/test-app.ts';
import { treeHash } from '../testing/tree-hash.ts';
import { planEnvironment } from './provision.ts';
import { prepareSessionEnvironment, sessionScope } from './session-env.ts';
import { TEST_SANDBOX } from '../testing/sandbox.ts';

/** npm ci and pip on a small machine; a cold npm cache takes longest. */
const SLOW = 300_000;

const env = useTempStore();
const repos: ExampleRepo[] = [];
afterEach(async () => {
  for (const r of repos.splice(0)) await r.cleanup();
});

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

async function installed(name: ExampleName): Promise<ExampleRepo> {
  const repo = await makeExampleRepo(name);
  repos.push(repo);
  await installExample(repo.dir, name);
  return repo;
}

function nodeEnv(extra: Partial<ProjectEnv>): ProjectEnv {
  return projectEnv({ test_dirs: ['tests'], ...extra });
}

/** A session's worktree on `repo` with the plan for `projectEnv` recorded, as createSession leaves it. */
async function session(repo: ExampleRepo, projectEnv: ProjectEnv): Promise<{ id: string; ref: WorktreeRef; events: EventInput[] }> {
  const { store } = env;
  const head = git(repo.dir, 'rev-parse', 'HEAD');
  const created = store.create({ source: repo.dir, brief: 'provision', baseBranch: 'main', baseSha: head, status: 'interviewing' });
  const id = created.session_id;
  const dirs = await addWorktree(repo.dir, created.worktree, created.branch, head);
  const plan = planEnvironment({ source: repo.dir, worktree: created.worktree, env: projectEnv });
  store.session(id).checkpoint.update(() => ({ ...dirs, environment: { plan, ready_at: null } }));
  const ref = await worktreeRefOf(store.session(id).checkpoint.read());
  const events: EventInput[] = [];
  const prepared = await prepareSessionEnvironment({ session: store.session(id), emit: (e) => events.push(e) }, { reason: 'prep', git: ref });
  expect(prepared).toEqual({ ok: true });
  expect(store.session(id).checkpoint.read().environment?.ready_at).not.toBeNull();
  return { id, ref, events };
}

/** The project's own test command in the worktree, as a check of the `custom` preset. */
async function check(id: string, ref: WorktreeRef, test: string, files: string[]) {
  const cp = env.store.session(id).checkpoint.read();
  return runChecks({
    scope: sessionScope(TEST_SANDBOX, cp, ref.worktree, ref),
    preset: 'custom',
    customChecks: { test },
    testFiles: files,
    changedFiles: [],
    lockedTests: {},
    timeoutMs: 120_000,
  });
}

const sandboxed = detectSandbox('auto').available;

describe.runIf(sandboxed)('a worktree gets the environment of an installed checkout', () => {
  it(
    'ts-vitest: vitest and tsc run from the linked node_modules; their caches stay in the worktree and nothing reaches a commit',
    async () => {
      const repo = await installed('ts-vitest');
      const before = treeHash(repo.dir);
      const { id, ref, events } = await session(repo, nodeEnv({ languages: ['typescript'], typescript: true, test_runner: 'vitest' }));
      expect(events).toEqual([
        { type: 'env_prepared', data: expect.objectContaining({ reason: 'prep', node_modules_from: path.join(repo.dir, 'node_modules') }) },
      ]);

      const result = await check(id, ref, 'vitest run {files}', ['tests/todo.test.ts']);
      expect(result.results[0]?.output).toMatch(/4 passed/);
      expect(result.passed).toBe(true);
      const types = await runUntrusted(
        { kind: 'shell', script: 'npm run typecheck' },
        sessionScope(TEST_SANDBOX, env.store.session(id).checkpoint.read(), ref.worktree, ref),
        {
          timeoutMs: 120_000,
        },
      );
      expect(types.exitCode, types.output).toBe(0);
      expect(fs.existsSync(path.join(ref.worktree, 'node_modules', '.vite-temp'))).toBe(true);

      fs.writeFileSync(path.join(ref.worktree, 'src', 'extra.ts'), 'export const extra = 1;\n');
      await commitAll(ref, 'T-001: extra');
      expect(git(ref.worktree, 'show', '--name-only', '--format=', 'HEAD')).toBe('src/extra.ts');
      expect(git(ref.worktree, 'status', '--porcelain', '--untracked-files=all')).toBe('');
      expect(treeHash(repo.dir)).toBe(before);
      expect(git(repo.dir, 'status', '--porcelain')).toBe('');
    },
    SLOW,
  );

  it(
    "cjs-mocha: mocha and the runtime dependency load; the worker's shell cannot change the user's dependencies",
    async () => {
      const repo = await installed('cjs-mocha');
      const before = treeHash(repo.dir);
      const { id, ref } = await session(repo, nodeEnv({ module_type: 'commonjs', test_runner: 'mocha', test_dirs: ['test'] }));
      const result = await check(id, ref, 'mocha {files}', ['test/todo.test.js']);
      expect(result.results[0]?.output).toMatch(/5 passing/);
      expect(result.passed).toBe(true);
      const scope = sessionScope(TEST_SANDBOX, env.store.session(id).checkpoint.read(), ref.worktree, ref);
      const npmTest = await runUntrusted({ kind: 'shell', script: 'npm test' }, scope, { timeoutMs: 120_000 });
      expect(npmTest.exitCode, npmTest.output).toBe(0);
      const tamper = await runUntrusted(
        { kind: 'shell', script: 'echo "module.exports = () => 0" > node_modules/ms/index.js; rm -rf node_modules/ms/; touch node_modules/mocha/x' },
        scope,
        { timeoutMs: 20_000 },
      );
      expect(tamper.output).toMatch(/Read-only file system/);
      expect(treeHash(repo.dir)).toBe(before);
      expect(git(repo.dir, 'status', '--porcelain')).toBe('');
    },
    SLOW,
  );

  it(
    "py-src: the venv's python imports the worktree's package ahead of the editable install of the checkout",
    async () => {
      const repo = await installed('py-src');
      const before = treeHash(repo.dir);
      const projectEnv: ProjectEnv = {
        ...nodeEnv({}),
        languages: ['python'],
        package_manager: null,
        lockfile: null,
        module_type: null,
        node_modules: false,
        test_runner: 'unittest',
        python: { interpreter: path.join(repo.dir, '.venv', 'bin', 'python'), source: 'venv', src_layout: true, packages: ['todo'] },
      };
      const { id, ref, events } = await session(repo, projectEnv);
      expect(events).toEqual([
        { type: 'env_prepared', data: { reason: 'prep', node_modules_from: null, linked: 0, venv: path.join(repo.dir, '.venv'), python_path: ['src', '.'] } },
      ]);
      // A change only the worktree has: the tests see it only if they import the worktree's sources.
      fs.appendFileSync(
        path.join(ref.worktree, 'src', 'todo', '__init__.py'),
        '\n\ndef where() -> str:\n    """Where this copy lives."""\n    return __file__\n',
      );
      fs.writeFileSync(
        path.join(ref.worktree, 'tests', 'test_where.py'),
        [
          'import os',
          'import unittest',
          '',
          'import todo',
          '',
          'ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))',
          '',
          '',
          'class WhereTest(unittest.TestCase):',
          '    def test_the_worktree_copy_is_imported(self):',
          '        self.assertEqual(todo.where(), os.path.join(ROOT, "src", "todo", "__init__.py"))',
          '',
        ].join('\n'),
      );
      const result = await check(id, ref, 'python -m unittest -v {files}', ['tests/test_todo.py', 'tests/test_where.py']);
      expect(result.results[0]?.output).toMatch(/Ran 5 tests[\s\S]*OK/);
      expect(result.passed).toBe(true);
      const which = await runUntrusted(
        { kind: 'shell', script: 'python -c "import sys, todo; print(sys.prefix); print(todo.__file__)"' },
        sessionScope(TEST_SANDBOX, env.store.session(id).checkpoint.read(), ref.worktree, ref),
        { timeoutMs: 20_000 },
      );
      expect(which.output.split('\n')).toEqual([path.join(repo.dir, '.venv'), path.join(ref.worktree, 'src', 'todo', '__init__.py')]);
      expect(treeHash(repo.dir)).toBe(before);
      expect(git(repo.dir, 'status', '--porcelain')).toBe('');
    },
    SLOW,
  );
});

describe.runIf(sandboxed)('a checkout with a lockfile but nothing installed', () => {
  it(
    "gets an offline install from npm's cache in the worktree, in the sandbox without network",
    async () => {
      await installed('cjs-mocha'); // a user's other checkout: npm's cache has the packages
      const repo = await makeExampleRepo('cjs-mocha');
      repos.push(repo);
      const before = treeHash(repo.dir);
      const { id, ref, events } = await session(repo, nodeEnv({ node_modules: false, module_type: 'commonjs', test_runner: 'mocha' }));
      expect(events.map((e) => e.type).filter((t) => t !== 'setup_output')).toEqual(['setup_started', 'setup_finished']);
      expect(events[0]).toEqual({
        type: 'setup_started',
        data: { step: 'install', command: 'npm ci --offline --no-audit --no-fund', origin: 'detected', reason: 'prep', network: false },
      });
      expect(events.at(-1)).toMatchObject({ type: 'setup_finished', data: { step: 'install', passed: true, exit_code: 0 } });
      expect(fs.lstatSync(path.join(ref.worktree, 'node_modules', 'ms')).isDirectory()).toBe(true);
      const result = await check(id, ref, 'mocha {files}', ['test/todo.test.js']);
      expect(result.passed, result.results[0]?.output).toBe(true);
      expect(git(ref.worktree, 'status', '--porcelain')).toBe('');
      expect(treeHash(repo.dir)).toBe(before);
    },
    SLOW,
  );

  it(
    'fails prep with the install output and what to do when a package is not in the cache',
    async () => {
      const repo = await makeExampleRepo('cjs-mocha');
      repos.push(repo);
      const lock = JSON.parse(fs.readFileSync(path.join(repo.dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> };
      lock.packages['node_modules/ms'] = {
        version: '2.1.3',
        resolved: 'https://registry.npmjs.org/ms/-/ms-9.9.9-tilth-missing.tgz',
        integrity: 'sha512-' + 'A'.repeat(86) + '==',
      };
      fs.writeFileSync(path.join(repo.dir, 'package-lock.json'), JSON.stringify(lock, null, 2));
      git(repo.dir, 'commit', '-qam', 'a lockfile naming a package no cache has');
      const { store } = env;
      const head = git(repo.dir, 'rev-parse', 'HEAD');
      const created = store.create({ source: repo.dir, brief: 'provision', baseBranch: 'main', baseSha: head, status: 'interviewing' });
      const dirs = await addWorktree(repo.dir, created.worktree, created.branch, head);
      const plan = planEnvironment({ source: repo.dir, worktree: created.worktree, env: nodeEnv({ node_modules: false }) });
      store.session(created.session_id).checkpoint.update(() => ({ ...dirs, environment: { plan, ready_at: null } }));
      const events: EventInput[] = [];
      const ref = await worktreeRefOf(store.session(created.session_id).checkpoint.read());
      const prepared = await prepareSessionEnvironment(
        { session: store.session(created.session_id), emit: (e) => events.push(e) },
        { reason: 'prep', git: ref },
      );
      expect(prepared.ok).toBe(false);
      const problem = prepared.ok ? '' : prepared.problem;
      expect(problem).toMatch(/The offline install of the dependencies \(`npm ci --offline --no-audit --no-fund`, from package-lock.json\) exited with 1/);
      expect(problem).toMatch(/npm error code ENOTCACHED/);
      expect(problem).toContain(`\`npm install\` in ${repo.dir}`);
      expect(problem).toContain('.tilth/setup');
      expect(store.session(created.session_id).checkpoint.read().environment?.ready_at).toBeNull();
      expect(events.at(-1)).toMatchObject({ type: 'setup_finished', data: { step: 'install', passed: false, exit_code: 1, problem } });
    },
    SLOW,
  );
});
