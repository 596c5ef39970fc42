/**
 * The test cases a runner collects in one file, by the runner's own listing mode — so a name in
 * the criterion ↔ test matrix that is not a case of the file is told apart before anything runs,
 * with the names the runner does find (the red proof, issue 14):
 *
 * - pytest: `--collect-only -q`, one node id a line (`tests/test_x.py::TestA::test_b[1]`);
 * - vitest: `vitest list <file> --json`, each case's full title (`describe > case`);
 * - mocha (9 and later): `--dry-run --reporter json`, each case's title and full title.
 *
 * node --test, jest and unittest have no listing mode: their runs say when a filter selected
 * nothing (`RAN_NOTHING` in red-proof.ts). A listing that fails — the file does not import, the
 * runner is missing or too old — or that finds no case at all (a file the runner's config does
 * not pick up) says nothing about names: the cases then run, and their runs say what is wrong.
 */
import { z } from 'zod';
import type { ProjectEnv } from '../../shared/project-env.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import { spacedName } from '../../shared/test-cases.ts';
import { localBin, testCommand, type TestCommand } from '../env/presets.ts';
import { runUntrusted, type UntrustedScope } from '../proc/untrusted.ts';

/** One collected case: how the matrix names it, and the full title a runner's name filter matches. */
export interface CollectedCase {
  name: string;
  fullTitle: string;
}

/** The command that lists the cases of `file`, or null where the runner has no listing mode. */
export function collectCommand(preset: ChecksPreset, file: string, env: ProjectEnv | null = null): TestCommand | null {
  switch (preset) {
    case 'pytest': {
      // The run command of the file (the project's interpreter, no cache, its environment), collecting.
      const run = testCommand('pytest', [file], undefined, env);
      return run.kind === 'argv' ? { ...run, args: [...run.args, '--collect-only'] } : null;
    }
    case 'vitest':
      return { kind: 'argv', command: localBin('vitest'), args: ['list', file, '--json'], env: {} };
    case 'mocha':
      return { kind: 'argv', command: localBin('mocha'), args: [file, '--dry-run', '--reporter', 'json'], env: {} };
    default:
      return null;
  }
}

/**
 * The cases in a listing's output (stdout and stderr interleaved), or null when the output is not
 * a listing. Only the cases of `file` count: a `.mocharc` `spec`, or vitest's file filter (a
 * substring), can bring in other files.
 */
export function parseCollected(preset: ChecksPreset, file: string, output: string): CollectedCase[] | null {
  const inFile = (p: string) => p === file || p.endsWith(`/${file}`);
  switch (preset) {
    case 'pytest': {
      // `tests/test_x.py::TestA::test_b[1]`; a parametrized case is named with or without its id.
      const cases: CollectedCase[] = [];
      for (const line of output.split('\n')) {
        const at = line.indexOf('::');
        if (at <= 0 || !inFile(line.slice(0, at))) continue;
        const name = line.slice(at + 2).trimEnd();
        cases.push({ name, fullTitle: name });
      }
      return cases;
    }
    case 'vitest': {
      const listed = z.array(z.object({ name: z.string(), file: z.string() })).safeParse(jsonIn(output, '[', ']'));
      if (!listed.success) return null;
      return listed.data.filter((c) => inFile(c.file)).map((c) => ({ name: c.name.split(' > ').at(-1) ?? c.name, fullTitle: c.name.split(' > ').join(' ') }));
    }
    case 'mocha': {
      const report = z
        .object({ tests: z.array(z.object({ title: z.string(), fullTitle: z.string(), file: z.string().optional() })) })
        .safeParse(jsonIn(output, '{', '}'));
      if (!report.success) return null;
      return report.data.tests.filter((t) => t.file === undefined || inFile(t.file)).map((t) => ({ name: t.title, fullTitle: t.fullTitle }));
    }
    default:
      return null;
  }
}

/**
 * Whether a matrix name selects a collected case the way the case's own run selects it
 * (`testCaseCommand`): pytest takes a node id (a parametrized function without its id selects
 * every parameter, a class every method); the JavaScript runners take a case's own title or its
 * full title.
 */
export function selectsCase(preset: ChecksPreset, cases: CollectedCase[], name: string): boolean {
  if (preset === 'pytest') {
    return cases.some((c) => c.name === name || c.name.startsWith(`${name}::`) || (c.name.startsWith(`${name}[`) && c.name.endsWith(']')));
  }
  // A JavaScript full name (`todo › adds`) is the listing's full title, joined by spaces.
  return cases.some((c) => c.name === name || c.fullTitle === name || c.fullTitle === spacedName(name));
}

const SHOWN = 8;

/** The error of a matrix name the runner does not collect: the names it does, to fix the matrix with. */
export function notCollectedMessage(preset: ChecksPreset, cases: CollectedCase[], file: string, name: string): string {
  const names = [...new Set(cases.map((c) => c.name))];
  const shown = names
    .slice(0, SHOWN)
    .map((n) => `"${n}"`)
    .join(', ');
  const more = names.length > SHOWN ? ` and ${names.length - SHOWN} more` : '';
  return `no test case named "${name}" in ${file}: ${preset} collects ${shown}${more}; check its name in the matrix against the file`;
}

/**
 * Lists the cases of `file` through the sandbox, the way its cases run; null where the runner has
 * no listing mode, the listing failed, or it found no case.
 */
export async function collectCases(
  preset: ChecksPreset,
  file: string,
  project: ProjectEnv | null,
  scope: UntrustedScope,
  options: { timeoutMs: number; env: Record<string, string>; signal?: AbortSignal | undefined },
): Promise<CollectedCase[] | null> {
  const command = collectCommand(preset, file, project);
  if (command === null) return null;
  const result = await runUntrusted(command, scope, options);
  if (result.timedOut || result.spawnError !== null || result.exitCode !== 0) return null;
  const cases = parseCollected(preset, file, result.output);
  return cases && cases.length > 0 ? cases : null;
}

/** The JSON value in `output` that starts a line with `open` and ends the last line that ends with `close`. */
function jsonIn(output: string, open: string, close: string): unknown {
  const lines = output.split('\n');
  let end = lines.length - 1;
  while (end >= 0 && !lines[end]!.trimEnd().endsWith(close)) end--;
  for (let start = 0; start <= end; start++) {
    if (!lines[start]!.startsWith(open)) continue;
    const text = lines.slice(start, end + 1).join('\n');
    try {
      return JSON.parse(text.slice(0, text.lastIndexOf(close) + 1));
    } catch {
      // Not the listing (a line of the tests' own output): try the next start.
    }
  }
  return undefined;
}
