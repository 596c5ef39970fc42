/**
 * The folder Tilth runs from: a checkout, or `node_modules/tilth` of an installed package. Files
 * read at run time (package.json, prompts/, examples/, the built web app in dist/web/) are found
 * from here, not from each module's own location, because a module sits at a different depth in
 * the two layouts: `server/cli/serve.ts` in a checkout, `dist/server/start.js` in the package.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder at or above `from` that holds a package.json. */
export function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json in ${from} or any folder above it`);
  }
}

export const PACKAGE_ROOT = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));
/** The built SPA (index.html + assets): `vite build` writes it, the package carries it. */
export const WEB_ROOT = path.join(PACKAGE_ROOT, 'dist', 'web');
