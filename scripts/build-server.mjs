#!/usr/bin/env node
// `npm run build:server`: the server bundled into dist/server/ (scripts/server-bundle.mjs), so the
// packaged `tilth` needs neither a TypeScript loader nor a bundler at run time, and starts by
// reading a few files rather than every module. Types are checked by `npm run typecheck`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleServer } from './server-bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await bundleServer(root, path.join(root, 'dist', 'server'));
