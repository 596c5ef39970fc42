/** `npm run bench`: every benchmark in turn. Figures only; nothing here passes or fails. */
import { execFileSync } from 'node:child_process';

for (const bench of [
  'bench/startup.ts',
  'bench/stream.ts',
  'bench/open-session.ts',
  'bench/stream-dashboard.ts',
  'bench/iteration.ts',
  'bench/demo-run.ts',
  'bench/grep.ts',
  'bench/provision.ts',
  'bench/proof.ts',
  'bench/probe-coverage.ts',
  'bench/detect-monorepo.ts',
  'bench/send-back.ts',
  'bench/endless-provider.ts',
  'bench/no-follow.ts',
]) {
  execFileSync(process.execPath, ['--import', 'tsx', bench], { stdio: 'inherit' });
  console.log('');
}
