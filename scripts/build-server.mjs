#!/usr/bin/env node
// `npm run build:server`: server/ and shared/ as plain JavaScript under dist/ (tsconfig.build.json),
// so the packaged `tilth` needs neither a TypeScript loader nor Vite at run time. The folders are
// emptied first: a module deleted from the sources must not live on in the build.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
for (const dir of ['server', 'shared']) fs.rmSync(path.join(dist, dir), { recursive: true, force: true });

const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);

// Plain JavaScript modules the server loads by URL beside their caller (the grep worker thread):
// tsc does not emit them, so they are copied to the same place in the build.
for (const file of fs.readdirSync(path.join(root, 'server'), { recursive: true, encoding: 'utf8' })) {
  if (!file.endsWith('.mjs') || file.includes('.test.')) continue;
  const to = path.join(dist, 'server', file);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(path.join(root, 'server', file), to);
}
