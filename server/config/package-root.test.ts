import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPackageRoot, PACKAGE_ROOT } from './package-root.ts';
import { tempDir } from '../testing/temp-dir.ts';

describe('package root', () => {
  it('is the nearest folder above a module that holds a package.json, at any depth', () => {
    const root = tempDir();
    try {
      fs.writeFileSync(path.join(root, 'package.json'), '{}');
      const deep = path.join(root, 'dist', 'server', 'engine');
      fs.mkdirSync(deep, { recursive: true });
      expect(findPackageRoot(deep)).toBe(root);
      expect(findPackageRoot(root)).toBe(root);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('is the checkout itself when the server runs from its sources', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string };
    expect(pkg.name).toBe('tilth');
    expect(fs.existsSync(path.join(PACKAGE_ROOT, 'prompts'))).toBe(true);
  });
});
