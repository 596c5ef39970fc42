import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/test-app.ts';
import { addWorktree, expandHome, inspectWorkspace, localBranches, removeStaleSessionLocks, removeWorktree, statusPorcelain, workTreeRoot } from './repo.ts';
import { changedFiles, commitAll, workingDiff, type WorktreeRef } from './worktree-git.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = tempDir('tilth-git-');
  dirs.push(d);
  return d;
}
const run = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

function repo(withCommit = true): string {
  const d = dir();
  run(d, 'init', '-q', '-b', 'main');
  run(d, 'config', 'user.email', 't@example.com');
  run(d, 'config', 'user.name', 'T');
  if (withCommit) {
    fs.writeFileSync(path.join(d, 'a.txt'), 'a\n');
    fs.mkdirSync(path.join(d, 'src'));
    fs.writeFileSync(path.join(d, 'src', 'b.txt'), 'b\n');
    run(d, 'add', '-A');
    run(d, 'commit', '-q', '-m', 'init');
  }
  return d;
}

describe('expandHome', () => {
  it('reads ~ and ~/ as the home folder, as a shell would, and leaves every other path as typed', () => {
    expect(expandHome('~', '/home/ann')).toBe('/home/ann');
    expect(expandHome('~/code/app', '/home/ann')).toBe('/home/ann/code/app');
    expect(expandHome('~bob/app', '/home/ann')).toBe('~bob/app');
    expect(expandHome('/srv/~/app', '/home/ann')).toBe('/srv/~/app');
    expect(expandHome('app/~', '/home/ann')).toBe('app/~');
  });
});

describe('inspectWorkspace', () => {
  it('reports a repo from its root or any folder inside, with branch, head and cleanliness', async () => {
    const r = repo();
    const fromRoot = await inspectWorkspace(r);
    expect(fromRoot).toMatchObject({ kind: 'repo', branch: 'main', clean: true, root: fs.realpathSync(r) });
    expect(fromRoot.head).toMatch(/^[0-9a-f]{40}$/);
    expect((await inspectWorkspace(path.join(r, 'src'))).root).toBe(fs.realpathSync(r));
    fs.writeFileSync(path.join(r, 'a.txt'), 'changed\n');
    const dirty = await inspectWorkspace(r);
    expect(dirty.clean).toBe(false);
    expect(dirty.message).toMatch(/uncommitted changes/);
  });

  it('explains a missing path, a file, a non-repo, a bare repo and a repo with no commits', async () => {
    const d = dir();
    expect((await inspectWorkspace(path.join(d, 'nope'))).kind).toBe('missing');
    fs.writeFileSync(path.join(d, 'f'), 'x');
    expect((await inspectWorkspace(path.join(d, 'f'))).kind).toBe('not_a_directory');
    const plain = dir();
    const notRepo = await inspectWorkspace(plain);
    expect(notRepo.kind).toBe('not_a_repo');
    expect(notRepo.message).toMatch(/git init/);
    const bare = dir();
    run(bare, 'init', '-q', '--bare');
    expect((await inspectWorkspace(bare)).kind).toBe('bare');
    const empty = await inspectWorkspace(repo(false));
    expect(empty.kind).toBe('no_commits');
    expect(empty.message).toMatch(/no commits/);
  });
});

describe('workTreeRoot', () => {
  it('is the root of the repository a folder is in, even before its first commit, and null outside one or in a bare one', async () => {
    const r = repo();
    expect(await workTreeRoot(path.join(r, 'src'))).toBe(fs.realpathSync(r));
    const empty = repo(false);
    expect(await workTreeRoot(empty)).toBe(fs.realpathSync(empty));
    expect(await workTreeRoot(dir())).toBeNull();
    const bare = dir();
    run(bare, 'init', '-q', '--bare');
    expect(await workTreeRoot(bare)).toBeNull();
    expect(await workTreeRoot(path.join(dir(), 'gone'))).toBeNull();
  });
});

describe('worktrees and commits', () => {
  it('adds a session branch in a worktree, commits there, and removes both without touching the source tree', async () => {
    const r = repo();
    const info = await inspectWorkspace(r);
    const wt = path.join(dir(), 'workspace');
    const dirs = await addWorktree(r, wt, 'session/x', info.head!);
    expect(dirs).toEqual({ git_dir: path.join(fs.realpathSync(r), '.git', 'worktrees', 'workspace'), git_common_dir: path.join(fs.realpathSync(r), '.git') });
    const ref: WorktreeRef = { worktree: wt, source: r, gitDir: dirs.git_dir, commonDir: dirs.git_common_dir };
    expect(fs.readFileSync(path.join(wt, 'a.txt'), 'utf8')).toBe('a\n');
    fs.mkdirSync(path.join(wt, 'tests'));
    fs.writeFileSync(path.join(wt, 'tests', 't.py'), 'assert True\n');
    const sha = await commitAll(ref, 'seed: 1 task(s) + 1 acceptance test(s)', 'body');
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await commitAll(ref, 'nothing')).toBeNull();
    expect(run(r, 'log', '-1', '--format=%s', 'session/x').trim()).toBe('seed: 1 task(s) + 1 acceptance test(s)');
    expect(await statusPorcelain(r)).toBe('');
    expect(await localBranches(r)).toEqual(['main', 'session/x']);
    await removeWorktree(r, wt, 'session/x');
    expect(fs.existsSync(wt)).toBe(false);
    expect(await localBranches(r)).toEqual(['main']);
    await removeWorktree(r, wt, 'session/x'); // idempotent
  });
});

describe('stale locks after a crash', () => {
  it("removes the locks a killed git left in the session's worktree and branch, and nothing of the rest of the repository", async () => {
    const r = repo();
    const other = dir();
    const wt = path.join(dir(), 'workspace');
    const wtOther = path.join(other, 'workspace');
    const dirs = await addWorktree(r, wt, 'session/one', run(r, 'rev-parse', 'HEAD').trim());
    await addWorktree(r, wtOther, 'session/two', run(r, 'rev-parse', 'HEAD').trim());
    const common = path.join(fs.realpathSync(r), '.git');
    const own = run(wt, 'rev-parse', '--path-format=absolute', '--git-dir').trim();
    const others = run(wtOther, 'rev-parse', '--path-format=absolute', '--git-dir').trim();
    const stale = [path.join(own, 'index.lock'), path.join(own, 'HEAD.lock'), path.join(common, 'refs', 'heads', 'session', 'one.lock')];
    const kept = [path.join(common, 'index.lock'), path.join(others, 'index.lock'), path.join(common, 'packed-refs.lock')];
    for (const f of [...stale, ...kept]) fs.writeFileSync(f, '');
    // A worker that points its worktree's .git file at another folder redirects nothing.
    fs.writeFileSync(path.join(wt, '.git'), `gitdir: ${others}\n`);

    expect((await removeStaleSessionLocks(r, wt, 'session/one')).sort()).toEqual([...stale].sort());
    for (const f of kept) expect(fs.existsSync(f), f).toBe(true);
    expect(await removeStaleSessionLocks(r, wt, 'session/one')).toEqual([]);
    fs.writeFileSync(path.join(wt, '.git'), `gitdir: ${own}\n`);
    fs.writeFileSync(path.join(wt, 'c.txt'), 'c\n');
    expect(await commitAll({ worktree: wt, source: r, gitDir: dirs.git_dir, commonDir: dirs.git_common_dir }, 'after the crash')).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe('the task diff', () => {
  it('shows changes and new files against the last commit, and lists the changed paths', async () => {
    const source = repo();
    const r = path.join(dir(), 'workspace');
    const dirs = await addWorktree(source, r, 'session/y', (await inspectWorkspace(source)).head!);
    const ref: WorktreeRef = { worktree: r, source, gitDir: dirs.git_dir, commonDir: dirs.git_common_dir };
    fs.writeFileSync(path.join(r, 'a.txt'), 'a changed\n');
    fs.writeFileSync(path.join(r, 'src', 'new.js'), 'export const x = 1;\n');
    fs.rmSync(path.join(r, 'src', 'b.txt'));
    const diff = await workingDiff(ref);
    expect(diff).toContain('+a changed');
    expect(diff).toContain('+export const x = 1;');
    expect(diff).toContain('deleted file mode');
    expect(await changedFiles(ref)).toEqual(['a.txt', 'src/b.txt', 'src/new.js']);
    expect(await commitAll(ref, 'task')).toMatch(/^[0-9a-f]{40}$/);
    expect(await workingDiff(ref)).toBe('');
    expect(await changedFiles(ref)).toEqual([]);
  });
});
