// The server as a bundle (issue 32): server/cli.ts with everything it imports, dependencies
// included, in a few files of plain JavaScript. Node then reads, links and compiles a handful of
// modules at launch instead of about a thousand, which was most of the start: `tilth serve`
// answered its first request after ~1 s where a bare Node server takes 0.1 s. What a launch does
// not need at once is imported where it is used (`await import(...)`), and esbuild puts it in a
// chunk of its own that is read only then.
//
// Used by `npm run build:server` (dist/server/, what the package carries) and by bin/tilth.js in
// a checkout (dist/dev-server/, rebuilt when a source changed: freshBundle).
import fs from 'node:fs';
import path from 'node:path';

/**
 * Loaded by path or spawned, never bundled: the queue's BullMQ and ioredis (which read their own
 * files), Vite (builds the web app on a checkout's first start), the TypeScript tools.
 */
const EXTERNAL = ['bullmq', 'ioredis', 'vite', 'tsx', 'esbuild', 'typescript', '@playwright/test', 'playwright'];
/** Plain JavaScript modules the server loads by URL beside their caller (the grep worker thread). */
const BY_URL = ['server/tools/grep-worker.mjs'];

/** Bundles the server into `outdir` (emptied first); the esbuild metafile's inputs, relative to `root`. */
export async function bundleServer(root, outdir) {
  const esbuild = await import('esbuild');
  fs.rmSync(outdir, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['server/cli.ts'],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    external: EXTERNAL,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'error',
    chunkNames: 'chunk-[hash]',
    // A third less to read and parse at launch; names are kept, so stacks and `error.name` read
    // as in the sources (and the source maps map them back).
    minifyWhitespace: true,
    minifySyntax: true,
    // CommonJS dependencies call require() for Node's own modules: ESM has none, so one is made.
    banner: { js: "import { createRequire as tilthCreateRequire } from 'node:module';\nconst require = tilthCreateRequire(import.meta.url);" },
  });
  for (const file of BY_URL) fs.copyFileSync(path.join(root, file), path.join(outdir, path.basename(file)));
  return Object.keys(result.metafile.inputs);
}

/** What a bundle was made from: each source's size and modification time, and the installed packages'. */
function stamps(root, inputs) {
  const files = [...inputs.filter((f) => !f.includes('node_modules/')), ...BY_URL, 'node_modules/.package-lock.json'];
  const out = {};
  for (const file of files) {
    const stat = fs.statSync(path.join(root, file), { throwIfNoEntry: false });
    out[file] = stat ? `${stat.size}:${stat.mtimeMs}` : 'missing';
  }
  return out;
}

/**
 * The path of a bundle of this checkout's server as its sources are now: the last one when nothing
 * it was made from changed, else a new one. Each build goes to a folder of its own and
 * `current.json` names the latest, so a server still running from an older build keeps its lazy
 * chunks, and two launches building at once each get a whole build. Builds older than a day
 * are removed.
 */
export async function freshBundle(root) {
  const home = path.join(root, 'dist', 'dev-server');
  const pointer = path.join(home, 'current.json');
  let current = null;
  try {
    current = JSON.parse(fs.readFileSync(pointer, 'utf8'));
  } catch {
    // none yet, or half of one from a killed build: build again
  }
  if (current && typeof current.build === 'string' && current.stamps) {
    const entry = path.join(home, current.build, 'cli.js');
    const now = stamps(root, Object.keys(current.stamps));
    if (fs.existsSync(entry) && Object.entries(current.stamps).every(([file, stamp]) => now[file] === stamp)) return entry;
  }
  const build = `b-${Date.now().toString(36)}-${process.pid}`;
  const inputs = await bundleServer(root, path.join(home, build));
  const tmp = `${pointer}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ build, stamps: stamps(root, inputs) }));
  fs.renameSync(tmp, pointer);
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of fs.readdirSync(home)) {
    const dir = path.join(home, name);
    if (name === build || !name.startsWith('b-')) continue;
    if (fs.statSync(dir).mtimeMs < dayAgo) fs.rmSync(dir, { recursive: true, force: true });
  }
  return path.join(home, build, 'cli.js');
}
