/**
 * bench/send-back: sending a done task back with many comments, each quoted to the worker with
 * the lines it was written on. A real session on the JavaScript example: the task's commit adds
 * a 400-line file; the comments sit on its lines (the task's diff, new side) and on the base's
 * lines of an existing file (the session diff, old side). Times `sendBack` alone (median of the
 * runs, a fresh session each) and counts the git processes it starts, through a `git` first on
 * the PATH that writes each call down before it runs the real one.
 * Run it on two builds in one sitting to compare them. Figures only; nothing here passes or fails.
 * Run: npx tsx bench/send-back.ts [--comments 200] [--runs 3]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { makeExampleRepo } from '../server/demo/example-repo.ts';
import { sendBack } from '../server/review/send-back.ts';
import { SessionStore } from '../server/store/session-store.ts';
import { makePreparedSession, nodeTest } from '../server/testing/run-fixtures.ts';

const { values } = parseArgs({ options: { comments: { type: 'string', default: '200' }, runs: { type: 'string', default: '3' } } });
const COMMENTS = Number(values.comments);
const RUNS = Number(values.runs);

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-bench-send-back-'));
const shim = path.join(home, 'shim');
const log = path.join(shim, 'calls.log');
fs.mkdirSync(shim);
const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
fs.writeFileSync(path.join(shim, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });

const repo = await makeExampleRepo('js-todo', home);
const store = new SessionStore(path.join(home, 'sessions'));
const times: number[] = [];
const processes: number[] = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const id = await makePreparedSession(store, repo.dir, 'node', [
      { id: 'T-001', title: 'Double', tests: { 'tests/t001_double.test.js': nodeTest('double', 'double', '2', '4') } },
    ]);
    const session = store.session(id);
    const { worktree } = store.session(id).checkpoint.read();
    fs.writeFileSync(path.join(worktree, 'src', 'big.js'), Array.from({ length: 400 }, (_, i) => `// line ${i + 1}\n`).join(''));
    git(worktree, 'add', 'src/big.js');
    git(worktree, '-c', 'user.name=b', '-c', 'user.email=b@example.com', 'commit', '-q', '-m', 'T-001: Double');
    session.prd.write(session.prd.tasks().map((t) => ({ ...t, status: 'done' as const })));
    store.session(id).checkpoint.setStatus('all_done');
    const ids = Array.from({ length: COMMENTS }, (_, i) =>
      i % 4 === 3
        ? session.comments.add({ task_id: null, file: 'src/todo.js', line: (i % 30) + 1, side: 'old', text: `comment ${i}` }).id
        : session.comments.add({ task_id: 'T-001', file: 'src/big.js', line: (i % 400) + 1, side: 'new', text: `comment ${i}` }).id,
    );

    fs.rmSync(log, { force: true });
    const pathBefore = process.env.PATH;
    process.env.PATH = `${shim}${path.delimiter}${pathBefore}`;
    const started = performance.now();
    try {
      const { send_back } = await sendBack(session, 'T-001', { comment_ids: ids });
      if (send_back.comments.some((c) => c.excerpt === null)) throw new Error('a comment lost its lines');
    } finally {
      process.env.PATH = pathBefore;
    }
    times.push(performance.now() - started);
    processes.push(fs.readFileSync(log, 'utf8').trim().split('\n').length);
    console.log(`run ${run + 1}: ${times.at(-1)!.toFixed(0)} ms, ${processes.at(-1)} git processes`);
  }
  console.log(`send-back of ${COMMENTS} comments: median ${median(times).toFixed(0)} ms, ${median(processes)} git processes`);
  console.log(JSON.stringify({ comments: COMMENTS, runs: RUNS, median_ms: Math.round(median(times)), git_processes: median(processes) }));
} finally {
  store.close();
  fs.rmSync(home, { recursive: true, force: true });
}
