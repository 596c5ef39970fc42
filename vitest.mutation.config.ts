// The tests Stryker runs against each mutant (stryker.config.mjs): the unit tests of the rules that
// guard safety and money. Integration tests stay out: they start servers and real runs, and a
// static mutant would otherwise run the whole suite. (Spread, not mergeConfig: that would append
// this list to the base's include instead of replacing it.)
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'server/http/base/security.test.ts',
      'server/tools/guard.test.ts',
      'server/tools/read-tools.test.ts',
      'server/tools/worker-tools.test.ts',
      'server/engine/case.test.ts',
      'server/seed/sink.test.ts',
      'server/store/event-log.test.ts',
      'server/engine/run-context.test.ts',
      'server/llm/call-record.test.ts',
      'server/fs/tree.test.ts',
      'server/env/provision.test.ts',
      'server/store/serve-lock.test.ts',
      'server/store/run-files.test.ts',
      'server/store/session-handle.test.ts',
      'server/jobs/job-runner.test.ts',
      'server/jobs/queue-signing.test.ts',
      'server/proof/runner-report.test.ts',
      'server/proof/report-parsers.test.ts',
      'server/proof/test-machinery.test.ts',
      'server/env/dependency-guard.test.ts',
      'server/proof/python-runner-modules.test.ts',
      'server/proof/mutants.test.ts',
      'server/proof/line-coverage.test.ts',
      'shared/evidence.test.ts',
      'server/proof/green-gate.test.ts',
      'server/proof/red-proof.test.ts',
      'server/proof/other-runner.test.ts',
      'server/proof/go-report.test.ts',
      'server/proof/go-check.test.ts',
      'server/proof/cargo-report.test.ts',
      'server/proof/cargo-check.test.ts',
      'server/proof/ava-report.test.ts',
      'server/proof/tap-report.test.ts',
      'server/env/uvu-runner.test.ts',
      'server/proof/junit-report.test.ts',
      'shared/test-cases.test.ts',
      'server/env/workspace.test.ts',
      'server/env/detect.test.ts',
      'shared/workspace-rule.test.ts',
      'server/proc/sandbox.test.ts',
      'server/store/session-store.test.ts',
      'server/proof/checks.test.ts',
      'server/proof/checks-report.test.ts',
    ],
  },
});
