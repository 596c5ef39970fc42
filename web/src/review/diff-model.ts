/**
 * What the diff viewer shows for each file, decided without React: the server's file list is the
 * truth (it is never cut), the parsed unified text supplies the hunks where it has them.
 */
import type { Diff, DiffFile } from '../../../shared/review.ts';

/** A file changing more lines than this is collapsed until the reader asks for it. */
export const LARGE_FILE_LINES = 400;

/** The fields of a parsed file (react-diff-view's `FileData`) this module reads. */
export interface ParsedFileLike {
  oldPath: string;
  newPath: string;
  isBinary?: boolean;
  hunks: readonly unknown[];
}

/**
 * - `hunks`: text to show;
 * - `binary`: named, never dumped;
 * - `no-text`: a pure rename, a mode change or an empty file;
 * - `not-included`: the server cut the text before this file (a very large diff).
 */
export type FileBody = 'hunks' | 'binary' | 'no-text' | 'not-included';

export interface DiffFileView<P extends ParsedFileLike> {
  file: DiffFile;
  parsed: P | null;
  body: FileBody;
  changedLines: number;
  /** Collapsed behind a button until asked for. */
  large: boolean;
}

const DEV_NULL = '/dev/null';

export function diffFileViews<P extends ParsedFileLike>(diff: Diff, parsed: readonly P[]): DiffFileView<P>[] {
  const byPath = new Map<string, P>();
  for (const p of parsed) {
    // An added file's old path and a deleted file's new path are /dev/null.
    if (p.newPath !== DEV_NULL) byPath.set(p.newPath, p);
    if (p.oldPath !== DEV_NULL && !byPath.has(p.oldPath)) byPath.set(p.oldPath, p);
  }
  return diff.files.map((file) => {
    const match = byPath.get(file.path) ?? (file.old_path !== null ? byPath.get(file.old_path) : undefined) ?? null;
    const changedLines = file.additions + file.deletions;
    const body: FileBody =
      file.binary || match?.isBinary === true ? 'binary' : match === null ? 'not-included' : match.hunks.length === 0 ? 'no-text' : 'hunks';
    return { file, parsed: match, body, changedLines, large: body === 'hunks' && changedLines > LARGE_FILE_LINES };
  });
}

export function diffTotals(files: readonly DiffFile[]): { files: number; additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const f of files) {
    additions += f.additions;
    deletions += f.deletions;
  }
  return { files: files.length, additions, deletions };
}

/** Grammars the diff viewer bundles, by extension (refractor language names). */
const LANGUAGES: Record<string, string> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'jsx',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  py: 'python',
  pyi: 'python',
  json: 'json',
  css: 'css',
  html: 'markup',
  htm: 'markup',
  xml: 'markup',
  svg: 'markup',
  md: 'markdown',
  sh: 'bash',
  bash: 'bash',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'toml',
  go: 'go',
  rs: 'rust',
  java: 'java',
  rb: 'ruby',
  c: 'c',
  h: 'c',
  cpp: 'cpp',
  cc: 'cpp',
  hpp: 'cpp',
  sql: 'sql',
};

/** The grammar for a path, or null to show it uncoloured. */
export function languageFor(path: string): string | null {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name === 'Dockerfile') return null;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return null;
  return LANGUAGES[name.slice(dot + 1).toLowerCase()] ?? null;
}

export const STATUS_MARK: Record<DiffFile['status'], string> = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R' };
