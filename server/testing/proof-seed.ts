/**
 * A seed as the red proof and the contract check take it, on a copy of an example repository:
 * for the per-runner proof tests (`server/proof/*-proof.int.test.ts`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { CustomChecks, PrdEntry } from '../../shared/files.ts';
import type { ChecksPreset } from '../../shared/seed.ts';
import { makeExampleRepo, type ExampleName, type ExampleRepo } from '../demo/example-repo.ts';
import { detectProjectEnv } from '../env/detect.ts';
import type { ContractCheckInput } from '../proof/contract-check.ts';
import { installExample } from './example-installs.ts';
import { TEST_SANDBOX } from './sandbox.ts';

/** A pending task whose criteria are checked by `tests`, one list of case names per criterion. */
export function proofTask(id: string, description: string, tests: string[][]): PrdEntry {
  return { id, title: `Task ${id}`, description, acceptance_criteria: tests.map((_, i) => `criterion ${i + 1}`), criteria_tests: tests, status: 'pending' };
}

/** Source lines joined, with the final newline. */
export const sourceLines = (...lines: string[]) => `${lines.join('\n')}\n`;

/**
 * `example` copied, installed as its README says, with `files` written in; the input proves each
 * case once. `detect`: the project's detected environment goes with it (where the naming rule
 * depends on its folders); `customChecks`: the custom preset's commands.
 */
export async function seededExample(
  example: ExampleName,
  preset: ChecksPreset,
  prd: PrdEntry[],
  files: Record<string, string>,
  options: { detect?: boolean; customChecks?: CustomChecks } = {},
): Promise<{ repo: ExampleRepo; input: ContractCheckInput }> {
  const repo = await makeExampleRepo(example);
  await installExample(repo.dir, example);
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(repo.dir, file)), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, file), content);
  }
  const project = options.detect ? { project: await detectProjectEnv(repo.dir) } : {};
  const custom = options.customChecks ? { customChecks: options.customChecks } : {};
  return {
    repo,
    input: {
      prd,
      testFiles: files,
      preset,
      ...project,
      ...custom,
      scope: { sandbox: TEST_SANDBOX, worktree: repo.dir, git: null, network: false },
      env: {},
      repeats: 1,
    },
  };
}

/**
 * The per-runner proof tests' seeding: `seed` copies and installs `example` with the files written
 * in (its environment detected), and the copy is removed after each test; `dir` is the current
 * copy, where a test writes the work that turns its cases green.
 */
export function exampleSeeder(
  example: ExampleName,
  preset: ChecksPreset,
): { seed: (prd: PrdEntry[], files: Record<string, string>) => Promise<ContractCheckInput>; dir: () => string } {
  let repo: ExampleRepo | null = null;
  afterEach(async () => {
    await repo?.cleanup();
    repo = null;
  });
  return {
    seed: async (prd, files) => {
      const seeded = await seededExample(example, preset, prd, files, { detect: true });
      repo = seeded.repo;
      return seeded.input;
    },
    dir: () => repo!.dir,
  };
}
