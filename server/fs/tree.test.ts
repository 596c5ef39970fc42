import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-dir.ts';
import { ATOMIC_TEMP, fsyncDir, LinkRefusedError, Tree, writeAll } from './tree.ts';

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
const modeOf = (p: string) => fs.statSync(p).mode & 0o777;
/** What `fn` throws, to compare its message and code exactly. */
const thrown = (fn: () => unknown): Error & { code?: string } => {
  try {
    fn();
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('it did not throw');
};
const thrownAsync = async (promise: Promise<unknown>): Promise<Error & { code?: string }> => {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('it did not throw');
};
/** Only the main thread may set the umask, and Stryker runs the tests in worker threads. */
const canSetUmask = isMainThread;
const openDescriptors = () => fs.readdirSync('/proc/self/fd').length;

/** strace can trace this process here; it is optional, and the tests that need it are skipped without it. */
const straceWorks = spawnSync('strace', ['-o', '/dev/null', 'true']).status === 0;

/**
 * Runs `fn` with strace attached to this very thread: the one way a test sees the fsyncs a write
 * makes, or stops a write right after one syscall to change the folder under it. `args` pick the
 * syscalls; when they inject a SIGSTOP, a shell runs `onStop` while this process is stopped, then
 * continues it (a deterministic "another process changed it just then"). Returns strace's lines.
 */
/**
 * Runs `fn` while every thread of libuv's pool is blocked reading an empty pipe, so an async file
 * operation `fn` starts waits until `fn` has returned: what `fn` changes after starting it happens
 * before it, not maybe in the middle of it.
 */
async function withThreadpoolHeld(fn: () => void): Promise<void> {
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const fifo = path.join(base, 'hold');
  execFileSync('mkfifo', [fifo]);
  // Read and write: opening does not block, and each read waits for a byte.
  const fd = fs.openSync(fifo, fs.constants.O_RDWR);
  const reads = Array.from(
    { length: threads },
    () => new Promise<void>((resolve, reject) => fs.read(fd, Buffer.alloc(1), 0, 1, null, (err) => (err ? reject(err) : resolve()))),
  );
  try {
    fn();
  } finally {
    fs.writeSync(fd, Buffer.alloc(threads));
    await Promise.all(reads);
    fs.closeSync(fd);
  }
}

let traces = 0;
async function underStrace(args: string[], fn: () => unknown, onStop = 'true'): Promise<string[]> {
  const traceFile = path.join(base, `strace-${++traces}.out`);
  const loop =
    '|while IFS= read -r line; do printf "%s\\n" "$line" >> "$TRACE_FILE"; case "$line" in *"stopped by SIGSTOP"*) sh -c "$ON_STOP"; kill -CONT "$TRACEE";; esac; done';
  // This thread, which makes the synchronous file calls: a test may run in a worker thread (Stryker's
  // runs do). With -f, every thread of the process, libuv's pool included.
  const tid = args.includes('-f') ? String(process.pid) : path.basename(fs.readlinkSync('/proc/thread-self'));
  const strace = spawn('strace', ['-y', ...args, '-o', loop, '-p', tid], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, TRACE_FILE: traceFile, ON_STOP: onStop, TRACEE: tid },
  });
  const closed = new Promise<void>((resolve) => strace.on('close', () => resolve()));
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    strace.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/attached/.test(stderr)) resolve();
    });
    strace.on('close', () => reject(new Error(`strace ended before attaching: ${stderr}`)));
  });
  try {
    await fn();
  } finally {
    strace.kill('SIGINT');
    await closed;
  }
  return fs.existsSync(traceFile) ? read(traceFile).split('\n') : [];
}
/** The paths `fn` fsyncs, in order, temp names shown as `<tmp>` after checking they have the form stale-temp cleanup removes. */
async function fsyncs(fn: () => void): Promise<string[]> {
  const lines = await underStrace(['-e', 'trace=fsync,fdatasync'], fn);
  return lines.flatMap((line) => {
    const m = /^f(?:data)?sync\(\d+<(.+)>\)\s+= 0$/.exec(line);
    if (m === null) return [];
    const name = path.basename(m[1]!);
    return [ATOMIC_TEMP.test(name) ? path.join(path.dirname(m[1]!), '<tmp>') : m[1]!];
  });
}
/** Stops this process right after the first of `syscalls` (on `onlyPath` when given) and runs `swap` in a shell then. */
const stopAfter = (syscalls: string, swap: string, fn: () => void, onlyPath?: string) =>
  underStrace([...(onlyPath === undefined ? [] : ['-P', onlyPath]), '-e', `trace=${syscalls}`, '-e', `inject=${syscalls}:signal=SIGSTOP:when=1`], fn, swap);

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

describe('what a tree refuses, exactly', () => {
  it('names the refusal link_refused, for the API to report', () => {
    fs.symlinkSync(victim, path.join(root, 'l'));
    expect(thrown(() => tree.writeFile('l', 'x'))).toMatchObject({ code: 'link_refused' });
  });

  it('says which file is a link, in which tree', () => {
    fs.symlinkSync(victim, path.join(root, 'zz.js'));
    const message = `zz.js in ${root} is a symbolic link; Tilth does not write through links.`;
    for (const attempt of [
      () => tree.writeFile('zz.js', 'x'),
      () => tree.appendFile('zz.js', 'x'),
      () => tree.openAppend('zz.js', { readable: true }),
      () => tree.truncate('zz.js', 0),
      () => tree.chmod('zz.js', 0o777),
    ]) {
      expect(thrown(attempt).message).toBe(message);
    }
    intact();
  });

  it('says which parent is a link leading outside', () => {
    fs.mkdirSync(path.join(root, 'a'));
    fs.symlinkSync(outsideDir, path.join(root, 'a', 'b'));
    expect(thrown(() => tree.writeFile('a/b/victim.txt', 'x')).message).toBe(
      `a/b/victim.txt: a/b in ${root} is a symbolic link leading outside it; Tilth does not write through it.`,
    );
    expect(thrown(() => tree.mkdir('a/b/c', { recursive: true })).message).toBe(
      `a/b in ${root} is a symbolic link leading outside it; Tilth does not write through it.`,
    );
    intact();
  });

  it('names the first link on the way, however deep the path goes past it', () => {
    const elsewhere = path.join(base, 'elsewhere');
    fs.mkdirSync(path.join(elsewhere, 'x', 'y'), { recursive: true });
    fs.mkdirSync(path.join(root, 'a'));
    fs.symlinkSync(elsewhere, path.join(root, 'a', 'l'));
    expect(thrown(() => tree.writeFile('a/l/x/y/f', 'x')).message).toBe(
      `a/l/x/y/f: a/l in ${root} is a symbolic link leading outside it; Tilth does not write through it.`,
    );
    expect(fs.readdirSync(path.join(elsewhere, 'x', 'y'))).toEqual([]);
  });

  it('names the parent itself when the tree folder was swapped for a link after the tree was made', () => {
    const elsewhere = path.join(base, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, 'victim.txt'), 'precious\n');
    fs.symlinkSync(victim, path.join(elsewhere, 'lnk'));
    fs.renameSync(root, `${root}-moved`);
    fs.symlinkSync(elsewhere, root);
    expect(thrown(() => tree.writeFile('victim.txt', 'x')).message).toBe(
      `victim.txt: . in ${root} is a symbolic link leading outside it; Tilth does not write through it.`,
    );
    // The file itself being a link makes no difference: the folder is the link to name.
    expect(thrown(() => tree.writeFile('lnk', 'x')).message).toBe(`lnk: . in ${root} is a symbolic link leading outside it; Tilth does not write through it.`);
    expect(read(path.join(elsewhere, 'victim.txt'))).toBe('precious\n');
    intact();
  });

  it('refuses a path outside the tree by name', () => {
    expect(thrown(() => tree.writeFile('../outside/victim.txt', 'x')).message).toBe(`../outside/victim.txt is not inside ${root}; Tilth writes there only.`);
    expect(thrown(() => tree.mkdir('../outside/d')).message).toBe(`../outside/d is not inside ${root}; Tilth writes there only.`);
    intact();
  });

  it('refuses a FIFO or a folder where a file is to be written, by name, and never blocks on the FIFO', () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    fs.mkdirSync(path.join(root, 'dir'));
    // Write-only, a FIFO with no reader cannot even be opened without blocking.
    expect(thrown(() => tree.writeFile('pipe', 'x')).message).toBe(`pipe in ${root} is not a regular file (a FIFO or socket); Tilth does not write to it.`);
    // Readable or read-only, it opens; what was opened is then refused.
    expect(thrown(() => tree.openAppend('pipe', { readable: true })).message).toBe(`pipe in ${root} is not a regular file; Tilth does not write to it.`);
    expect(thrown(() => tree.chmod('pipe', 0o600)).message).toBe(`pipe in ${root} is not a regular file; Tilth does not write to it.`);
    expect(thrown(() => tree.chmod('dir', 0o700)).message).toBe(`dir in ${root} is not a regular file; Tilth does not write to it.`);
    expect(modeOf(path.join(root, 'dir'))).toBe(0o755);
    expect(thrown(() => tree.writeFile('dir', 'x'))).toMatchObject({ code: 'EISDIR' });
    expect(tree.readFileNoFollow('pipe')).toBeNull();
    expect(tree.readFileNoFollow('dir')).toBeNull();
  });

  it('leaves no descriptor open, whether a write succeeds or is refused', () => {
    fs.symlinkSync(victim, path.join(root, 'l'));
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const before = openDescriptors();
    for (let i = 0; i < 3; i++) {
      tree.writeFile('f', 'x');
      tree.appendFile('f', 'y');
      tree.truncate('f', 1);
      tree.chmod('f', 0o600);
      tree.writeFileAtomic('a', 'x');
      tree.writeFileAtomic('b', 'x', { durable: false });
      tree.createFileAtomic(`c${i}`, 'x');
      tree.createExclusive(`e${i}`, 'x');
      Tree.writeFilesAtomic([{ tree, target: 'a', content: 'y' }]);
      tree.readFileNoFollow('f');
      expect(() => tree.writeFile('l', 'x')).toThrow(LinkRefusedError);
      expect(() => tree.chmod('pipe', 0o600)).toThrow(LinkRefusedError);
    }
    expect(openDescriptors()).toBe(before);
  });
});

describe('each way of writing', () => {
  it.skipIf(!canSetUmask)('makes a new file 0644 when no mode is asked, whatever the umask', async () => {
    const before = process.umask(0);
    try {
      tree.writeFile('w', 'x');
      tree.appendFile('a', 'x');
      tree.createExclusive('e', 'x');
      tree.writeFileAtomic('at', 'x');
      tree.createFileAtomic('c', 'x');
      await tree.writeFileAtomicAsync('as', Buffer.from('x'));
    } finally {
      process.umask(before);
    }
    for (const name of ['w', 'a', 'e', 'at', 'c', 'as']) expect(modeOf(path.join(root, name))).toBe(0o644);
  });

  it.skipIf(!straceWorks)('asks for 0644 when it makes a file with no mode asked, so a looser umask cannot widen it', async () => {
    const lines = await underStrace(['-e', 'trace=openat'], () => {
      tree.writeFile('w', 'x');
      tree.appendFile('a', 'x');
      tree.createExclusive('e', 'x');
      tree.writeFileAtomic('at', 'x');
      tree.createFileAtomic('c', 'x');
    });
    const creates = lines.filter((line) => line.includes('O_CREAT'));
    expect(creates).toHaveLength(5);
    for (const line of creates) expect(line).toMatch(/, 0644\) = \d+/);
  });

  it('gives a new file the mode asked for even where the umask would narrow it', () => {
    // Under the usual umask 022 (or any that takes a write bit), 0666 comes out 0666 only when set on purpose.
    tree.writeFile('w', 'x', { mode: 0o666 });
    tree.writeFileAtomic('at', 'x', { mode: 0o666 });
    tree.createFileAtomic('c', 'x', { mode: 0o666 });
    for (const name of ['w', 'at', 'c']) expect(modeOf(path.join(root, name))).toBe(0o666);
  });

  it('overwrites a longer file in place, keeping its mode unless one is asked', () => {
    fs.writeFileSync(path.join(root, 'f'), 'a long old content');
    fs.chmodSync(path.join(root, 'f'), 0o640);
    const ino = fs.statSync(path.join(root, 'f')).ino;
    tree.writeFile('f', 'short');
    expect(read(path.join(root, 'f'))).toBe('short');
    expect(modeOf(path.join(root, 'f'))).toBe(0o640);
    tree.writeFile('f', new Uint8Array([104, 105]), { mode: 0o600 });
    expect(read(path.join(root, 'f'))).toBe('hi');
    expect(modeOf(path.join(root, 'f'))).toBe(0o600);
    expect(fs.statSync(path.join(root, 'f')).ino).toBe(ino);
  });

  it('creates a file exclusively, with its mode, and never over anything already there', () => {
    tree.createExclusive('lock', 'pid 1', 0o600);
    expect(read(path.join(root, 'lock'))).toBe('pid 1');
    expect(modeOf(path.join(root, 'lock'))).toBe(0o600);
    expect(thrown(() => tree.createExclusive('lock', 'pid 2'))).toMatchObject({ code: 'EEXIST' });
    expect(read(path.join(root, 'lock'))).toBe('pid 1');
    fs.symlinkSync(victim, path.join(root, 'linked'));
    fs.symlinkSync(path.join(outsideDir, 'new'), path.join(root, 'dangling'));
    expect(thrown(() => tree.createExclusive('linked', 'x'))).toMatchObject({ code: 'EEXIST' });
    expect(thrown(() => tree.createExclusive('dangling', 'x'))).toMatchObject({ code: 'EEXIST' });
    intact();
  });

  it('hands out an append descriptor that can read back only when asked, with the mode asked', () => {
    const fd = tree.openAppend('log', { readable: true, mode: 0o600 });
    try {
      fs.writeSync(fd, 'line\n');
      const buf = Buffer.alloc(5);
      expect(fs.readSync(fd, buf, 0, 5, 0)).toBe(5);
      expect(buf.toString()).toBe('line\n');
    } finally {
      fs.closeSync(fd);
    }
    expect(modeOf(path.join(root, 'log'))).toBe(0o600);
    const writeOnly = tree.openAppend('log');
    try {
      expect(() => fs.readSync(writeOnly, Buffer.alloc(1), 0, 1, 0)).toThrow(/EBADF/);
      // Appends, wherever it is asked to write.
      fs.writeSync(writeOnly, 'more\n', 0);
    } finally {
      fs.closeSync(writeOnly);
    }
    expect(read(path.join(root, 'log'))).toBe('line\nmore\n');
  });

  it('truncates and chmods only a file that is there', () => {
    expect(thrown(() => tree.truncate('missing', 0))).toMatchObject({ code: 'ENOENT' });
    expect(thrown(() => tree.chmod('missing', 0o600))).toMatchObject({ code: 'ENOENT' });
    expect(fs.readdirSync(root)).toEqual([]);
    tree.writeFile('f', 'abc');
    tree.chmod('f', 0o700);
    expect(modeOf(path.join(root, 'f'))).toBe(0o700);
    tree.truncate('f', 1);
    expect(read(path.join(root, 'f'))).toBe('a');
  });

  it('writes atomically with or without fsync, bytes or text', () => {
    tree.writeFileAtomic('a', new Uint8Array([120]), { durable: false });
    tree.writeFileAtomic('b', 'text', { durable: true, mode: 0o640 });
    tree.writeJsonAtomic('c.json', [1], { durable: false, mode: 0o600 });
    expect(read(path.join(root, 'a'))).toBe('x');
    expect(read(path.join(root, 'b'))).toBe('text');
    expect(modeOf(path.join(root, 'b'))).toBe(0o640);
    expect(read(path.join(root, 'c.json'))).toBe('[\n  1\n]\n');
    expect(modeOf(path.join(root, 'c.json'))).toBe(0o600);
    expect(fs.readdirSync(root).sort()).toEqual(['a', 'b', 'c.json']);
  });

  it('creates a file atomically without fsync too, and reports other failures as errors, leaving no temp file', () => {
    expect(tree.createFileAtomic('k', new Uint8Array([107]), { durable: false })).toBe(true);
    expect(read(path.join(root, 'k'))).toBe('k');
    expect(thrown(() => tree.createFileAtomic('missing/k', 'x'))).toMatchObject({ code: 'ENOENT' });
    fs.mkdirSync(path.join(root, 'ro'));
    fs.writeFileSync(path.join(root, 'ro', 'big'), 'x');
    // A hard link across filesystems fails with EXDEV; here a folder at the target makes EEXIST — false, not thrown.
    expect(tree.createFileAtomic('ro', 'x')).toBe(false);
    expect(fs.readdirSync(root).sort()).toEqual(['k', 'ro']);
  });

  it('writes atomically off the event loop, replacing a link rather than following it', async () => {
    fs.symlinkSync(victim, path.join(root, 'index'));
    await tree.writeFileAtomicAsync('index', Buffer.from('idx'));
    expect(fs.lstatSync(path.join(root, 'index')).isFile()).toBe(true);
    expect(read(path.join(root, 'index'))).toBe('idx');
    await tree.writeFileAtomicAsync('fresh', Buffer.from('f'));
    expect(read(path.join(root, 'fresh'))).toBe('f');
    expect(fs.readdirSync(root).sort()).toEqual(['fresh', 'index']);
    intact();
  });

  it('refuses an off-loop write through a parent link, or whose folder is swapped for a link meanwhile, leaving no temp file', async () => {
    fs.symlinkSync(outsideDir, path.join(root, 'ln'));
    expect((await thrownAsync(tree.writeFileAtomicAsync('ln/victim.txt', Buffer.from('x')))).message).toBe(
      `ln/victim.txt: ln in ${root} is a symbolic link leading outside it; Tilth does not write through it.`,
    );
    fs.mkdirSync(path.join(root, 'd'));
    fs.writeFileSync(path.join(root, 'd', 'f'), 'old');
    let pending: Promise<void> = Promise.resolve();
    await withThreadpoolHeld(() => {
      pending = tree.writeFileAtomicAsync('d/f', Buffer.from('new'));
      // The write has located its folder, and its temp file waits for a thread: swap the folder now.
      fs.renameSync(path.join(root, 'd'), path.join(root, 'd2'));
      fs.symlinkSync(path.join(root, 'd2'), path.join(root, 'd'));
    });
    expect((await thrownAsync(pending)).message).toBe(`d in ${root} changed while Tilth wrote d/f; nothing was written there.`);
    expect(fs.readdirSync(path.join(root, 'd2'))).toEqual(['f']);
    expect(read(path.join(root, 'd2', 'f'))).toBe('old');
    intact();
  });

  it('removes its temp file when writing it off the loop fails, and reports the failure', async () => {
    async function* failing() {
      yield 'part';
      throw new Error('disk gone');
    }
    // An iterable that fails halfway stands in for a disk that fails halfway.
    const content = failing() as unknown as Uint8Array;
    const before = openDescriptors();
    expect((await thrownAsync(tree.writeFileAtomicAsync('index', content))).message).toBe('disk gone');
    expect(fs.readdirSync(root)).toEqual([]);
    expect(openDescriptors()).toBe(before);
    async function* failingAfterCleanup() {
      yield 'part';
      // Someone else removed the temp file meanwhile: the failure reported is still the write's.
      for (const name of fs.readdirSync(root)) if (ATOMIC_TEMP.test(name)) fs.rmSync(path.join(root, name));
      throw new Error('disk gone');
    }
    const gone = failingAfterCleanup() as unknown as Uint8Array;
    expect((await thrownAsync(tree.writeFileAtomicAsync('index', gone))).message).toBe('disk gone');
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('makes a tree for a folder inside, which refuses links like any write and lets nothing leave it', () => {
    fs.mkdirSync(path.join(root, 'sub'));
    fs.mkdirSync(path.join(root, 'real'));
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'alias'));
    const sub = tree.sub('sub');
    expect(sub.root).toBe(path.join(root, 'sub'));
    sub.writeFile('f', 'in sub');
    expect(read(path.join(root, 'sub', 'f'))).toBe('in sub');
    // A link inside the sub tree leading to elsewhere in the outer tree leads outside the sub tree.
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'sub', 'up'));
    expect(thrown(() => sub.writeFile('up/x', 'x')).message).toBe(
      `up/x: up in ${path.join(root, 'sub')} is a symbolic link leading outside it; Tilth does not write through it.`,
    );
    expect(thrown(() => tree.sub('alias')).message).toBe(`alias in ${root} is a symbolic link; Tilth does not write through links.`);
    expect(thrown(() => tree.sub('missing'))).toMatchObject({ code: 'ENOENT' });
    // Reached through a link that stays inside, the sub tree is the folder it names.
    fs.mkdirSync(path.join(root, 'real', 'inner'));
    const inner = tree.sub('alias/inner');
    expect(inner.root).toBe(path.join(root, 'alias', 'inner'));
    inner.writeFile('g', 'deep');
    expect(read(path.join(root, 'real', 'inner', 'g'))).toBe('deep');
    expect(fs.readdirSync(path.join(root, 'real'))).toEqual(['inner']);
  });

  it('tells what is strictly inside the tree by path alone', () => {
    const relative = Tree.at(path.relative(process.cwd(), root));
    expect(relative.root).toBe(root);
    expect(tree.contains('a')).toBe(true);
    expect(tree.contains('..a')).toBe(true);
    expect(tree.contains(path.join(root, 'a', 'b'))).toBe(true);
    expect(tree.contains('.')).toBe(false);
    expect(tree.contains('..')).toBe(false);
    expect(tree.contains('../tree-sibling')).toBe(false);
    expect(tree.contains(victim)).toBe(false);
    expect(tree.contains(`${root}-sibling/x`)).toBe(false);
  });

  it('ensures a folder with its missing parents and the mode asked, and takes one already there', () => {
    const deep = path.join(base, 'home', 'tilth');
    const made = Tree.ensure(deep, 0o700);
    expect(made.root).toBe(deep);
    expect(modeOf(deep)).toBe(0o700);
    made.writeFile('secret', 'x');
    expect(Tree.ensure(deep).root).toBe(deep);
  });
});

describe('making folders', () => {
  it('makes one folder, or with recursive its parents too, each with the mode asked', () => {
    tree.mkdir('one', { mode: 0o700 });
    tree.mkdir('p/q/r', { recursive: true, mode: 0o750 });
    expect(modeOf(path.join(root, 'one'))).toBe(0o700);
    for (const d of ['p', 'p/q', 'p/q/r']) expect(modeOf(path.join(root, d))).toBe(0o750);
  });

  it('answers like mkdir for what is there or missing, with the code callers check', () => {
    tree.mkdir('.', { recursive: true });
    expect(fs.readdirSync(root)).toEqual([]);
    expect(thrown(() => tree.mkdir('.'))).toMatchObject({ code: 'EEXIST', message: `EEXIST: file already exists, mkdir '${root}'` });
    expect(thrown(() => tree.mkdir('p/q'))).toMatchObject({ code: 'ENOENT', message: `ENOENT: no such file or directory, mkdir '${path.join(root, 'p/q')}'` });
    expect(fs.readdirSync(root)).toEqual([]);
    tree.writeFile('file', 'x');
    expect(thrown(() => tree.mkdir('file/d', { recursive: true }))).toMatchObject({
      code: 'ENOTDIR',
      message: `ENOTDIR: not a directory, mkdir '${path.join(root, 'file/d')}'`,
    });
    expect(thrown(() => tree.mkdir('file', { recursive: true }))).toMatchObject({
      code: 'EEXIST',
      message: `EEXIST: file already exists, mkdir '${path.join(root, 'file')}'`,
    });
    tree.mkdir('d');
    expect(thrown(() => tree.mkdir('d'))).toMatchObject({ code: 'EEXIST', message: `EEXIST: file already exists, mkdir '${path.join(root, 'd')}'` });
    tree.mkdir('d/e');
    expect(fs.statSync(path.join(root, 'd', 'e')).isDirectory()).toBe(true);
  });

  it('goes through a link staying inside the tree, but not a dangling one or one to a file', () => {
    fs.mkdirSync(path.join(root, 'real'));
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'alias'));
    fs.symlinkSync(path.join(root, 'nowhere'), path.join(root, 'dangling'));
    fs.writeFileSync(path.join(root, 'file'), 'x');
    fs.symlinkSync(path.join(root, 'file'), path.join(root, 'to-file'));
    tree.mkdir('alias', { recursive: true });
    expect(thrown(() => tree.mkdir('alias'))).toMatchObject({ code: 'EEXIST' });
    tree.mkdir('alias/x');
    expect(fs.statSync(path.join(root, 'real', 'x')).isDirectory()).toBe(true);
    expect(thrown(() => tree.mkdir('dangling/x', { recursive: true })).message).toBe(
      `dangling in ${root} is a symbolic link leading outside it; Tilth does not write through it.`,
    );
    expect(thrown(() => tree.mkdir('to-file/x', { recursive: true }))).toMatchObject({ code: 'ENOTDIR' });
    expect(fs.existsSync(path.join(root, 'nowhere'))).toBe(false);
  });
});

describe('removing, renaming, linking and reading', () => {
  it('removes a folder only when asked to recurse, and takes a missing parent as nothing to remove', () => {
    fs.mkdirSync(path.join(root, 'd'));
    fs.writeFileSync(path.join(root, 'd', 'f'), 'x');
    expect(() => tree.remove('d')).toThrow();
    expect(fs.existsSync(path.join(root, 'd', 'f'))).toBe(true);
    tree.remove('missing/f');
    tree.remove('d/f');
    expect(fs.readdirSync(path.join(root, 'd'))).toEqual([]);
  });

  it('renames only to a place inside the tree, and makes links inside it', () => {
    fs.symlinkSync(outsideDir, path.join(root, 'out'));
    tree.writeFile('f', 'x');
    expect(thrown(() => tree.rename('f', 'out/stolen')).message).toMatch(/^out\/stolen: out in .* is a symbolic link leading outside it/);
    expect(read(path.join(root, 'f'))).toBe('x');
    tree.symlink('f', 'l');
    expect(fs.readlinkSync(path.join(root, 'l'))).toBe('f');
    intact();
  });

  it('reads nothing through a parent link leading outside, and tells a real folder only inside', () => {
    fs.symlinkSync(outsideDir, path.join(root, 'out'));
    expect(() => tree.readFileNoFollow('out/victim.txt')).toThrow(LinkRefusedError);
    expect(tree.readFileNoFollow('missing/f')).toBeNull();
    expect(tree.isRealDirectory('out/x')).toBe(false);
    expect(tree.isRealDirectory('missing')).toBe(false);
    expect(tree.isRealDirectory('.')).toBe(false);
  });
});

describe('the temp files atomic writes leave', () => {
  it('are named so that only they match', () => {
    for (const name of ['.a.0123456789ab.tmp', '.checkpoint.json.abcdef012345.tmp', '...0123456789ab.tmp']) expect(name).toMatch(ATOMIC_TEMP);
    for (const name of [
      'a.0123456789ab.tmp',
      'x.a.0123456789ab.tmp',
      '.a.0123456789ab.tmpx',
      '.a.0123456789ab.tmp.bak',
      '.a.0123456789abc.tmp',
      '.a.0123456789a.tmp',
      '.a.0123456789AB.tmp',
      '.a-0123456789ab.tmp',
      '.a.0123456789ab-tmp',
      '.0123456789ab.tmp',
    ]) {
      expect(name).not.toMatch(ATOMIC_TEMP);
    }
  });

  it('are removed once older than asked, to the millisecond, or all with no age given; nothing that is not a plain file', () => {
    fs.mkdirSync(path.join(root, 'sub'));
    const file = path.join(root, 'sub', '.a.0123456789ab.tmp');
    fs.writeFileSync(file, 'x');
    const mtime = fs.lstatSync(file).mtimeMs;
    expect(tree.removeStaleTemps('sub', 1000, mtime + 999)).toEqual([]);
    expect(tree.removeStaleTemps('sub', 1000, mtime + 1000)).toEqual(['.a.0123456789ab.tmp']);
    fs.writeFileSync(file, 'x');
    // No age: even one written in the future (a clock set back) goes.
    const future = new Date(Date.now() + 3_600_000);
    fs.utimesSync(file, future, future);
    fs.mkdirSync(path.join(root, 'sub', '.d.0123456789ab.tmp'));
    fs.symlinkSync(victim, path.join(root, 'sub', '.l.0123456789ab.tmp'));
    execFileSync('mkfifo', [path.join(root, 'sub', '.p.0123456789ab.tmp')]);
    expect(tree.removeStaleTemps('sub', 0)).toEqual(['.a.0123456789ab.tmp']);
    expect(fs.readdirSync(path.join(root, 'sub')).sort()).toEqual(['.d.0123456789ab.tmp', '.l.0123456789ab.tmp', '.p.0123456789ab.tmp']);
    intact();
  });

  it('are looked for only in a real folder of the tree', () => {
    tree.writeFile('file', 'x');
    expect(tree.removeStaleTemps('missing', 0)).toEqual([]);
    expect(tree.removeStaleTemps('file', 0)).toEqual([]);
    expect(tree.removeStaleTemps('..', 0)).toEqual([]);
    intact();
  });
});

describe('several files all or nothing', () => {
  it('changes nothing when one cannot be staged, naming it', () => {
    tree.writeFile('keep', 'old');
    const err = thrown(() =>
      Tree.writeFilesAtomic([
        { tree, target: 'keep', content: 'new' },
        { tree, target: 'missing/x', content: 'x' },
      ]),
    );
    expect(err.message).toMatch(/^nothing was written: staging missing\/x failed: ENOENT/);
    expect(err.cause).toMatchObject({ code: 'ENOENT' });
    expect(read(path.join(root, 'keep'))).toBe('old');
    expect(fs.readdirSync(root)).toEqual(['keep']);
  });

  it('puts back the files already replaced and removes those it had made when a later one cannot be replaced', () => {
    tree.writeFile('keep', 'old');
    fs.mkdirSync(path.join(root, 'occupied'));
    const err = thrown(() =>
      Tree.writeFilesAtomic([
        { tree, target: 'keep', content: 'new' },
        { tree, target: 'fresh', content: 'new' },
        { tree, target: 'occupied', content: 'x' },
        { tree, target: 'after', content: 'x' },
      ]),
    );
    expect(err.message).toMatch(/^nothing was written: replacing occupied failed: EISDIR/);
    expect(err.cause).toMatchObject({ code: 'EISDIR' });
    expect(read(path.join(root, 'keep'))).toBe('old');
    expect(fs.readdirSync(root).sort()).toEqual(['keep', 'occupied']);
  });
});

describe.skipIf(!straceWorks)('durability, seen through strace', () => {
  it('changes nothing and leaves no temp file when a staged file cannot be fsynced', async () => {
    tree.writeFile('f', 'old');
    const failFsync = (n: number) => ['-e', 'trace=fsync', '-e', `inject=fsync:error=EIO:when=${n}`];
    // The first child process opens descriptors of its own (libuv's signal pipe): count after one.
    await underStrace(['-e', 'trace=fsync'], () => undefined);
    const before = openDescriptors();
    let err: Error & { code?: string } = new Error('none');
    await underStrace(failFsync(1), () => (err = thrown(() => tree.writeFileAtomic('f', 'new'))));
    expect(err).toMatchObject({ code: 'EIO' });
    await underStrace(failFsync(1), () => (err = thrown(() => tree.createFileAtomic('g', 'new'))));
    expect(err).toMatchObject({ code: 'EIO' });
    const writes = [
      { tree, target: 'f', content: 'new' },
      { tree, target: 'h', content: 'new' },
    ];
    await underStrace(failFsync(2), () => (err = thrown(() => Tree.writeFilesAtomic(writes))));
    expect(err.message).toMatch(/^nothing was written: staging h failed: EIO/);
    expect(read(path.join(root, 'f'))).toBe('old');
    expect(fs.readdirSync(root)).toEqual(['f']);
    expect(openDescriptors()).toBe(before);
  });

  it('still writes when the folder cannot be fsynced, which some filesystems refuse', async () => {
    await underStrace(['-e', 'trace=fsync', '-e', 'inject=fsync:error=EINVAL:when=2'], () => tree.writeFileAtomic('f', 'new'));
    expect(read(path.join(root, 'f'))).toBe('new');
    const before = openDescriptors();
    expect(() => fsyncDir(path.join(root, 'missing'))).not.toThrow();
    expect(openDescriptors()).toBe(before);
  });

  it('fsyncs the staged file and then its folder on a durable write, and neither otherwise', async () => {
    fs.mkdirSync(path.join(root, 'd'));
    expect(await fsyncs(() => tree.writeFileAtomic('d/f', 'x'))).toEqual([path.join(root, 'd', '<tmp>'), path.join(root, 'd')]);
    expect(await fsyncs(() => tree.writeJsonAtomic('d/j', {}))).toEqual([path.join(root, 'd', '<tmp>'), path.join(root, 'd')]);
    expect(await fsyncs(() => tree.createFileAtomic('d/k', 'x'))).toEqual([path.join(root, 'd', '<tmp>'), path.join(root, 'd')]);
    expect(await fsyncs(() => tree.writeFileAtomic('d/f', 'x', { durable: false }))).toEqual([]);
    expect(await fsyncs(() => tree.createFileAtomic('d/k2', 'x', { durable: false }))).toEqual([]);
    expect(await fsyncs(() => tree.createFileAtomic('d/k', 'x'))).toEqual([path.join(root, 'd', '<tmp>')]);
    expect(await fsyncs(() => tree.writeFile('d/plain', 'x'))).toEqual([]);
  });

  it('fsyncs every staged file before renaming any, then each folder once', async () => {
    fs.mkdirSync(path.join(root, 'd'));
    const writes = [
      { tree, target: 'a', content: '1' },
      { tree, target: 'd/b', content: '2' },
      { tree, target: 'c', content: '3' },
    ];
    expect(await fsyncs(() => Tree.writeFilesAtomic(writes))).toEqual([
      path.join(root, '<tmp>'),
      path.join(root, 'd', '<tmp>'),
      path.join(root, '<tmp>'),
      root,
      path.join(root, 'd'),
    ]);
  });
});

describe.skipIf(!straceWorks)('a write whose file or folder is swapped under it', () => {
  it('refuses a file replaced between its open and its check, writing nothing to either', async () => {
    fs.writeFileSync(path.join(root, 'f'), 'mine');
    fs.writeFileSync(path.join(root, 'other'), 'planted');
    const target = path.join(root, 'f');
    let err: Error | undefined;
    await stopAfter('openat', `mv '${path.join(root, 'other')}' '${target}'`, () => (err = thrown(() => tree.writeFile('f', 'x'))), target);
    expect(err?.message).toBe(`f in ${root} changed while Tilth opened it; nothing was written.`);
    expect(read(target)).toBe('planted');
  });

  it('refuses a file removed between its open and its check, and does not make it again', async () => {
    fs.writeFileSync(path.join(root, 'f'), 'mine');
    const target = path.join(root, 'f');
    let err: Error | undefined;
    await stopAfter('openat', `rm '${target}'`, () => (err = thrown(() => tree.appendFile('f', 'x'))), target);
    expect(err?.message).toBe(`f in ${root} changed while Tilth opened it; nothing was written.`);
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('refuses a file whose folder became a link after the file was opened', async () => {
    fs.mkdirSync(path.join(root, 'd'));
    fs.writeFileSync(path.join(root, 'd', 'f'), 'mine');
    const target = path.join(root, 'd', 'f');
    let err: Error | undefined;
    await stopAfter('openat', `cd '${root}' && mv d d2 && ln -s d2 d`, () => (err = thrown(() => tree.writeFile('d/f', 'x'))), target);
    expect(err?.message).toBe(`d in ${root} changed while Tilth wrote d/f; nothing was written there.`);
    expect(read(path.join(root, 'd2', 'f'))).toBe('mine');
  });

  it('refuses to rename a staged file into a folder that became a link meanwhile, and removes the temp file', async () => {
    fs.mkdirSync(path.join(root, 'd'));
    fs.writeFileSync(path.join(root, 'd', 'f'), 'mine');
    const swap = `cd '${root}' && mv d d2 && ln -s d2 d`;
    let err: Error | undefined;
    await stopAfter('fsync', swap, () => (err = thrown(() => tree.writeFileAtomic('d/f', 'x'))));
    expect(err?.message).toBe(`d in ${root} changed while Tilth wrote d/f; nothing was written there.`);
    expect(fs.readdirSync(path.join(root, 'd2'))).toEqual(['f']);
    expect(read(path.join(root, 'd2', 'f'))).toBe('mine');
    fs.rmSync(path.join(root, 'd'));
    fs.renameSync(path.join(root, 'd2'), path.join(root, 'd'));
    await stopAfter('fsync', swap, () => (err = thrown(() => tree.createFileAtomic('d/g', 'x'))));
    expect(err?.message).toBe(`d in ${root} changed while Tilth wrote d/g; nothing was written there.`);
    expect(fs.readdirSync(path.join(root, 'd2'))).toEqual(['f']);
  });

  it('puts back the first file of several when the folder of the next became a link meanwhile', async () => {
    tree.writeFile('keep', 'old');
    fs.mkdirSync(path.join(root, 'd'));
    fs.writeFileSync(path.join(root, 'd', 'f'), 'old');
    const writes = [
      { tree, target: 'keep', content: 'new' },
      { tree, target: 'd/f', content: 'new' },
    ];
    let err: Error | undefined;
    // Whoever swapped the folder also wrote the file in it: the rollback must not touch it.
    const swap = `cd '${root}' && mv d d2 && ln -s d2 d && echo planted > d2/f`;
    const lines = await underStrace(
      ['-e', 'trace=rename,fsync', '-e', 'inject=rename:signal=SIGSTOP:when=1'],
      () => (err = thrown(() => Tree.writeFilesAtomic(writes))),
      swap,
    );
    expect(err?.message).toBe(`nothing was written: replacing d/f failed: d in ${root} changed while Tilth wrote d/f; nothing was written there.`);
    // The two staged files; putting back is not worth a sync of its own.
    expect(lines.filter((line) => line.startsWith('fsync('))).toHaveLength(2);
    expect(read(path.join(root, 'keep'))).toBe('old');
    expect(fs.readdirSync(path.join(root, 'd2'))).toEqual(['f']);
    expect(read(path.join(root, 'd2', 'f'))).toBe('planted\n');
    expect(fs.readdirSync(root).sort()).toEqual(['d', 'd2', 'keep']);
  });

  it('reports the failure itself when its temp file was removed by someone else before the rename', async () => {
    const swap = `rm '${root}'/.*.tmp`;
    let err: Error | undefined;
    await stopAfter('fsync', swap, () => (err = thrown(() => tree.writeFileAtomic('f', 'x'))));
    expect(err?.message).toMatch(/^ENOENT: no such file or directory, rename /);
    await stopAfter('fsync', swap, () => (err = thrown(() => tree.createFileAtomic('f', 'x'))));
    expect(err?.message).toMatch(/^ENOENT: no such file or directory, link /);
    tree.writeFile('a', 'old');
    const writes = [
      { tree, target: 'a', content: 'new' },
      { tree, target: 'b', content: 'new' },
    ];
    await stopAfter('rename', swap, () => (err = thrown(() => Tree.writeFilesAtomic(writes))));
    expect(err?.message).toMatch(/^nothing was written: replacing b failed: ENOENT: no such file or directory, rename /);
    expect(read(path.join(root, 'a'))).toBe('old');
    expect(fs.readdirSync(root)).toEqual(['a']);
  });

  it('changes nothing when a later file cannot be staged, even if an earlier temp file is gone by then', async () => {
    let err: Error | undefined;
    const writes = [
      { tree, target: 'a', content: 'new' },
      { tree, target: 'missing/x', content: 'x' },
    ];
    await stopAfter('fsync', `rm '${root}'/.*.tmp`, () => (err = thrown(() => Tree.writeFilesAtomic(writes))));
    expect(err?.message).toMatch(/^nothing was written: staging missing\/x failed: ENOENT/);
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('reports a failed fsync itself when its temp file is gone by then', async () => {
    let err: Error & { code?: string } = new Error('none');
    await underStrace(
      ['-e', 'trace=fsync', '-e', 'inject=fsync:error=EIO:signal=SIGSTOP:when=1'],
      () => (err = thrown(() => tree.writeFileAtomic('f', 'x'))),
      `rm '${root}'/.*.tmp`,
    );
    expect(err).toMatchObject({ code: 'EIO' });
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('reports an off-loop rename that failed itself when its temp file is gone by then', async () => {
    let err: Error & { code?: string } = new Error('none');
    // Every thread (the rename runs in libuv's pool); strace's -P does not match a rename's target.
    await underStrace(
      ['-f', '-e', 'trace=rename', '-e', 'inject=rename:error=EXDEV:signal=SIGSTOP:when=1'],
      async () => (err = await thrownAsync(tree.writeFileAtomicAsync('index', Buffer.from('x')))),
      `rm '${root}'/.*.tmp`,
    );
    expect(err).toMatchObject({ code: 'EXDEV' });
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('skips a temp file someone else removed while it looked', async () => {
    const sub = path.join(root, 'sub');
    const file = path.join(sub, '.a.0123456789ab.tmp');
    fs.mkdirSync(sub);
    fs.writeFileSync(file, 'x');
    let removed: string[] | undefined;
    // Gone once listed, before it is looked at.
    await stopAfter('getdents64', `rm '${file}'`, () => (removed = tree.removeStaleTemps('sub', 0)), sub);
    expect(removed).toEqual([]);
    // Gone once looked at, before it is removed.
    fs.writeFileSync(file, 'x');
    await stopAfter('statx,lstat,newfstatat', `rm '${file}'`, () => (removed = tree.removeStaleTemps('sub', 0)), file);
    expect(removed).toEqual(['.a.0123456789ab.tmp']);
    expect(fs.readdirSync(sub)).toEqual([]);
  });

  it('names the link in a refusal even when it is gone by the time the message is made', async () => {
    const elsewhere = path.join(base, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.symlinkSync(elsewhere, path.join(root, 'l'));
    let err: Error | undefined;
    await stopAfter('readlink,readlinkat', `rm '${root}/l'`, () => (err = thrown(() => tree.writeFile('l/f', 'x'))), path.join(root, 'l'));
    expect(err?.message).toBe(`l/f: l in ${root} is a symbolic link leading outside it; Tilth does not write through it.`);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it('writes the rest from where a write that took only part stopped', async () => {
    // A non-blocking pipe with one page free takes one page of two and then says EAGAIN, which
    // ends node's own retrying; a reader empties it while this thread is stopped there.
    const fifo = path.join(base, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const fd = fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
    try {
      const page = 4096;
      let pages = 0;
      for (;;) {
        try {
          fs.writeSync(fd, Buffer.alloc(page, 'p'));
          pages++;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EAGAIN') break;
          throw err;
        }
      }
      fs.readSync(fd, Buffer.alloc(page), 0, page, null);
      const content = Buffer.concat([Buffer.alloc(page, 'a'), Buffer.alloc(page, 'b')]);
      const drained = path.join(base, 'drained');
      await underStrace(
        ['-P', fifo, '-e', 'trace=write', '-e', 'inject=write:signal=SIGSTOP:when=2'],
        () => writeAll(fd, content),
        `dd if='${fifo}' of='${drained}' bs=${page} count=${pages} iflag=fullblock status=none`,
      );
      expect(fs.readFileSync(drained).subarray((pages - 1) * page)).toEqual(content.subarray(0, page));
      const rest = Buffer.alloc(2 * page);
      expect(fs.readSync(fd, rest, 0, rest.length, null)).toBe(page);
      expect(rest.subarray(0, page)).toEqual(content.subarray(page));
    } finally {
      fs.closeSync(fd);
    }
  });

  it('writes the rest of a text after a short write, as bytes', async () => {
    const file = path.join(root, 'f');
    fs.writeFileSync(file, 'old');
    await underStrace(['-P', file, '-e', 'trace=write,pwrite64', '-e', 'inject=write,pwrite64:retval=1:when=1'], () => tree.writeFile('f', 'abc'));
    expect(read(file)).toBe('bc');
  });

  it('finds no temp files in a folder removed just after it was checked', async () => {
    const sub = path.join(root, 'sub');
    fs.mkdirSync(sub);
    let removed: string[] | undefined;
    await stopAfter('statx,lstat,newfstatat', `rm -r '${sub}'`, () => (removed = tree.removeStaleTemps('sub', 0)), sub);
    expect(removed).toEqual([]);
  });

  it('refuses a folder it made that was swapped for a link before it looked', async () => {
    const made = path.join(root, 'p', 'q');
    fs.mkdirSync(path.join(root, 'elsewhere'));
    let err: Error | undefined;
    await stopAfter(
      'mkdir',
      `cd '${root}/p' && mv q '${root}/elsewhere/q' && ln -s '${outsideDir}' q`,
      () => (err = thrown(() => tree.mkdir('p/q/r', { recursive: true }))),
      made,
    );
    expect(err?.message).toBe(`p/q in ${root} changed while Tilth made it.`);
    intact();
  });
});

describe('writeAll', () => {
  it('writes every byte, also of an empty buffer', () => {
    const fd = fs.openSync(path.join(root, 'f'), 'w');
    try {
      writeAll(fd, new Uint8Array(0));
      writeAll(fd, Buffer.alloc(200_000, 'a'));
    } finally {
      fs.closeSync(fd);
    }
    expect(fs.statSync(path.join(root, 'f')).size).toBe(200_000);
  });
});
