import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EnvPlan } from '../../shared/files.ts';
import { worktreeView } from '../proof/test-machinery.ts';
import { tempDir } from '../testing/temp-dir.ts';
import {
  changedInstalled,
  dependencyMessage,
  fingerprintFolder,
  fingerprintInstalled,
  guardDependencies,
  installedInPlace,
  strayDependencyDirs,
} from './dependency-guard.ts';
import { linkPlanned } from './provision.ts';

const PLAN: EnvPlan = { node_modules_from: null, install: null, venv: null, python_path: [], setup: null };
const SETUP = { command: 'make setup', origin: 'committed' as const };

let source: string;
let worktree: string;

beforeEach(() => {
  source = tempDir('tilth-guard-src-');
  worktree = tempDir('tilth-guard-wt-');
});
afterEach(() => {
  fs.rmSync(source, { recursive: true, force: true });
  fs.rmSync(worktree, { recursive: true, force: true });
});

function write(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

describe('strayDependencyDirs', () => {
  const found = ['node_modules', 'packages/a/node_modules', 'test/node_modules', '.venv', 'tools/venv'];

  it("keeps the plan's node_modules folders (the root's, each workspace package's) and names every other one and every virtualenv", () => {
    expect(strayDependencyDirs({ ...PLAN, workspace_packages: ['packages/a'] }, found, new Set())).toEqual(['test/node_modules', '.venv', 'tools/venv']);
    expect(strayDependencyDirs(PLAN, found, new Set())).toEqual(['packages/a/node_modules', 'test/node_modules', '.venv', 'tools/venv']);
  });

  it('keeps a virtualenv when a setup command ran (it is the only step that makes one in the worktree)', () => {
    expect(strayDependencyDirs({ ...PLAN, setup: SETUP }, found, new Set())).toEqual(['packages/a/node_modules', 'test/node_modules']);
  });

  it('keeps a folder the base commit tracks files in, and only that folder', () => {
    const base = new Set(['test/node_modules/fixture/index.js', 'tools/venvs.txt', 'src/a.js']);
    expect(strayDependencyDirs(PLAN, found, base)).toEqual(['packages/a/node_modules', '.venv', 'tools/venv']);
  });

  it('names nothing when nothing was found', () => {
    expect(strayDependencyDirs(PLAN, [], new Set(['a']))).toEqual([]);
  });
});

describe('guardDependencies', () => {
  function checkoutInstall(): string {
    const nm = path.join(source, 'node_modules');
    write(path.join(nm, 'vitest', 'index.js'), 'export const expect = "real";\n');
    write(path.join(nm, '.bin', 'vitest'), '#!/bin/sh\necho real\n');
    return nm;
  }

  it("links back what stood in place of the checkout's packages, naming it, and leaves the worktree as the plan made it", () => {
    const plan = { ...PLAN, node_modules_from: checkoutInstall() };
    linkPlanned(plan, worktree);
    const own = path.join(worktree, 'node_modules');
    fs.unlinkSync(path.join(own, 'vitest'));
    write(path.join(own, 'vitest', 'index.js'), 'export const expect = () => ({ toBe() {} });\n');
    fs.unlinkSync(path.join(own, '.bin'));
    write(path.join(own, '.bin', 'vitest'), '#!/bin/sh\necho all passed\n');
    const found = worktreeView(worktree).dependencyDirs;
    expect(found).toEqual(['node_modules']);
    expect(guardDependencies(plan, worktree, found, new Set())).toEqual({ replaced: ['node_modules/.bin', 'node_modules/vitest'], stray: [] });
    expect(fs.readFileSync(path.join(own, 'vitest', 'index.js'), 'utf8')).toBe('export const expect = "real";\n');
    expect(fs.readlinkSync(path.join(own, '.bin'))).toBe(path.join(source, 'node_modules', '.bin'));
    // Once put back, nothing is found again.
    expect(guardDependencies(plan, worktree, found, new Set())).toEqual({ replaced: [], stray: [] });
  });

  it('names a node_modules nearer the tests and a virtualenv the worker made, as the worktree walk finds them', () => {
    const plan = { ...PLAN, node_modules_from: checkoutInstall() };
    linkPlanned(plan, worktree);
    write(path.join(worktree, 'test', 'node_modules', 'vitest', 'index.js'), 'fake\n');
    write(path.join(worktree, '.venv', 'pyvenv.cfg'), 'home = /usr/bin\n');
    write(path.join(worktree, '.venv', 'bin', 'python3'), '#!/bin/sh\n');
    const found = worktreeView(worktree).dependencyDirs.sort();
    expect(found).toEqual(['.venv', 'node_modules', 'test/node_modules']);
    expect(guardDependencies(plan, worktree, found, new Set())).toEqual({ replaced: [], stray: ['.venv', 'test/node_modules'] });
  });

  it('links nothing when a setup command made the packages in place, or when the plan links none', () => {
    const from = checkoutInstall();
    write(path.join(worktree, 'node_modules', 'vitest', 'index.js'), 'made by the setup\n');
    expect(guardDependencies({ ...PLAN, node_modules_from: from, setup: SETUP }, worktree, ['node_modules'], new Set())).toEqual({ replaced: [], stray: [] });
    expect(guardDependencies(PLAN, worktree, ['node_modules'], new Set())).toEqual({ replaced: [], stray: [] });
    expect(fs.readFileSync(path.join(worktree, 'node_modules', 'vitest', 'index.js'), 'utf8')).toBe('made by the setup\n');
  });
});

describe('the packages an install or a setup made in the worktree', () => {
  const INSTALL = { package_manager: 'npm' as const, lockfile: 'package-lock.json' };

  it('are the real node_modules folders of the plan after an install, and the virtualenvs too after a setup; none when they are linked', () => {
    write(path.join(worktree, 'node_modules', 'a', 'index.js'), '');
    write(path.join(worktree, 'packages', 'p', 'node_modules', 'b', 'index.js'), '');
    write(path.join(worktree, '.venv', 'pyvenv.cfg'), '');
    write(path.join(worktree, 'venv', 'bin', 'python'), ''); // no pyvenv.cfg: not a virtualenv
    const workspace = { workspace_packages: ['packages/p', 'packages/q'] };
    expect(installedInPlace({ ...PLAN, install: INSTALL, ...workspace }, worktree)).toEqual(['node_modules', 'packages/p/node_modules']);
    expect(installedInPlace({ ...PLAN, setup: SETUP }, worktree)).toEqual(['node_modules', '.venv']);
    expect(installedInPlace({ ...PLAN, node_modules_from: '/elsewhere/node_modules' }, worktree)).toEqual([]);
    expect(installedInPlace(PLAN, worktree)).toEqual([]);
    fs.rmSync(path.join(worktree, 'node_modules'), { recursive: true });
    fs.symlinkSync(source, path.join(worktree, 'node_modules'));
    expect(installedInPlace({ ...PLAN, setup: SETUP }, worktree)).toEqual(['.venv']);
  });

  it('have a fingerprint that changes with any file, link or mode, and not with what runs write (tool caches, bytecode)', () => {
    const nm = path.join(worktree, 'node_modules');
    write(path.join(nm, 'vitest', 'index.js'), 'export const expect = "real";\n');
    write(path.join(nm, '.bin', 'tool'), '#!/bin/sh\n');
    fs.symlinkSync('../vitest/index.js', path.join(nm, '.bin', 'vitest'));
    const first = fingerprintFolder(worktree, 'node_modules');
    expect(fingerprintFolder(worktree, 'node_modules')).toBe(first);
    write(path.join(nm, '.vite', 'vitest', 'results.json'), '{}');
    write(path.join(nm, '.cache', 'x'), '');
    write(path.join(nm, 'vitest', '__pycache__', 'x.cpython-311.pyc'), '');
    write(path.join(nm, 'vitest', 'y.pyc'), '');
    expect(fingerprintFolder(worktree, 'node_modules')).toBe(first);
    const changes: (() => void)[] = [
      // The same size, written again: its change time moves.
      () => fs.writeFileSync(path.join(nm, 'vitest', 'index.js'), 'export const expect = "fake";\n'),
      () => write(path.join(nm, 'vitest', 'extra.js'), ''),
      () => fs.chmodSync(path.join(nm, '.bin', 'tool'), 0o755),
      () => {
        fs.unlinkSync(path.join(nm, '.bin', 'vitest'));
        fs.symlinkSync('../elsewhere.js', path.join(nm, '.bin', 'vitest'));
      },
      () => fs.rmSync(path.join(nm, 'vitest', 'extra.js')),
      () => fs.mkdirSync(path.join(nm, 'vitest', 'sub')),
    ];
    const seen = new Set([first]);
    for (const change of changes) {
      change();
      const print = fingerprintFolder(worktree, 'node_modules');
      expect(seen.has(print)).toBe(false);
      seen.add(print);
    }
    // Tool caches are left out only at the top of a node_modules.
    const before = fingerprintFolder(worktree, 'node_modules');
    write(path.join(nm, 'vitest', '.cache', 'x'), '');
    expect(fingerprintFolder(worktree, 'node_modules')).not.toBe(before);
    // In a virtualenv, a folder named like a tool cache counts.
    write(path.join(worktree, '.venv', '.cache', 'x'), '');
    const venv = fingerprintFolder(worktree, '.venv');
    write(path.join(worktree, '.venv', '.cache', 'y'), '');
    expect(fingerprintFolder(worktree, '.venv')).not.toBe(venv);
  });

  it('are recorded per folder, and a folder that changed or is gone is named', () => {
    write(path.join(worktree, 'node_modules', 'a', 'index.js'), 'a');
    write(path.join(worktree, '.venv', 'pyvenv.cfg'), '');
    write(path.join(worktree, '.venv', 'bin', 'python3'), '#!/bin/sh\n');
    const recorded = fingerprintInstalled({ ...PLAN, setup: SETUP }, worktree);
    expect(Object.keys(recorded)).toEqual(['node_modules', '.venv']);
    expect(changedInstalled(recorded, worktree)).toEqual([]);
    write(path.join(worktree, '.venv', 'bin', 'python3'), '#!/bin/sh\necho passed\n');
    expect(changedInstalled(recorded, worktree)).toEqual(['.venv']);
    fs.rmSync(path.join(worktree, 'node_modules'), { recursive: true });
    expect(changedInstalled(recorded, worktree)).toEqual(['node_modules', '.venv']);
    expect(fingerprintInstalled(PLAN, worktree)).toEqual({});
  });
});

describe('dependencyMessage', () => {
  it('says what was put back, what to remove and how, and how to add a dependency instead', () => {
    const both = dependencyMessage({ replaced: ['node_modules/.bin'], stray: ['test/node_modules', '.venv'] }, false);
    expect(both).toContain('These entries of node_modules were not the packages the user installed: node_modules/.bin.');
    expect(both).toContain('a test run would load them before it: test/node_modules, .venv. Remove them (rm -rf test/node_modules; rm -rf .venv).');
    expect(both).toMatch(/To add a dependency, add it to the manifest .* the user installs it\.$/);
    const during = dependencyMessage({ replaced: ['node_modules/vitest'], stray: [] }, true);
    expect(during).toContain('were replaced while the checks ran: node_modules/vitest.');
    expect(during).not.toContain('Remove them');
    expect(dependencyMessage({ replaced: [], stray: ['x/node_modules'] }, false)).not.toContain('linked the user');
    const remade = dependencyMessage({ replaced: [], stray: [], remade: ['node_modules', '.venv'], problem: null }, false);
    expect(remade).toContain(
      'These folders of installed packages changed after the install or setup made them: node_modules, .venv. Tilth removed them and ran the step that makes them again. The tests run',
    );
    expect(dependencyMessage({ replaced: ['node_modules/a', 'node_modules/b'], stray: [], remade: [] }, false)).toMatch(
      /^These entries of node_modules were not the packages the user installed: node_modules\/a, node_modules\/b\. .*\n\nMake the code pass/s,
    );
    expect(remade).not.toContain('linked the user');
    expect(dependencyMessage({ replaced: [], stray: [], remade: ['node_modules'], problem: 'npm ci exited with 1' }, true)).toContain(
      'changed while the checks ran: node_modules. Tilth removed them and ran the step that makes them again; that failed: npm ci exited with 1. The tests',
    );
  });
});
