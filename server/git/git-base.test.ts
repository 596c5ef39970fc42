import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/test-app.ts';
import { readBlobs } from './git-base.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const run = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

function commit(d: string, files: Record<string, string | Buffer>): string {
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(d, name)), { recursive: true });
    fs.writeFileSync(path.join(d, name), content);
  }
  run(d, 'add', '-A');
  run(d, '-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'c');
  return run(d, 'rev-parse', 'HEAD');
}

describe('readBlobs', () => {
  it('answers each name in the order asked, byte for byte, and null for what is no file at that revision', async () => {
    const d = tempDir('tilth-git-');
    dirs.push(d);
    run(d, 'init', '-q', '-b', 'main');
    const binary = Buffer.from([0, 10, 255, 10, 13, 10]);
    const first = commit(d, { 'a.txt': 'one\ntwo\n', 'src/ü é.txt': 'héllo\n', 'bin.dat': binary, 'empty.txt': '' });
    const second = commit(d, { 'a.txt': 'changed\n' });

    const names = [
      `${second}:a.txt`,
      `${first}:a.txt`,
      `${first}:src/ü é.txt`,
      `${first}:bin.dat`,
      `${first}:empty.txt`,
      `${first}:missing.txt`,
      `${first}:src`,
      `${'0'.repeat(40)}:a.txt`,
      `${first}:a\ntxt`,
      `${second}:a.txt`,
    ];
    const blobs = await readBlobs(d, names);
    expect(blobs.map((b) => b?.toString('utf8') ?? null)).toEqual([
      'changed\n',
      'one\ntwo\n',
      'héllo\n',
      binary.toString('utf8'),
      '',
      null,
      null,
      null,
      null,
      'changed\n',
    ]);
    expect(blobs[3]).toEqual(binary);
    expect(await readBlobs(d, [])).toEqual([]);
  });
});
