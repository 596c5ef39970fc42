import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { auth, makeTestApp, tempDir, type TestApp } from '../testing/test-app.ts';
import { runWorkerTool } from '../tools/worker-tools.ts';
import { TEST_SANDBOX } from '../testing/sandbox.ts';

let t: TestApp;
let port: number;
let worktree: string;
beforeEach(async () => {
  t = await makeTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
  t.setPort(port);
  worktree = tempDir('tilth-grep-live-');
  // /(a+)+$/ backtracks ~2^30 times on this line: minutes of regex work if it ran to the end.
  fs.writeFileSync(path.join(worktree, 'trap.txt'), `${'a'.repeat(30)}!\n`);
});
afterEach(async () => {
  await t.close();
  fs.rmSync(worktree, { recursive: true, force: true });
});

it('keeps answering /api/health over HTTP while a worker grep runs a catastrophic pattern in the same process', async () => {
  let settled = false;
  const begun = performance.now();
  const grep = runWorkerTool(
    'grep',
    { pattern: '(a+)+$' },
    { scope: { sandbox: TEST_SANDBOX, worktree, git: null, network: false }, grepTimeoutMs: 2500 },
  ).finally(() => {
    settled = true;
  });
  // Six probes on a fixed schedule while the grep runs. Latency counts from when each probe was
  // due, not from when its timer got to run: a blocked event loop delays the timer too, and that
  // delay is exactly the stall a browser's request would suffer.
  for (let i = 0; i < 6; i++) {
    const due = begun + 200 + i * 300;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    const res = await fetch(`http://127.0.0.1:${port}/api/health`, { headers: auth });
    expect(res.status).toBe(200);
    expect(performance.now() - due).toBeLessThan(1000);
    expect(settled).toBe(false); // the grep was still searching when the server answered
  }
  const { output } = await grep;
  expect(output).toBe(
    'ERROR: the pattern took longer than 2.5 s over 1 files and was stopped; simplify it (avoid nested quantifiers like (a+)+) or narrow path_glob',
  );
});
