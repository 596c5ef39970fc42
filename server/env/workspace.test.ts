import { describe, expect, it } from 'vitest';
import { type FolderLister, goWorkUses, WORKSPACE_LIMITS, workspaceDecl, workspaceFolders, type WorkspaceDecl } from './workspace.ts';

/** A repository as a set of files; folders are what the paths imply. */
function lister(files: string[]): FolderLister & { listed: string[] } {
  const listed: string[] = [];
  return {
    listed,
    async folders(rel) {
      listed.push(rel);
      const prefix = rel === '.' ? '' : `${rel}/`;
      const names = new Set<string>();
      for (const f of files) if (f.startsWith(prefix) && f.slice(prefix.length).includes('/')) names.add(f.slice(prefix.length).split('/')[0]!);
      return [...names];
    },
    async isFile(rel) {
      return files.includes(rel);
    },
  };
}

const decl = (patterns: string[], manifest: WorkspaceDecl['manifest'] = 'package.json'): WorkspaceDecl => ({ tool: 'npm', evidence: 'x', patterns, manifest });

describe('workspaceDecl', () => {
  const none = { packageJson: null, manager: null, pnpmWorkspace: null, cargoToml: null, goWork: null };
  it("reads each tool's declaration, pnpm's file first", () => {
    expect(workspaceDecl({ ...none, pnpmWorkspace: 'packages:\n  - a/*\n', packageJson: { workspaces: ['b/*'] } })).toEqual({
      tool: 'pnpm',
      evidence: 'pnpm-workspace.yaml',
      patterns: ['a/*'],
      manifest: 'package.json',
    });
    expect(workspaceDecl({ ...none, pnpmWorkspace: 'catalog:\n  x: 1\n', packageJson: { workspaces: ['b/*'] }, manager: 'bun' })).toMatchObject({
      tool: 'bun',
      patterns: ['b/*'],
    });
    expect(workspaceDecl({ ...none, packageJson: { workspaces: { packages: ['c'] } }, manager: 'yarn' })).toMatchObject({ tool: 'yarn', patterns: ['c'] });
    expect(workspaceDecl({ ...none, packageJson: { workspaces: ['c'] }, manager: 'pnpm' })).toMatchObject({ tool: 'npm' });
    expect(workspaceDecl({ ...none, packageJson: { workspaces: [] } })).toBeNull();
    expect(workspaceDecl({ ...none, packageJson: { workspaces: ['a', 3] } })).toBeNull();
    expect(workspaceDecl({ ...none, packageJson: { workspaces: 'a/*' } })).toBeNull();
    expect(workspaceDecl({ ...none, cargoToml: '[workspace]\nmembers = ["crates/*", "tools/x"]\nexclude = ["crates/old"]\n' })).toEqual({
      tool: 'cargo',
      evidence: 'Cargo.toml [workspace]',
      patterns: ['crates/*', 'tools/x', '!crates/old'],
      manifest: 'Cargo.toml',
    });
    expect(workspaceDecl({ ...none, cargoToml: '[package]\nname = "a"\n' })).toBeNull();
    expect(workspaceDecl({ ...none, goWork: 'go 1.21\nuse ./api\n' })).toEqual({ tool: 'go', evidence: 'go.work', patterns: ['./api'], manifest: 'go.mod' });
    expect(workspaceDecl({ ...none, goWork: 'go 1.21\n' })).toBeNull();
    expect(workspaceDecl(none)).toBeNull();
  });

  it("reads go.work's use lines, single and in blocks, quoted, with comments", () => {
    expect(goWorkUses('go 1.21\n\nuse (\n\t./a // first\n\n\t"./b c"\n\t`./d`\n)\nuse ./e\nuse   ( \n./f\n)\nreplace x => ./y\n// use ./g\n')).toEqual([
      './a',
      './b c',
      './d',
      './e',
      './f',
    ]);
    expect(goWorkUses('use (\n./f\n)\n')).toEqual(['./f']);
    // Only `use` directives, each a single folder.
    expect(goWorkUses('reuse ./x\nuse ./a ./b\nuse  ./two\nuse x"y"\nuse "z"w\nmisuse (\n./no\n)\n')).toEqual(['./two', 'x"y"', '"z"w']);
  });
});

describe('workspaceFolders', () => {
  const files = [
    'packages/package.json',
    'apps/b/package.json',
    'packages/a/package.json',
    'packages/b/package.json',
    'packages/c/README.md',
    'packages/.hidden/package.json',
    'packages/node_modules/x/package.json',
    'apps/web/package.json',
    'apps/deep/one/package.json',
    'apps/deep/one/two/package.json',
    'tools/cli/package.json',
    'package.json',
  ];

  it('expands folders, `*` and `**` (none included) to the folders with the manifest; `!` patterns exclude', async () => {
    expect(await workspaceFolders(decl(['packages/*']), lister(files))).toEqual(['packages/a', 'packages/b']);
    expect(await workspaceFolders(decl(['./apps/**/', '!apps/deep/*']), lister(files))).toEqual(['apps/b', 'apps/deep/one/two', 'apps/web']);
    expect(await workspaceFolders(decl(['apps/**/*']), lister(files))).toEqual(['apps/b', 'apps/deep/one', 'apps/deep/one/two', 'apps/web']);
    expect(await workspaceFolders(decl(['/./packages/a//', '././tools/cli', 'apps/deep/**/*/two']), lister(files))).toEqual([
      'apps/deep/one/two',
      'packages/a',
      'tools/cli',
    ]);
    // An exclusion that is a folder, and one that leaves the root (ignored).
    expect(await workspaceFolders(decl(['packages/*', '!packages/a', '!../x']), lister(files))).toEqual(['packages/b']);
    expect(await workspaceFolders(decl(['tools/cli', 'packages/{a,c}', 'pack*/b']), lister(files))).toEqual(['packages/a', 'packages/b', 'tools/cli']);
    // The root itself, a folder out of the root, an absolute one: never a package.
    expect(await workspaceFolders(decl(['.', '', '../x', '/etc', 'a/../../b', './']), lister(files))).toEqual([]);
    expect(await workspaceFolders(decl(['packages/*'], 'Cargo.toml'), lister(files))).toEqual([]);
  });

  it('stops at its limits: packages, folders visited, depth', async () => {
    const many = Array.from({ length: WORKSPACE_LIMITS.packages + 20 }, (_, i) => `p/n${String(i).padStart(4, '0')}/package.json`);
    expect(await workspaceFolders(decl(['p/*']), lister(many))).toHaveLength(WORKSPACE_LIMITS.packages);
    const deep = [`${Array.from({ length: WORKSPACE_LIMITS.depth + 2 }, (_, i) => `d${i}`).join('/')}/package.json`, 'd0/d1/package.json'];
    expect(await workspaceFolders(decl(['**']), lister(deep))).toEqual(['d0/d1']);
    const wide = lister(Array.from({ length: WORKSPACE_LIMITS.folders + 50 }, (_, i) => `w/f${i}/x/package.json`));
    expect(await workspaceFolders(decl(['w/*/y']), wide)).toEqual([]);
    expect(wide.listed.length).toBeLessThanOrEqual(2);
    // The folders visited are counted: a package past the limit is not found.
    const past = [...Array.from({ length: WORKSPACE_LIMITS.folders }, (_, i) => `w/f${i}/x`), 'w/z/package.json', 'w/f1/package.json'];
    expect(await workspaceFolders(decl(['w/*']), lister(past))).toEqual(['w/f1']);
    // Depth counts literal folders too: a glob below the limit is not expanded.
    const below = Array.from({ length: WORKSPACE_LIMITS.depth }, (_, i) => `l${i}`).join('/');
    expect(await workspaceFolders(decl([`${below}/*`]), lister([`${below}/a/package.json`]))).toEqual([]);
    expect(
      await workspaceFolders(decl([`${below.split('/').slice(1).join('/')}/*`]), lister([`${below.split('/').slice(1).join('/')}/a/package.json`])),
    ).toHaveLength(1);
  });
});
