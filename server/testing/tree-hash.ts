import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Every path under `dir` but `.git` — type, mode, content hash or link target — hashed: equal
 * hashes mean the tree is byte for byte the same, installed dependencies included.
 */
export function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (rel: string) => {
    const abs = path.join(dir, rel);
    const entries = fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const child = path.join(rel, entry.name);
      if (child === '.git') continue;
      const stat = fs.lstatSync(path.join(dir, child));
      hash.update(`${child}\0${stat.mode}\0`);
      if (entry.isSymbolicLink()) hash.update(`-> ${fs.readlinkSync(path.join(dir, child))}\n`);
      else if (entry.isDirectory()) walk(child);
      else hash.update(fs.readFileSync(path.join(dir, child)));
    }
  };
  walk('');
  return hash.digest('hex');
}
