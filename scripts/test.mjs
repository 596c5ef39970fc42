#!/usr/bin/env node
// `npm test`: type check, import rules, lint, vitest, build the SPA, Playwright in the system
// Chromium — then one closing line `N passed, N failed` that counts every test that ran (CI reads it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const reports = path.join(root, '.reports');
fs.rmSync(reports, { recursive: true, force: true });
fs.mkdirSync(reports, { recursive: true });
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/** Every exit ends with the counting line CI reads, even when nothing could run. */
function stopBeforeTests(message) {
  console.error(message);
  console.log('\n0 passed, 1 failed');
  process.exit(1);
}

if (!fs.existsSync(bin('vitest'))) stopBeforeTests('Dependencies are missing. Run `npm ci` first.');

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!fs.existsSync(CHROMIUM)) {
  stopBeforeTests(
    `Chromium is missing (looked for ${CHROMIUM}); the browser tests need it.\n` +
      "Install Debian's build:  apt-get update && apt-get install -y chromium\n" +
      "(or point CHROMIUM_PATH at another Chromium binary). Playwright's own browser download does not work here.",
  );
}

/** Whether a command is on the PATH. */
const onPath = (command) => spawnSync('sh', ['-c', `command -v "${command}"`], { stdio: 'ignore' }).status === 0;

// The queue dispatcher's tests run against a real Redis (issue 18).
const REDIS = process.env.REDIS_SERVER_PATH ?? 'redis-server';
if (!onPath(REDIS)) {
  stopBeforeTests(
    `redis-server is missing (looked for ${REDIS}); the run-queue tests start a real one.\n` +
      "Install Debian's build:  apt-get update && apt-get install -y redis-server\n" +
      '(or point REDIS_SERVER_PATH at another redis-server binary). The tests start their own on a free port; nothing needs to be running.',
  );
}

// Go projects' tests run with the real toolchain (issue 29).
if (!onPath('go')) {
  stopBeforeTests("go is missing; the Go runner's tests run the real `go test`.\nInstall Debian's build:  apt-get update && apt-get install -y golang-go");
}

// Rust crates' tests run with the real cargo (issue 29).
if (!onPath('cargo')) {
  stopBeforeTests(
    "cargo is missing; the Rust runner's tests run the real `cargo test`.\nInstall Debian's build:  apt-get update && apt-get install -y cargo\n(or Rust from https://rustup.rs, with ~/.cargo/bin on the PATH).",
  );
}

// Python projects managed with Poetry, Pipenv or tox run in the environment the tool made (issue 29).
for (const [tool, pkg] of [
  ['poetry', 'python3-poetry'],
  ['tox', 'tox'],
  ['pipenv', 'pipenv'],
]) {
  if (!onPath(tool)) {
    stopBeforeTests(
      `${tool} is missing; the Python environment tests make a real ${tool} environment.\nInstall Debian's build:  apt-get update && apt-get install -y ${pkg}`,
    );
  }
}

// Not required: without bubblewrap the sandbox tests are skipped, and the run tests exercise the
// unsandboxed shell. Say so, so nobody mistakes that for coverage.
if (!onPath('bwrap')) {
  console.warn('Note: bubblewrap (bwrap) is not installed, so the shell-sandbox tests are skipped. Install it with: apt-get install -y bubblewrap');
}

function run(label, cmd, args, env = {}) {
  console.log(`\n── ${label} ──`);
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

let passed = 0;
let failed = 0;
let broken = false;

// The whole tree, then each side with only its own globals (shared: neither DOM nor Node; web: no
// Node; server: no DOM), so an import from the wrong side fails.
for (const config of ['tsconfig.json', 'shared/tsconfig.json', 'web/tsconfig.json', 'server/tsconfig.json']) {
  if (run(`typecheck ${config}`, bin('tsc'), ['--noEmit', '-p', config]) !== 0) {
    broken = true;
    failed += 1; // a type error is a failed check even though no test counted it
  }
}

// The import graph keeps one direction (scripts/check-imports.mjs says the rules).
if (run('imports', process.execPath, [path.join(root, 'scripts', 'check-imports.mjs')]) !== 0) {
  broken = true;
  failed += 1;
}

// The size budget: files over 400 lines and functions over 120 are listed with a reason (scripts/check-size.mjs).
if (run('size budget', process.execPath, [path.join(root, 'scripts', 'check-size.mjs')]) !== 0) {
  broken = true;
  failed += 1;
}

// Formatting and lint (biome.jsonc): `npm run format` fixes the formatting.
if (run('format and lint', bin('biome'), ['ci', '--colors=off', '.']) !== 0) {
  broken = true;
  failed += 1;
}

// The checkout's server bundle (bin/tilth.js runs it), made once here rather than by the first
// of the test servers started at once.
if (run('bundle the server', process.execPath, ['-e', "import('./scripts/server-bundle.mjs').then((m) => m.freshBundle(process.cwd()))"]) !== 0) {
  broken = true;
  failed += 1;
}

const vitestJson = path.join(reports, 'vitest.json');
const vitestStatus = run('vitest', bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`]);
const vitest = readJson(vitestJson);
if (vitest) {
  passed += vitest.numPassedTests;
  failed += vitest.numFailedTests;
}
if (vitestStatus !== 0 && (!vitest || vitest.numFailedTests === 0)) broken = true;

if (run('build web', bin('vite'), ['build', '--config', 'web/vite.config.ts', '--logLevel', 'warn']) !== 0) {
  broken = true;
  failed += 1;
} else {
  const pwJson = path.join(reports, 'playwright.json');
  const pwStatus = run('playwright', bin('playwright'), ['test', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson });
  const pw = readJson(pwJson);
  if (pw) {
    passed += pw.stats.expected + pw.stats.flaky;
    failed += pw.stats.unexpected;
  }
  if (pwStatus !== 0 && (!pw || pw.stats.unexpected === 0)) broken = true;
}

if (broken && failed === 0) failed = 1;
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
