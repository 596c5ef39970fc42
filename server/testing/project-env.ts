import type { ProjectEnv } from '../../shared/project-env.ts';

/** An npm JavaScript project as detection reports it, with nothing found beyond; each test overrides what matters to it. */
export function projectEnv(over: Partial<ProjectEnv> = {}): ProjectEnv {
  return {
    languages: ['javascript'],
    package_manager: 'npm',
    lockfile: 'package-lock.json',
    module_type: 'esm',
    typescript: false,
    test_runner: null,
    test_runner_evidence: null,
    test_dirs: [],
    test_globs: [],
    python: null,
    node_modules: true,
    setup_command: null,
    ...over,
  };
}
