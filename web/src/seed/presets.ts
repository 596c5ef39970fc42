/**
 * The checks presets as the browser names them, in the order the pickers list them, and the
 * one-line summary of a repository's environment shown on the new-session page and in seed review.
 */
import { type ProjectEnv, type PythonManager, type TestRunner, UNDRIVEN_RUNNERS, type Workspace } from '../../../shared/project-env.ts';
import { RUNNER_NAMES, testFileRule, type ChecksPreset } from '../../../shared/seed.ts';

export const PRESET_NAMES: Record<ChecksPreset, string> = { ...RUNNER_NAMES, custom: 'Custom' };

/**
 * Where the suggested preset came from, for the hint under the picker: the runner the repository
 * names, or, when it names none, the one Tilth starts from for its language — never "detected".
 */
export function presetOrigin(preset: ChecksPreset, env: ProjectEnv | null): string {
  if (env?.test_runner === preset || (preset === 'custom' && env?.undriven_runner)) return `Detected from the repository: ${PRESET_NAMES[preset]}.`;
  if (preset === 'custom') return 'The repository names no test runner Tilth drives: set your own test command.';
  return `The repository names no test runner, so the checks start from ${PRESET_NAMES[preset]}; choose the one the project uses if it has one.`;
}

export const PRESET_ORDER: readonly ChecksPreset[] = ['vitest', 'jest', 'mocha', 'ava', 'tap', 'uvu', 'node', 'pytest', 'unittest', 'go', 'cargo', 'custom'];

/** "Vitest — tests/t<NNN>_<slug>.test.ts": the preset and where its tests go in this repository. */
export function presetLabel(preset: ChecksPreset, env: ProjectEnv | null): string {
  return preset === 'custom' ? 'Custom — your own test command' : `${PRESET_NAMES[preset]} — ${testFileRule(preset, env).describe}`;
}

const PACKAGE_MANAGERS = { npm: 'npm', pnpm: 'pnpm', yarn: 'Yarn', bun: 'Bun' } as const;
const LANGUAGE_NAMES: Record<ProjectEnv['languages'][number], string> = {
  typescript: 'TypeScript',
  javascript: 'JavaScript',
  python: 'Python',
  go: 'Go',
  rust: 'Rust',
};

/**
 * "TypeScript · pnpm · vitest (vitest.config.ts) · tests in tests/": what detection found, most
 * telling first. Empty parts are left out; an empty environment says so.
 */
export function summarizeEnv(env: ProjectEnv): string {
  const parts: string[] = [];
  const language = env.languages[0];
  // A workspace root's own module type says nothing of its packages'.
  const commonjs = env.module_type === 'commonjs' && !env.workspace?.packages.length;
  if (language) parts.push(language === 'javascript' ? `JavaScript${commonjs ? ' (CommonJS)' : ''}` : LANGUAGE_NAMES[language]);
  // "pnpm workspace of …" names the package manager already.
  if (env.package_manager && !(env.workspace?.packages.length && env.workspace.tool === env.package_manager)) parts.push(PACKAGE_MANAGERS[env.package_manager]);
  if (env.python) {
    if (env.python.manager) parts.push(PYTHON_MANAGERS[env.python.manager.tool]);
    parts.push(pythonWhere(env.python));
  }
  const undriven = env.undriven_runner;
  const workspace = env.workspace;
  if (workspace && workspace.packages.length > 0) {
    // Each package runs its own tests: which packages, with which runner, say more than one runner.
    const shown = workspace.packages.slice(0, 4).map((p) => {
      const own = p.test_runner
        ? runnerName(p.test_runner)
        : p.undriven_runner
          ? `${UNDRIVEN_RUNNERS[p.undriven_runner.runner].name}, not driven yet`
          : 'no tests';
      return `${p.dir} (${own})`;
    });
    const more = workspace.packages.length - shown.length;
    parts.push(
      `${WORKSPACE_TOOLS[workspace.tool]} workspace of ${workspace.packages.length} package${workspace.packages.length === 1 ? '' : 's'}: ${shown.join(', ')}${more > 0 ? `, ${more} more` : ''}`,
    );
    if (env.setup_command) parts.push(`setup: ${env.setup_command}`);
    return parts.join(' · ');
  }
  const runner = env.test_runner ? runnerName(env.test_runner) : null;
  if (runner) parts.push(env.test_runner_evidence ? `${runner} (${env.test_runner_evidence})` : runner);
  else if (undriven) parts.push(`${UNDRIVEN_RUNNERS[undriven.runner].name} (${undriven.evidence}), not driven by Tilth yet`);
  else parts.push('no test runner found');
  if (env.test_dirs.length > 0)
    parts.push(
      `tests in ${env.test_dirs
        .slice(0, 2)
        .map((d) => `${d}/`)
        .join(', ')}`,
    );
  if (env.python?.src_layout) parts.push('src layout');
  if (env.setup_command) parts.push(`setup: ${env.setup_command}`);
  return parts.join(' · ');
}

/** Runners whose id is not the name their users know them by. */
function runnerName(runner: TestRunner): string {
  return runner === 'go' || runner === 'cargo' || runner === 'ava' || runner === 'tap' ? RUNNER_NAMES[runner] : runner;
}

const WORKSPACE_TOOLS: Record<Workspace['tool'], string> = { npm: 'npm', pnpm: 'pnpm', yarn: 'Yarn', bun: 'Bun', cargo: 'Cargo', go: 'Go' };

/** How each tool makes the project's environment. */
const PYTHON_SETUP: Record<Exclude<PythonManager, 'tox' | 'nox'>, string> = {
  uv: 'uv sync',
  poetry: 'poetry install',
  pipenv: 'pipenv install --dev',
  hatch: 'hatch env create',
};

const PYTHON_MANAGERS: Record<PythonManager, string> = { uv: 'uv', poetry: 'Poetry', pipenv: 'Pipenv', hatch: 'Hatch', tox: 'tox', nox: 'nox' };

/** Which interpreter the tests run with, in the words its users know it by. */
function pythonWhere(python: NonNullable<ProjectEnv['python']>): string {
  switch (python.source) {
    case 'venv':
      return shortPath(python.interpreter);
    case 'poetry':
      // `…/virtualenvs/todo-Vi2u4BIR-py3.11/bin/python`: the virtualenv's name says which.
      return `Poetry's virtualenv ${python.interpreter.split('/').at(-3) ?? ''}`;
    case 'pipenv':
      // `…/virtualenvs/todo-tP9Ve7c0/bin/python`: likewise.
      return `Pipenv's virtualenv ${python.interpreter.split('/').at(-3) ?? ''}`;
    case 'tox':
    case 'nox':
      return /(\.(?:tox|nox)\/[^/]+)\/bin\/python$/.exec(python.interpreter)?.[1] ?? python.interpreter;
    case 'system':
      return `system ${python.interpreter}`;
  }
}

/** `/home/me/repo/.venv/bin/python` → `.venv/bin/python`: the part that says which venv. */
function shortPath(interpreter: string): string {
  const venv = /(?:^|\/)(\.?venv\/bin\/python[\w.]*)$/.exec(interpreter);
  return venv ? venv[1]! : interpreter;
}

/** Why the checks may not run as detected (null when nothing stands out), shown beside the summary. */
export function envNote(env: ProjectEnv): string | null {
  const undriven = undrivenNote(env);
  if (undriven !== null) return undriven;
  const manager = env.python?.manager?.tool;
  if (manager && env.python?.source === 'system' && manager !== 'tox' && manager !== 'nox') {
    return `This project's Python environment is made with ${PYTHON_MANAGERS[manager]} (${env.python.manager!.evidence}), and this checkout has none yet: run \`${PYTHON_SETUP[manager]}\` in it, then check again. Until then the tests run with ${env.python.interpreter} from the PATH.`;
  }
  const js = env.languages.includes('javascript') || env.languages.includes('typescript');
  if (js && env.test_runner && env.test_runner !== 'node' && env.test_runner !== 'pytest' && env.test_runner !== 'unittest' && !env.node_modules) {
    return `node_modules is not installed in this checkout, so ${env.test_runner} cannot run until the dependencies are installed.`;
  }
  return null;
}

/** The custom test command to start from: the one for the runner the project names that Tilth does not drive yet; empty when there is none. */
export function detectedCustomCommand(env: ProjectEnv | null): string {
  return env?.undriven_runner ? (UNDRIVEN_RUNNERS[env.undriven_runner.runner].command ?? '') : '';
}

/** The runner the project names that Tilth does not drive yet, and what to do about it; null when there is none. */
export function undrivenNote(env: ProjectEnv): string | null {
  if (!env.undriven_runner) return null;
  const { name, command } = UNDRIVEN_RUNNERS[env.undriven_runner.runner];
  const example = command ? ` (for example ${command})` : '';
  return `This project runs its tests with ${name}, which Tilth does not drive yet. The checks use your own test command instead: set it in seed review under Custom${example}.`;
}
