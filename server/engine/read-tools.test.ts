import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-dir.ts';
import { ConfinedRoot, globTool, grepTool, readFile, ToolError } from './read-tools.ts';

let base: string;
let repo: string;
let root: ConfinedRoot;
beforeEach(() => {
  base = tempDir('tilth-tools-');
  repo = path.join(base, 'repo');
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
  fs.mkdirSync(path.join(repo, '.git'));
  fs.writeFileSync(path.join(repo, 'src', 'todo.js'), 'export function add() {}\n// secret-word inside\n');
  fs.writeFileSync(path.join(repo, 'README.md'), '# todo\n');
  fs.writeFileSync(path.join(repo, '.git', 'config'), 'secret-word in git\n');
  fs.writeFileSync(path.join(base, 'outside.txt'), 'secret-word outside\n');
  fs.mkdirSync(path.join(base, 'outside-dir'));
  fs.writeFileSync(path.join(base, 'outside-dir', 'leak.js'), 'secret-word leaked\n');
  fs.symlinkSync(path.join(base, 'outside.txt'), path.join(repo, 'link-out.txt'));
  fs.symlinkSync(path.join(base, 'outside-dir'), path.join(repo, 'dir-out'));
  fs.symlinkSync(path.join(repo, 'README.md'), path.join(repo, 'link-in.md'));
  // A sibling whose name starts with the root's: `${repo}2` is not inside `${repo}`.
  fs.mkdirSync(path.join(base, 'repo2'));
  fs.writeFileSync(path.join(base, 'repo2', 'secret.txt'), 'secret-word next door\n');
  fs.symlinkSync(path.join(base, 'repo2'), path.join(repo, 'next-door'));
  root = new ConfinedRoot(repo);
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

describe('read tools confined to a root', () => {
  it('reads files inside, including through a symlink that stays inside', () => {
    expect(readFile(root, 'src/todo.js')).toContain('export function add');
    expect(readFile(root, 'link-in.md')).toBe('# todo\n');
  });

  it.each([
    ['../outside.txt', /outside the repository/],
    ['src/../../outside.txt', /outside the repository/],
    ['../repo2/secret.txt', /outside the repository/],
    ['next-door/secret.txt', /through a symlink/],
    [`${'/'}etc/passwd`, /not absolute/],
    ['link-out.txt', /through a symlink/],
    ['dir-out/leak.js', /through a symlink/],
    ['.git/config', /\.git folder/],
    ['missing.txt', /no such file/],
  ])('refuses %s', (rel, message) => {
    expect(() => readFile(root, rel)).toThrow(ToolError);
    expect(() => readFile(root, rel)).toThrow(message);
  });

  it.each([
    ['', 'path must be a non-empty string relative to the repository root'],
    [42 as unknown as string, 'path must be a non-empty string relative to the repository root'],
    ['  ', 'path must be a non-empty string relative to the repository root'],
    ['src/\0todo.js', 'path must not contain NUL bytes'],
    ['.', '. is a folder; use glob to list it'],
    ['src/..', 'src/.. is a folder; use glob to list it'],
  ])('answers %j with the reason', (rel, message) => {
    expect(() => readFile(root, rel)).toThrow(message);
  });

  it('lists dotfiles, and refuses a blank pattern', async () => {
    fs.writeFileSync(path.join(repo, '.eslintrc'), '{}');
    expect((await globTool(root, '**/*')).split('\n')).toEqual(['.eslintrc', 'README.md', 'src/todo.js']);
    await expect(globTool(root, '  ')).rejects.toThrow('pattern must be a non-empty glob such as "src/**/*.ts"');
  });

  it('globs real files inside only: no links, never .git', async () => {
    const all = (await globTool(root, '**/*')).split('\n');
    expect(all).toEqual(['README.md', 'src/todo.js']);
    await expect(globTool(root, '../*')).rejects.toThrow(/may not climb out/);
    await expect(globTool(root, `${path.sep}tmp/*`)).rejects.toThrow(/may not climb out/);
    expect(await globTool(root, '*.py')).toBe('(no files match *.py)');
  });

  it('greps inside only, with file and line, and never follows links out', async () => {
    expect(await grepTool(root, 'secret-word')).toBe('src/todo.js:2: // secret-word inside');
    expect(await grepTool(root, 'todo', '*.md')).toBe('README.md:1: # todo');
    await expect(grepTool(root, '(')).rejects.toThrow(/not a valid regular expression/);
    await expect(grepTool(root, 'x', '../**')).rejects.toThrow(/may not climb out/);
  });
});
