/**
 * Workspaces (issue 29, step 4): which packages a repository's root declares, read from files only
 * as the rest of detection is. npm, yarn and bun list them in package.json's `workspaces` (an array,
 * or yarn's `{ packages: [...] }`), pnpm in pnpm-workspace.yaml's `packages`, Cargo in
 * `[workspace] members`, Go in go.work's `use` lines. Each entry is a folder or a glob of folders;
 * a folder is a package when it has the manifest of its kind. The walk is bounded (a monorepo's
 * check stays quick) and never enters `node_modules` or dot-folders.
 */
import { globMatches } from '../../shared/glob.ts';
import type { Workspace } from '../../shared/project-env.ts';
import { tomlStrings, yamlStrings } from './config-read.ts';

/** What a workspace's root says: its tool, where, its patterns (`!` ones exclude) and the manifest each package has. */
export interface WorkspaceDecl {
  tool: Workspace['tool'];
  evidence: string;
  patterns: string[];
  manifest: 'package.json' | 'Cargo.toml' | 'go.mod';
}

/** At most this many packages are read, and this many folders visited looking for them. */
export const WORKSPACE_LIMITS = { packages: 200, folders: 4000, depth: 6 };

export interface RootFiles {
  packageJson: Record<string, unknown> | null;
  /** The package manager detection settled on (npm when none), for package.json's `workspaces`. */
  manager: 'npm' | 'yarn' | 'bun' | 'pnpm' | null;
  pnpmWorkspace: string | null;
  cargoToml: string | null;
  goWork: string | null;
}

/** The workspace the root declares, or null. pnpm's file wins over package.json (pnpm ignores `workspaces`). */
export function workspaceDecl(root: RootFiles): WorkspaceDecl | null {
  const pnpm = root.pnpmWorkspace === null ? null : yamlStrings(root.pnpmWorkspace, 'packages');
  if (pnpm) return { tool: 'pnpm', evidence: 'pnpm-workspace.yaml', patterns: pnpm, manifest: 'package.json' };
  const declared = root.packageJson?.workspaces;
  const list = Array.isArray(declared) ? declared : (declared as { packages?: unknown } | undefined)?.packages;
  if (Array.isArray(list) && list.length > 0 && list.every((p) => typeof p === 'string')) {
    const tool = root.manager === 'yarn' || root.manager === 'bun' ? root.manager : 'npm';
    return { tool, evidence: 'package.json workspaces', patterns: list as string[], manifest: 'package.json' };
  }
  const members = root.cargoToml === null ? null : tomlStrings(root.cargoToml, 'workspace', 'members');
  if (members) {
    const excluded = tomlStrings(root.cargoToml!, 'workspace', 'exclude') ?? [];
    return { tool: 'cargo', evidence: 'Cargo.toml [workspace]', patterns: [...members, ...excluded.map((e) => `!${e}`)], manifest: 'Cargo.toml' };
  }
  const modules = root.goWork === null ? [] : goWorkUses(root.goWork);
  if (modules.length > 0) return { tool: 'go', evidence: 'go.work', patterns: modules, manifest: 'go.mod' };
  return null;
}

/** The folders of go.work's `use` directives, single or in a block (`use ( ./a ./b )`), comments dropped. */
export function goWorkUses(text: string): string[] {
  const uses: string[] = [];
  let block = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (block) {
      if (line === ')') block = false;
      else if (line !== '') uses.push(unquoteGo(line));
    } else if (/^use\s*\($/.test(line)) {
      block = true;
    } else {
      const single = /^use\s+(\S+)$/.exec(line);
      if (single) uses.push(unquoteGo(single[1]!));
    }
  }
  return uses;
}

function unquoteGo(word: string): string {
  return word.replace(/^(["`])(.*)\1$/, '$2');
}

/**
 * A pattern as a clean relative folder pattern: `./packages/*\/` → `packages/*`; null for one that
 * leaves the root (a `..`). The root itself (`.`, `''`) is never a package: the walk skips it.
 */
function cleanPattern(pattern: string): string | null {
  const clean = pattern
    .replace(/^(\.?\/)+/, '')
    .replace(/\/+$/, '')
    .replace(/\/\*\*\/\*$/, '/**');
  return clean.split('/').includes('..') ? null : clean;
}

export interface FolderLister {
  /** The folders directly in `rel` ('.' for the root). */
  folders(rel: string): Promise<string[]>;
  isFile(rel: string): Promise<boolean>;
}

/**
 * The package folders `decl` names, relative to the root, sorted; a folder without the kind's
 * manifest is not a package. Bounded by WORKSPACE_LIMITS.
 */
export async function workspaceFolders(decl: WorkspaceDecl, repo: FolderLister): Promise<string[]> {
  const include = decl.patterns
    .filter((p) => !p.startsWith('!'))
    .map(cleanPattern)
    .filter((p): p is string => p !== null);
  const exclude = decl.patterns
    .filter((p) => p.startsWith('!'))
    .map((p) => cleanPattern(p.slice(1)))
    .filter((p): p is string => p !== null);
  const found = new Set<string>();
  let visited = 0;
  const walk = async (dir: string, rest: string[], depth: number): Promise<void> => {
    if (found.size >= WORKSPACE_LIMITS.packages || ++visited > WORKSPACE_LIMITS.folders) return;
    if (rest.length === 0) {
      if (dir !== '.' && (await repo.isFile(`${dir}/${decl.manifest}`))) found.add(dir);
      return;
    }
    const [segment, ...after] = rest as [string, ...string[]];
    const join = (name: string) => (dir === '.' ? name : `${dir}/${name}`);
    if (!/[*?[{]/.test(segment)) return walk(join(segment), after, depth + 1);
    if (depth >= WORKSPACE_LIMITS.depth) return;
    const children = (await repo.folders(dir)).filter((name) => !name.startsWith('.') && name !== 'node_modules').sort();
    for (const name of children) {
      if (segment === '**') {
        // `**` is any number of folders, none included.
        await walk(join(name), rest, depth + 1);
      } else if (globMatches(segment, name)) {
        await walk(join(name), after, depth + 1);
      }
    }
    if (segment === '**') await walk(dir, after, depth);
  };
  for (const pattern of include) await walk('.', pattern.split('/'), 0);
  return [...found].filter((dir) => !exclude.some((e) => globMatches(e, dir))).sort();
}
