#!/usr/bin/env node
// One rule: the TypeScript sources run when they are here, the build runs when they are not.
// A checkout has server/cli.ts, so `npx tilth serve` (and `npm link`) runs what you are editing,
// through tsx, with no build step and no stale build to trip over. The package carries no
// sources, only the server `npm run build` compiled to dist/, so an installed `tilth` runs plain
// JavaScript on production dependencies alone.
import fs from 'node:fs';

const sources = new URL('../server/cli.ts', import.meta.url);
if (fs.existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
} else {
  await import('../dist/server/cli.js');
}
