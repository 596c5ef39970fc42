/**
 * "No server write follows a link" (issue 27): every write, rename, truncate and delete the
 * server makes goes through `fs/tree.ts`. This test reads the server's sources and fails when a
 * module outside `fs/` calls a writing `node:fs` function itself, so a new one is either routed
 * through a tree or written down here with the reason it needs none.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SERVER = path.resolve(import.meta.dirname, '..');

/** Files that write outside any tree, and why that is safe. */
const WRITES_OUTSIDE_A_TREE: Record<string, string> = {
  'proc/process-cap.ts': 'the kernel’s cgroup filesystem (/sys/fs/cgroup): no link can be planted there',
  'demo/example-repo.ts': 'copies the bundled example into a fresh folder it has just made with mkdtemp',
  'env/uvu-runner.ts':
    'the text of a script the sandbox runs (Tilth’s own uvu runner): it writes its report into the per-run report folder the harness made, never the server',
};

/** Test support writes the fixtures it makes; it is never part of the product. */
const TEST_SUPPORT = 'testing/';

/** Calls that write by path; a descriptor's writes (`ftruncate`, `write`) count where it was opened. */
const WRITERS = [
  'writeFile',
  'appendFile',
  'rename',
  'unlink',
  'rm',
  'rmdir',
  'truncate',
  'copyFile',
  'cp',
  'symlink',
  'link',
  'mkdir',
  'mkdtemp',
  'chmod',
  'lchmod',
  'chown',
  'lchown',
  'utimes',
  'createWriteStream',
].flatMap((name) => (name === 'createWriteStream' ? [name] : [name, `${name}Sync`]));

const WRITER_CALL = new RegExp(`\\b(?:fs|fsp|promises)\\.(?:promises\\.)?(${WRITERS.join('|')})\\(`, 'g');
const OPEN_CALL = /\b(?:fs|fsp|promises)\.(?:promises\.)?open(?:Sync)?\(([^;]*?)\)/g;
/** An open whose flags can write: a flag string with w, a or +, or a write or create constant. */
const WRITING_FLAGS = /['"`][^'"`]*[wa+][^'"`]*['"`]|O_WRONLY|O_RDWR|O_CREAT|O_APPEND|O_TRUNC/;
const NAMED_IMPORT = /import\s*\{([^}]*)\}\s*from\s*'node:fs(?:\/promises)?'/g;

/** The writing calls a source makes by itself, as `name` (or `open(…flags…)`). */
function writesIn(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(WRITER_CALL)) found.push(m[1]!);
  for (const m of text.matchAll(OPEN_CALL)) if (WRITING_FLAGS.test(m[1]!)) found.push('open for writing');
  for (const m of text.matchAll(NAMED_IMPORT)) {
    for (const name of m[1]!.split(',').map((n) => n.trim().split(/\s+as\s+/)[0]!)) {
      if (WRITERS.includes(name) || name === 'open' || name === 'openSync') found.push(`import { ${name} }`);
    }
  }
  return found;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(full));
    else if (/\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

describe('the boundary around server writes', () => {
  const files = sources(SERVER).map((f) => ({ rel: path.relative(SERVER, f).split(path.sep).join('/'), text: fs.readFileSync(f, 'utf8') }));

  it('has nothing outside fs/ write files itself, except the listed places', () => {
    const writing = files
      .filter((f) => !f.rel.startsWith('fs/') && !f.rel.startsWith(TEST_SUPPORT))
      .map((f) => ({ rel: f.rel, writes: writesIn(f.text) }))
      .filter((f) => f.writes.length > 0);
    const unlisted = writing.filter((f) => !(f.rel in WRITES_OUTSIDE_A_TREE)).map((f) => `${f.rel}: ${[...new Set(f.writes)].join(', ')}`);
    expect(unlisted).toEqual([]);
    // A listed file that no longer writes is dropped from the list.
    expect(writing.map((f) => f.rel).sort()).toEqual(Object.keys(WRITES_OUTSIDE_A_TREE).sort());
  });

  it('recognises every way of writing it looks for', () => {
    expect(writesIn("fs.writeFileSync(p, 'x')")).toEqual(['writeFileSync']);
    expect(writesIn('await fs.promises.rename(a, b)')).toEqual(['rename']);
    expect(writesIn('fsp.rm(dir, { recursive: true })')).toEqual(['rm']);
    expect(writesIn("fs.openSync(file, 'a+')")).toEqual(['open for writing']);
    expect(writesIn('fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT)')).toEqual(['open for writing']);
    expect(writesIn("fs.openSync(file, 'r')")).toEqual([]);
    expect(writesIn("import { writeFileSync as w, readFileSync } from 'node:fs';")).toEqual(['import { writeFileSync }']);
    expect(writesIn("fs.readFileSync(p, 'utf8'); fs.lstatSync(p)")).toEqual([]);
  });
});
