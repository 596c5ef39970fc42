import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/test-app.ts';
import { commitsIn, diffBetween } from './diff.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const run = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

function repo(): string {
  const d = tempDir('tilth-diff-');
  dirs.push(d);
  run(d, 'init', '-q', '-b', 'main');
  run(d, 'config', 'user.email', 't@example.com');
  run(d, 'config', 'user.name', 'T');
  fs.writeFileSync(path.join(d, 'old-name.txt'), 'one\ntwo\nthree\n');
  fs.writeFileSync(path.join(d, 'gone.txt'), 'bye\n');
  fs.writeFileSync(path.join(d, 'edit.js'), 'export const a = 1;\n');
  run(d, 'add', '-A');
  run(d, 'commit', '-q', '-m', 'base');
  return d;
}

describe('diffBetween', () => {
  it('lists every file with its status and counts, and names binary files without dumping them', async () => {
    const d = repo();
    run(d, 'mv', 'old-name.txt', 'new-name.txt');
    fs.rmSync(path.join(d, 'gone.txt'));
    fs.writeFileSync(path.join(d, 'edit.js'), 'export const a = 2;\nexport const b = 3;\n');
    fs.writeFileSync(path.join(d, 'logo.bin'), Buffer.from([0, 1, 2, 3, 0, 255]));
    run(d, 'add', '-A');
    run(d, 'commit', '-q', '-m', 'change');

    const diff = await diffBetween(d, 'HEAD^', 'HEAD');
    const byPath = Object.fromEntries(diff.files.map((f) => [f.path, f]));
    expect(byPath['new-name.txt']).toMatchObject({ status: 'renamed', old_path: 'old-name.txt', binary: false });
    expect(byPath['gone.txt']).toMatchObject({ status: 'deleted', deletions: 1, additions: 0 });
    expect(byPath['edit.js']).toMatchObject({ status: 'modified', additions: 2, deletions: 1 });
    expect(byPath['logo.bin']).toMatchObject({ status: 'added', binary: true, additions: 0 });
    expect(diff.text).toContain('Binary files /dev/null and b/logo.bin differ');
    expect(diff.truncated).toBe(false);
  });

  it('keeps non-ASCII paths readable in the diff text, so the web can match them to the file list', async () => {
    const d = repo();
    fs.writeFileSync(path.join(d, 'café.txt'), 'crème\n');
    run(d, 'add', '-A');
    run(d, 'commit', '-q', '-m', 'unicode');

    const diff = await diffBetween(d, 'HEAD^', 'HEAD');
    expect(diff.files.map((f) => f.path)).toEqual(['café.txt']);
    expect(diff.text).toContain('diff --git a/café.txt b/café.txt');
    expect(diff.text).toContain('+++ b/café.txt');
    expect(diff.text).not.toContain('\\303');
  });
});

describe('commitsIn', () => {
  it('lists the commits of a range oldest first', async () => {
    const d = repo();
    const base = run(d, 'rev-parse', 'HEAD');
    for (const n of [1, 2]) {
      fs.writeFileSync(path.join(d, `f${n}.txt`), `${n}\n`);
      run(d, 'add', '-A');
      run(d, 'commit', '-q', '-m', `T-00${n}: step ${n}`);
    }
    const commits = await commitsIn(d, `${base}..HEAD`);
    expect(commits.map((c) => c.subject)).toEqual(['T-001: step 1', 'T-002: step 2']);
    expect(commits[0]?.sha).toMatch(/^[0-9a-f]{40}$/);
  });
});
