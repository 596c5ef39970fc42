import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-dir.ts';
import { LinkRefusedError, Tree } from './tree.ts';

let base: string;
/** The tree under test. */
let root: string;
/** A file and a folder outside it, as a worker would aim a link at. */
let victim: string;
let outsideDir: string;
let tree: Tree;

beforeEach(() => {
  base = fs.realpathSync(tempDir('tilth-tree-'));
  root = path.join(base, 'tree');
  outsideDir = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outsideDir);
  victim = path.join(outsideDir, 'victim.txt');
  fs.writeFileSync(victim, 'precious\n');
  tree = Tree.at(root);
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

const read = (p: string) => fs.readFileSync(p, 'utf8');
const intact = () => {
  expect(read(victim)).toBe('precious\n');
  expect(fs.readdirSync(outsideDir)).toEqual(['victim.txt']);
};

describe('a tree writes files', () => {
  it('creates and overwrites a file in place, by relative or absolute path', () => {
    tree.writeFile('a.txt', 'one, two, three');
    tree.writeFile(path.join(root, 'a.txt'), 'four');
    expect(read(path.join(root, 'a.txt'))).toBe('four');
  });

  it('sets the mode asked for exactly, whatever the umask', () => {
    tree.writeFile('secret', 'x', { mode: 0o600 });
    expect(fs.statSync(path.join(root, 'secret')).mode & 0o777).toBe(0o600);
    tree.writeFileAtomic('secret2', 'x', { mode: 0o600 });
    expect(fs.statSync(path.join(root, 'secret2')).mode & 0o777).toBe(0o600);
  });

  it('replaces a file atomically and leaves no temp file behind', () => {
    tree.writeJsonAtomic('c.json', { a: 1 });
    tree.writeJsonAtomic('c.json', { a: 2 });
    expect(JSON.parse(read(path.join(root, 'c.json')))).toEqual({ a: 2 });
    expect(fs.readdirSync(root)).toEqual(['c.json']);
  });

  it('appends, and hands out an append descriptor', () => {
    tree.appendFile('log', 'a\n');
    tree.appendFile('log', 'b\n');
    const fd = tree.openAppend('log');
    fs.writeSync(fd, 'c\n');
    fs.closeSync(fd);
    expect(read(path.join(root, 'log'))).toBe('a\nb\nc\n');
  });

  it('truncates, renames, removes and makes folders inside the tree', () => {
    tree.mkdir('x/y/z', { recursive: true });
    tree.mkdir('x/y/z', { recursive: true }); // already there: fine
    expect(() => tree.mkdir('x/y/z')).toThrow(/EEXIST/);
    expect(() => tree.mkdir('p/q')).toThrow(/ENOENT/);
    tree.writeFile('x/y/z/f', '0123456789');
    tree.truncate('x/y/z/f', 4);
    expect(read(path.join(root, 'x/y/z/f'))).toBe('0123');
    tree.rename('x/y/z/f', 'g');
    expect(read(path.join(root, 'g'))).toBe('0123');
    tree.remove('x', { recursive: true });
    tree.remove('missing');
    expect(fs.readdirSync(root)).toEqual(['g']);
  });

  it('writes several files all or nothing', () => {
    tree.writeFile('keep', 'old');
    fs.mkdirSync(path.join(root, 'occupied'));
    expect(() =>
      Tree.writeFilesAtomic([
        { tree, target: 'keep', content: 'new' },
        { tree, target: 'occupied', content: 'x' },
      ]),
    ).toThrow(/nothing was written/);
    expect(read(path.join(root, 'keep'))).toBe('old');
    expect(fs.readdirSync(root).sort()).toEqual(['keep', 'occupied']);
    const other = Tree.at(outsideDir);
    Tree.writeFilesAtomic([
      { tree, target: 'keep', content: 'new' },
      { tree: other, target: 'other', content: 'y' },
    ]);
    expect(read(path.join(outsideDir, 'other'))).toBe('y');
    fs.rmSync(path.join(outsideDir, 'other'));
    expect(read(path.join(root, 'keep'))).toBe('new');
  });

  it('creates a file atomically only when nothing is there: the first one made stays, with its mode, and no temp file is left', () => {
    expect(tree.createFileAtomic('queue.key', 'first', { mode: 0o600 })).toBe(true);
    expect(tree.createFileAtomic('queue.key', 'second', { mode: 0o600 })).toBe(false);
    expect(read(path.join(root, 'queue.key'))).toBe('first');
    expect(fs.statSync(path.join(root, 'queue.key')).mode & 0o777).toBe(0o600);
    fs.symlinkSync(victim, path.join(root, 'linked.key'));
    fs.symlinkSync(path.join(outsideDir, 'dangling'), path.join(root, 'dangling.key'));
    expect(tree.createFileAtomic('linked.key', 'x')).toBe(false);
    expect(tree.createFileAtomic('dangling.key', 'x')).toBe(false);
    intact();
    expect(fs.readdirSync(root).sort()).toEqual(['dangling.key', 'linked.key', 'queue.key']);
  });

  it('gives a replaced file the requested mode, whatever the old one had', () => {
    fs.writeFileSync(path.join(root, 'config.json'), '{}');
    fs.chmodSync(path.join(root, 'config.json'), 0o666);
    tree.writeFileAtomic('config.json', '{}', { mode: 0o600 });
    expect(fs.statSync(path.join(root, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('leaves the target and no temp file behind when the rename fails', () => {
    fs.mkdirSync(path.join(root, 'occupied'));
    fs.writeFileSync(path.join(root, 'occupied', 'inside'), 'x');
    expect(() => tree.writeJsonAtomic('occupied', { a: 1 })).toThrow();
    expect(fs.readdirSync(root)).toEqual(['occupied']);
    expect(read(path.join(root, 'occupied', 'inside'))).toBe('x');
  });

  it('fails without creating anything when the folder is missing', () => {
    expect(() => tree.writeJsonAtomic('missing/x.json', {})).toThrow(/ENOENT/);
    expect(fs.readdirSync(root)).toEqual([]);
  });
});

describe('a tree follows no link', () => {
  it('refuses to write, append, truncate or chmod through a link at the file, and leaves its target alone', () => {
    fs.symlinkSync(victim, path.join(root, 'zz.js'));
    expect(() => tree.writeFile('zz.js', 'pwned')).toThrow(LinkRefusedError);
    expect(() => tree.appendFile('zz.js', 'pwned')).toThrow(/zz\.js .* is a symbolic link/);
    expect(() => tree.truncate('zz.js', 0)).toThrow(LinkRefusedError);
    expect(() => tree.chmod('zz.js', 0o777)).toThrow(LinkRefusedError);
    intact();
    expect(fs.statSync(victim).mode & 0o777).not.toBe(0o777);
  });

  it('refuses a dangling link too, creating nothing where it points', () => {
    const aim = path.join(outsideDir, 'new.txt');
    fs.symlinkSync(aim, path.join(root, 'dangling'));
    expect(() => tree.writeFile('dangling', 'x')).toThrow(LinkRefusedError);
    expect(fs.existsSync(aim)).toBe(false);
  });

  it('replaces a link with a real file on an atomic write, leaving its target alone', () => {
    fs.symlinkSync(victim, path.join(root, '.gitignore'));
    tree.writeFileAtomic('.gitignore', '*\n');
    expect(fs.lstatSync(path.join(root, '.gitignore')).isFile()).toBe(true);
    expect(read(path.join(root, '.gitignore'))).toBe('*\n');
    intact();
  });

  it('refuses a path whose parent is a link leading outside, naming the link', () => {
    fs.symlinkSync(outsideDir, path.join(root, 'node_modules'));
    const refusals = [
      () => tree.writeFile('node_modules/victim.txt', 'x'),
      () => tree.writeFileAtomic('node_modules/victim.txt', 'x'),
      () => tree.writeFileAtomic('node_modules/new.txt', 'x'),
      () => tree.appendFile('node_modules/victim.txt', 'x'),
      () => tree.mkdir('node_modules/sub', { recursive: true }),
      () => tree.remove('node_modules/victim.txt'),
      () => tree.rename('node_modules/victim.txt', 'stolen'),
      () => tree.symlink('/etc/passwd', 'node_modules/l'),
      () => tree.sub('node_modules'),
    ];
    for (const attempt of refusals) expect(attempt).toThrow(/node_modules in .* is a symbolic link/);
    intact();
  });

  it('refuses a link further up the path as well', () => {
    fs.mkdirSync(path.join(root, 'a'));
    fs.symlinkSync(outsideDir, path.join(root, 'a', 'b'));
    expect(() => tree.writeFile('a/b/victim.txt', 'x')).toThrow(/a\/b in .* is a symbolic link leading outside/);
    intact();
  });

  it('allows a parent that is a link staying inside the tree', () => {
    fs.mkdirSync(path.join(root, 'real'));
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'alias'));
    tree.writeFile('alias/f', 'ok');
    tree.mkdir('alias/deeper', { recursive: true });
    expect(read(path.join(root, 'real', 'f'))).toBe('ok');
    expect(fs.statSync(path.join(root, 'real', 'deeper')).isDirectory()).toBe(true);
  });

  it('refuses paths outside the tree and the tree itself', () => {
    expect(() => tree.writeFile('../outside/victim.txt', 'x')).toThrow(/not inside/);
    expect(() => tree.writeFile(victim, 'x')).toThrow(/not inside/);
    expect(() => tree.remove('.', { recursive: true })).toThrow(/not inside/);
    intact();
  });

  it('refuses a FIFO at the target rather than blocking on it', () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    expect(() => tree.writeFile('pipe', 'x')).toThrow(/not a regular file/);
  });

  it('removes a link itself, and nothing a link inside a removed folder points at', () => {
    fs.mkdirSync(path.join(root, 'scratch'));
    fs.symlinkSync(outsideDir, path.join(root, 'scratch', 'dir-link'));
    fs.symlinkSync(victim, path.join(root, 'file-link'));
    tree.remove('file-link');
    tree.remove('scratch', { recursive: true });
    expect(fs.readdirSync(root)).toEqual([]);
    intact();
  });

  it('reads a file without following a link, and tells a real folder from a link', () => {
    fs.symlinkSync(victim, path.join(root, 'l'));
    fs.symlinkSync(outsideDir, path.join(root, 'dl'));
    tree.writeFile('f', 'mine');
    tree.mkdir('d');
    expect(tree.readFileNoFollow('l')).toBeNull();
    expect(tree.readFileNoFollow('missing')).toBeNull();
    expect(tree.readFileNoFollow('f')?.toString()).toBe('mine');
    expect(tree.isRealDirectory('d')).toBe(true);
    expect(tree.isRealDirectory('dl')).toBe(false);
    expect(tree.isRealDirectory('f')).toBe(false);
  });

  it('works in a tree reached through a link of its own (the tree is the folder it names)', () => {
    const alias = path.join(base, 'alias');
    fs.symlinkSync(root, alias);
    const aliased = Tree.at(alias);
    aliased.writeFile('x', 'y');
    expect(read(path.join(root, 'x'))).toBe('y');
    expect(aliased.contains(path.join(alias, 'x'))).toBe(true);
    expect(aliased.contains(alias)).toBe(false);
  });
});

describe('stale temp files', () => {
  it('removes the temp files of atomic writes older than asked, and nothing else', () => {
    const old = path.join(root, '.checkpoint.json.0123456789ab.tmp');
    const young = path.join(root, '.prd.json.ba9876543210.tmp');
    const other = path.join(root, 'notes.tmp');
    for (const f of [old, young, other]) fs.writeFileSync(f, 'x');
    const past = new Date(Date.now() - 3_600_000);
    fs.utimesSync(old, past, past);
    fs.utimesSync(other, past, past);
    expect(tree.removeStaleTemps('.', 60_000)).toEqual(['.checkpoint.json.0123456789ab.tmp']);
    expect(fs.readdirSync(root).sort()).toEqual(['.prd.json.ba9876543210.tmp', 'notes.tmp']);
  });

  it('does not look inside a folder that is a link leading outside', () => {
    const planted = path.join(outsideDir, '.victim.txt.0123456789ab.tmp');
    fs.writeFileSync(planted, 'x');
    const past = new Date(Date.now() - 3_600_000);
    fs.utimesSync(planted, past, past);
    fs.symlinkSync(outsideDir, path.join(root, 'ledger'));
    expect(tree.removeStaleTemps('ledger', 60_000)).toEqual([]);
    expect(fs.existsSync(planted)).toBe(true);
  });
});
