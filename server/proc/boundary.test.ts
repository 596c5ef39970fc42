/**
 * "One way to run untrusted code": nothing outside proc/ may start processes by itself or use the
 * bounded runner without the sandbox policy. The few places that start a known program of the
 * user's (git push, gh, the browser opener) are listed here by name, so a new one is a decision
 * someone has to write down.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SERVER = path.resolve(import.meta.dirname, '..');

/** Files that start a program Tilth chose (never repository or model-written code), and why. */
const STARTS_KNOWN_PROGRAMS: Record<string, string> = {
  'review/publish.ts': 'git push and gh pr create, on the user’s request',
  'review/review.ts': 'gh auth status',
  'review/merge.ts': 'git merge in the scratch worktree, before any untrusted code runs there',
  'cli.ts': 'the browser opener',
  'testing/tilth-process.ts': 'tests: a real tilth serve and tilth worker',
  'testing/redis.ts': 'tests: a real redis-server for the run queue',
  'demo/example-repo.ts': 'demo mode and tests: git to set up example repositories',
  'testing/example-installs.ts': 'tests: npm, pip and other package managers installing an example',
  'testing/run-harness.ts': 'tests: git to read what a run committed',
};

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

describe('the boundary around untrusted code', () => {
  const files = sources(SERVER).map((f) => ({ rel: path.relative(SERVER, f).split(path.sep).join('/'), text: fs.readFileSync(f, 'utf8') }));

  it('has only proc/ use the bounded runner', () => {
    const users = files.filter((f) => !f.rel.startsWith('proc/') && /proc\/runner\.ts'/.test(f.text)).map((f) => f.rel);
    expect(users).toEqual([]);
  });

  it('has nothing outside proc/ start a process, except the listed known programs', () => {
    const spawning = files
      // A lazy `import('execa')` (issue 32: loaded at its first use) counts as much as a static one.
      .filter((f) => !f.rel.startsWith('proc/') && /(from |import\()'(execa|node:child_process)'/.test(f.text))
      .map((f) => f.rel)
      .sort();
    expect(spawning).toEqual(Object.keys(STARTS_KNOWN_PROGRAMS).sort());
  });
});
