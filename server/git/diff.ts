/**
 * Diffs and commit lists for review: a file list (status, counts, binary) beside the unified diff
 * text, which is capped; binary files are named, never dumped.
 */
import { createHash } from 'node:crypto';
import { DIFF_TEXT_CAP, type Diff, type DiffFile } from '../../shared/review.ts';
import { git } from './git-base.ts';

export interface CommitInfo {
  sha: string;
  subject: string;
  date: string;
}

/** Commits in `range` (e.g. `base..branch`), oldest first. */
export async function commitsIn(dir: string, range: string): Promise<CommitInfo[]> {
  const out = await git(dir).raw(['log', '--reverse', '--format=%H%x1f%s%x1f%cI', range]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [sha = '', subject = '', date = ''] = line.split('\x1f');
      return { sha, subject, date };
    });
}

const STATUS: Record<string, DiffFile['status']> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', T: 'modified', C: 'added' };

/** The diff from `from` to `to` (commits or refs), with renames detected. */
export async function diffBetween(dir: string, from: string, to: string): Promise<Diff> {
  const g = git(dir);
  const [nameStatus, numstat, text] = await Promise.all([
    g.raw(['diff', '--no-ext-diff', '--no-textconv', '--name-status', '-z', '-M', from, to]),
    g.raw(['diff', '--no-ext-diff', '--no-textconv', '--numstat', '-z', '-M', from, to]),
    // Paths as they are, not octal-escaped: the file list (`-z`) has them raw, and the web matches
    // each listed file to its section of this text by path.
    g.raw(['-c', 'core.quotePath=false', 'diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', from, to]),
  ]);
  const files: DiffFile[] = [];
  const ns = nameStatus.split('\0');
  for (let i = 0; i < ns.length - 1; ) {
    const code = ns[i++]!;
    const kind = STATUS[code[0] ?? 'M'] ?? 'modified';
    if (kind === 'renamed' || code.startsWith('C')) {
      const oldPath = ns[i++]!;
      files.push({ path: ns[i++]!, old_path: code.startsWith('C') ? null : oldPath, status: kind, additions: 0, deletions: 0, binary: false });
    } else {
      files.push({ path: ns[i++]!, old_path: null, status: kind, additions: 0, deletions: 0, binary: false });
    }
  }
  // numstat -z: "a\td\tpath\0", or for a rename "a\td\t\0old\0new\0".
  const parts = numstat.split('\0');
  const byPath = new Map(files.map((f) => [f.path, f]));
  for (let i = 0; i < parts.length - 1; ) {
    const [added = '0', deleted = '0', inline = ''] = parts[i++]!.split('\t');
    let target = inline;
    if (inline === '') {
      i++; // old path
      target = parts[i++] ?? '';
    }
    const file = byPath.get(target);
    if (!file) continue;
    file.binary = added === '-';
    file.additions = added === '-' ? 0 : Number(added);
    file.deletions = deleted === '-' ? 0 : Number(deleted);
  }
  const truncated = text.length > DIFF_TEXT_CAP;
  return { files, text: truncated ? text.slice(0, text.lastIndexOf('\ndiff --git ', DIFF_TEXT_CAP) + 1 || DIFF_TEXT_CAP) : text, truncated };
}

/**
 * sha256 of the whole diff from `from` to `to`, binary contents and full blob ids included, for
 * the evidence receipt: the same two commits always give the same hash, and no cap cuts it.
 */
export async function diffSha256(dir: string, from: string, to: string): Promise<string> {
  const text = await git(dir).raw(['-c', 'core.quotePath=false', 'diff', '--no-color', '--no-ext-diff', '--no-textconv', '--binary', '--full-index', from, to]);
  return createHash('sha256').update(text).digest('hex');
}
