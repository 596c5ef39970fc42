#!/usr/bin/env node
// A checkout (it has server/cli.ts) runs a bundle of its own sources, made again whenever one of
// them changed (scripts/server-bundle.mjs), so `npx tilth serve` in a clone starts as fast as the
// installed package and still runs what you are editing. Without esbuild (a checkout installed
// without its dev dependencies) it runs the sources through tsx. The package carries no sources:
// only the bundle `npm run build` made in dist/server/, which needs no build tools at run time.
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The bundles carry source maps; Node reads them only when asked (NODE_OPTIONS=--enable-source-maps,
// then stack traces name the TypeScript sources): reading 3 MB of maps would slow every launch.

const sources = new URL('../server/cli.ts', import.meta.url);
if (!fs.existsSync(sources)) {
  await import('../dist/server/cli.js');
} else {
  let entry = null;
  try {
    const { freshBundle } = await import('../scripts/server-bundle.mjs');
    entry = await freshBundle(fileURLToPath(new URL('..', import.meta.url)));
  } catch (err) {
    console.warn(`tilth: running the sources through tsx; they could not be bundled (${err instanceof Error ? err.message : String(err)})`);
  }
  if (entry !== null) {
    await import(pathToFileURL(entry).href);
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    await import(sources.href);
  }
}
