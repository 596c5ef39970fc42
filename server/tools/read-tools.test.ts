import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-dir.ts';
import { ConfinedRoot, globTool, grepTool, MAX_READ_CHARS, readFile } from './read-tools.ts';
import { ToolError } from '../agent/tools.ts';

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

describe('grep off the event loop', () => {
  const catastrophic = `${'a'.repeat(30)}!`; // /(a+)+$/ backtracks ~2^30 times on this line

  it('stops a catastrophic pattern at its deadline with a message, and the next grep still works', async () => {
    fs.writeFileSync(path.join(repo, 'src', 'slow.txt'), `${catastrophic}\nfine\n`);
    const started = performance.now();
    const slow = grepTool(root, '(a+)+$', '**/*', { timeoutMs: 1000 });
    const meanwhile = await grepTool(root, 'secret-word'); // a concurrent grep is not held up
    expect(meanwhile).toBe('src/todo.js:2: // secret-word inside');
    expect(performance.now() - started).toBeLessThan(1000);
    await expect(slow).rejects.toThrow(ToolError);
    await expect(slow).rejects.toThrow(
      'the pattern took longer than 1 s over 3 files and was stopped; simplify it (avoid nested quantifiers like (a+)+) or narrow path_glob',
    );
    expect(await grepTool(root, 'fine')).toBe('src/slow.txt:2: fine');
    expect(await grepTool(root, 'secret-word')).toBe('src/todo.js:2: // secret-word inside');
  });

  it('keeps the output format: long lines cut with a mark, results capped with a count', async () => {
    fs.writeFileSync(path.join(repo, 'many.txt'), Array.from({ length: 205 }, (_, i) => `hit ${i}`).join('\n'));
    fs.writeFileSync(path.join(repo, 'long.txt'), `${'y'.repeat(400)}hit\n`);
    const out = (await grepTool(root, 'hit')).split('\n');
    expect(out[0]).toBe(`long.txt:1: ${'y'.repeat(300)}…`);
    expect(out[1]).toBe('many.txt:1: hit 0');
    expect(out).toHaveLength(201);
    expect(out[200]).toBe('... [6 more matches not shown]');
  });

  it('skips binary files and files over 1 MB, however large, without reading them', async () => {
    fs.writeFileSync(path.join(repo, 'bin.dat'), Buffer.from('needle\0needle'));
    fs.writeFileSync(path.join(repo, 'edge.txt'), `needle\n${'z'.repeat(1_000_000 - 7)}`); // exactly 1 MB: searched
    fs.writeFileSync(path.join(repo, 'over.txt'), `needle\n${'z'.repeat(1_000_000 - 6)}`);
    fs.writeFileSync(path.join(repo, 'huge.txt'), 'needle\n');
    fs.truncateSync(path.join(repo, 'huge.txt'), 1.5 * 1024 ** 3);
    expect(await grepTool(root, 'needle')).toBe('edge.txt:1: needle');
  });
});

describe('read_file on large files', () => {
  const GB = 1024 ** 3;

  it('reads only the head of a 1.5 GB file: the truncated text and the size, without the file in memory', () => {
    const big = path.join(repo, 'big.log');
    fs.writeFileSync(big, 'line of text\n'.repeat(10_000));
    fs.truncateSync(big, 1.5 * GB); // sparse: no real bytes on disk past the head
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const out = readFile(root, 'big.log');
    const elapsed = performance.now() - started;
    const grown = process.memoryUsage().rss - rssBefore;
    expect(out.startsWith('line of text\nline of text\n')).toBe(true);
    expect(out).toContain(`\n... [truncated: ${1.5 * GB} bytes in all]`);
    expect(out.length).toBeLessThan(MAX_READ_CHARS + 100);
    expect(grown).toBeLessThan(50 * 1024 * 1024);
    expect(elapsed).toBeLessThan(2000);
  });

  it('tells a huge binary file by its first bytes and says its size', () => {
    const big = path.join(repo, 'disk.img');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 1.5 * GB);
    expect(readFile(root, 'disk.img')).toBe(`(disk.img is a binary file of ${1.5 * GB} bytes)`);
  });

  it('cuts multi-byte text on a character boundary and keeps the chars count when it read the whole file', () => {
    fs.writeFileSync(path.join(repo, 'emoji.txt'), '😀'.repeat(MAX_READ_CHARS)); // 2 UTF-16 units, 4 bytes each
    const emoji = readFile(root, 'emoji.txt');
    expect(emoji).toBe(`${'😀'.repeat(MAX_READ_CHARS / 2)}\n... [truncated: ${4 * MAX_READ_CHARS} bytes in all]`);
    fs.writeFileSync(path.join(repo, 'odd.txt'), `x${'😀'.repeat(MAX_READ_CHARS / 2)}`); // the pair at the cut is dropped whole
    expect(readFile(root, 'odd.txt')).toBe(`x${'😀'.repeat(MAX_READ_CHARS / 2 - 1)}\n... [truncated: ${MAX_READ_CHARS + 1} chars in all]`);
    fs.writeFileSync(path.join(repo, 'accents.txt'), 'é'.repeat(MAX_READ_CHARS)); // exactly the limit: not truncated
    expect(readFile(root, 'accents.txt')).toBe('é'.repeat(MAX_READ_CHARS));
  });
});
