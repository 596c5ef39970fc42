import { describe, expect, it } from 'vitest';
import { packageOf, packageRun, type ProjectEnv, type WorkspacePackage } from './project-env.ts';
import { testFileRule } from './seed.ts';

const pkg = (over: Partial<WorkspacePackage> & Pick<WorkspacePackage, 'dir'>): WorkspacePackage => ({
  name: over.dir,
  test_runner: 'vitest',
  test_runner_evidence: 'scripts.test: vitest run',
  undriven_runner: null,
  test_dirs: ['tests'],
  test_globs: ['tests/**/*.test.ts'],
  typescript: true,
  module_type: 'esm',
  node_modules: true,
  ...over,
});

const env = (packages: WorkspacePackage[]): ProjectEnv => ({
  languages: ['typescript'],
  package_manager: 'pnpm',
  lockfile: 'pnpm-lock.yaml',
  module_type: 'commonjs',
  typescript: true,
  test_runner: 'vitest',
  test_runner_evidence: 'pnpm-workspace.yaml: 2 of 3 packages',
  test_dirs: [],
  test_globs: [],
  python: null,
  node_modules: true,
  setup_command: null,
  workspace: { tool: 'pnpm', evidence: 'pnpm-workspace.yaml', packages },
});

const WS = env([
  pkg({ dir: 'packages/core/nested', test_dirs: ['test'], test_globs: ['test/*.test.js'], typescript: false }),
  pkg({ dir: 'packages/core' }),
  pkg({ dir: 'apps/web', test_runner: 'jest', test_dirs: ['__tests__'], test_globs: [], typescript: false, module_type: 'commonjs' }),
  pkg({ dir: 'docs', test_runner: null, test_runner_evidence: null }),
]);

describe('workspace packages', () => {
  it('finds the innermost package that holds a file, and none for a file outside every package', () => {
    expect(packageOf(WS, 'packages/core/tests/a.test.ts')?.dir).toBe('packages/core');
    expect(packageOf(WS, 'packages/core/nested/test/a.test.js')?.dir).toBe('packages/core/nested');
    expect(packageOf(WS, 'packages/corex/tests/a.test.ts')).toBeNull();
    expect(packageOf(WS, 'tests/a.test.ts')).toBeNull();
    expect(packageOf({ ...WS, workspace: undefined }, 'packages/core/a.js')).toBeNull();
    expect(packageOf(null, 'packages/core/a.js')).toBeNull();
  });

  it("runs a package's file from the package with its runner and layout, when the session kept the detected runner", () => {
    const run = packageRun('vitest', WS, 'apps/web/__tests__/t002_x.test.js');
    expect(run).toMatchObject({ dir: 'apps/web', preset: 'jest', file: '__tests__/t002_x.test.js' });
    expect(run.env).toMatchObject({
      test_runner: 'jest',
      module_type: 'commonjs',
      typescript: false,
      test_dirs: ['__tests__'],
      workspace: null,
      package_manager: 'pnpm',
    });
    // Another preset chosen in seed review (custom), a file outside the packages, a package without a runner: from the root.
    expect(packageRun('custom', WS, 'apps/web/__tests__/t002_x.test.js')).toMatchObject({
      dir: '',
      preset: 'custom',
      file: 'apps/web/__tests__/t002_x.test.js',
    });
    expect(packageRun('vitest', WS, 'tests/t001_x.test.ts')).toEqual({ dir: '', preset: 'vitest', env: WS, file: 'tests/t001_x.test.ts' });
    expect(packageRun('vitest', undefined, 'tests/t001_x.test.ts')).toEqual({ dir: '', preset: 'vitest', env: null, file: 'tests/t001_x.test.ts' });
    expect(packageRun('vitest', WS, 'docs/tests/t001_x.test.ts')).toMatchObject({ dir: '', preset: 'vitest' });
  });

  it("names a test inside one package under that package's rule, the task's digits read from the name", () => {
    const rule = testFileRule('vitest', WS);
    expect(rule.example).toBe('packages/core/nested/test/t001_add_parser.test.js');
    expect(rule.describe).toBe(
      'packages/core/nested/test/t<NNN>_<slug>.test.js, or packages/core/tests/t<NNN>_<slug>.test.ts, or apps/web/__tests__/t<NNN>_<slug>.test.js (or .test.jsx) (in the package whose code it tests)',
    );
    for (const [file, digits] of [
      ['packages/core/tests/t001_a.test.ts', '001'],
      ['packages/core/nested/test/t012_b.test.js', '012'],
      ['apps/web/__tests__/t1234_c-d.test.jsx', '1234'],
    ] as const)
      expect(rule.regex.exec(file)?.[1], file).toBe(digits);
    for (const file of [
      'tests/t001_a.test.ts',
      'docs/tests/t001_a.test.ts',
      'apps/web/tests/t001_a.test.js',
      'packages/core/tests/t001_a.test.js.bak',
      'packages/core/__tests__/t001_a.test.ts',
      'packages/other/tests/t001_a.test.ts',
    ])
      expect(rule.regex.test(file), file).toBe(false);
    expect(rule.prefix('007')).toBe('packages/core/nested/test/t007_');
    expect(testFileRule('custom', WS).example).toBe('tests/t001_add_parser.test.ts');
  });
});
