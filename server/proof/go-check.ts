/**
 * What the contract check and the proofs know about Go tests (issue 29): how a test asserts, and
 * why a run of `go test` failed — read from what go prints, as `classifyRun` does for the other
 * runners. In Go a test that calls what the task adds does not compile until the task is done, so
 * "undefined: Name" and a package of the module that does not exist yet are the usual red, while
 * a syntax error, a module the project does not require, or a missing go.sum entry are not.
 */
import type { RunVerdict } from './report-shape.ts';
import { goModulePath } from './go-report.ts';

/** Names a Go test's helpers come from when it is written for a framework the project may not have. */
export const GO_FRAMEWORK_NAMES = new Set(['assert', 'require', 'suite', 'mock', 'gomega', 'Expect', 'So']);

interface GoRun {
  output: string;
  exitCode: number | null;
  spawnError: string | null;
}

interface GoContext {
  /** The test file, relative to the worktree. */
  file: string;
  worktree: string;
}

/** Assertions in a Go test file: the testing receivers' failing calls, and testify's. */
export function countGoAssertions(source: string): number {
  const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*/g, '');
  // gofmt writes a parameter as `t *testing.T`.
  const receivers = new Set([...code.matchAll(/(\w+) \*testing\.[TBF]\b/g)].map((m) => m[1]!));
  let count = 0;
  for (const name of receivers) {
    count += code.match(new RegExp(`\\b${name}\\.(?:Errorf?|Fatalf?|Fail|FailNow)\\(`, 'g'))?.length ?? 0;
  }
  return count + (code.match(/\b(?:assert|require)\.[A-Z]\w*\(/g)?.length ?? 0);
}

export function classifyGo(out: string, run: GoRun, ctx: GoContext): RunVerdict {
  if (run.spawnError !== null || run.exitCode === 126 || run.exitCode === 127) {
    return {
      kind: 'environment',
      message: `go could not be started (${run.spawnError ?? `exit code ${run.exitCode}`}). Install Go and put it on the PATH of the Tilth server (on Debian and Ubuntu: \`apt-get install -y golang-go\`), then check again.`,
      runner: true,
    };
  }
  if (/cannot find main module|go\.mod file not found/.test(out)) {
    return {
      kind: 'environment',
      message: `go found no module for ${ctx.file}: the repository needs a go.mod at its root (\`go mod init\`), then check again.`,
      runner: true,
    };
  }
  const sum = /missing go\.sum entry for module providing package (\S+)/.exec(out);
  if (sum) {
    return {
      kind: 'environment',
      message: `${ctx.file} does not build: go.sum has no entry for ${sum[1]}. Run \`go mod download\` (or \`go mod tidy\`) in the repository so the module cache has it, then check again: the checks run offline.`,
    };
  }
  const syntax = /(\S+\.go):(\d+):\d+: (syntax error: .*|expected .*)/.exec(out);
  if (syntax) {
    return {
      kind: 'environment',
      message: `${syntax[1]} does not parse: line ${syntax[2]}: ${syntax[3]}. The test has a syntax error: fix it in seed review.`,
    };
  }
  const module = goModulePath(ctx.worktree);
  const missingPackage =
    /no required module provides package (\S+?);/.exec(out)?.[1] ??
    /go build (\S+): no non-test Go files in /.exec(out)?.[1] ??
    /package (\S+) is not in (?:GOROOT|std)/.exec(out)?.[1] ??
    /cannot find package "([^"]+)"/.exec(out)?.[1];
  if (missingPackage !== undefined) {
    if (missingPackage === module || missingPackage.startsWith(`${module}/`)) {
      return { kind: 'fails_as_expected', reason: `the package ${missingPackage} does not exist yet` };
    }
    return {
      kind: 'does_not_load',
      message: `${ctx.file} does not build: it imports ${missingPackage}, which the module does not require and the checks cannot fetch (they run offline). Use the standard library and what go.mod already requires.`,
    };
  }
  const undefinedName = /: undefined: (\S+)/.exec(out)?.[1];
  if (undefinedName !== undefined) {
    if (GO_FRAMEWORK_NAMES.has(undefinedName.split('.')[0]!)) {
      return {
        kind: 'does_not_load',
        message: `${ctx.file} uses \`${undefinedName}\` without importing it: write the checks with the standard testing package (\`t.Errorf\`, \`t.Fatalf\`) unless go.mod requires the assertion library.`,
      };
    }
    return { kind: 'fails_as_expected', reason: `${undefinedName} is not defined yet` };
  }
  const member = /\.(\w+) undefined \(type \S+ has no (?:field or )?method /.exec(out)?.[1];
  if (member !== undefined) return { kind: 'fails_as_expected', reason: `${member} is not defined yet` };
  const excluded = out.split('\n').find((l) => /build constraints exclude all Go files|no Go files in/.test(l));
  if (excluded !== undefined || /\[setup failed\]/.test(out)) {
    const why = excluded?.replace(/^(?:go: |# )/, '') ?? 'go could not set up the package';
    return {
      kind: 'environment',
      message: `${ctx.file} is not built by go here: ${why}. Give the file a name without an OS or architecture suffix, and the package clause of its folder.`,
    };
  }
  if (run.exitCode === 0) return /no tests to run|\[no test files\]/.test(out) ? noTests(ctx) : { kind: 'passes' };
  if (/\[build failed\]/.test(out)) {
    const first = out.split('\n').find((l) => /\.go:\d+:\d+: /.test(l)) ?? 'the package does not compile';
    return { kind: 'does_not_load', message: `${ctx.file} does not build, for a reason other than the missing work: ${first}` };
  }
  return { kind: 'fails_as_expected', reason: 'a test failed' };
}

function noTests(ctx: GoContext): RunVerdict {
  return {
    kind: 'does_not_load',
    message: `go ran no test from ${ctx.file}: tests are top-level functions named Test… (\`func TestParse(t *testing.T)\`), in a file ending _test.go.`,
  };
}
