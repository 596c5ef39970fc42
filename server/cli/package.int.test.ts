/**
 * Tilth as a user installs it: `npm pack` (its prepack builds the web app and the server), the
 * tarball installed into an empty prefix the way `npm install -g ./tilth-*.tgz` would (production
 * dependencies only), and the installed `tilth serve` started inside another repository.
 *
 * The pack runs in a copy of this checkout's files (tracked and not ignored, as a clone would
 * have them, with node_modules linked), not in the checkout: its build rewrites dist/, and other
 * test files serve the checkout's dist/web while this one runs. Slow — a full build and an
 * install from the registry (npm's own cache makes repeats quick) — hence the long timeouts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigResponseSchema, HealthSchema, SessionDetailSchema } from '../../shared/api.ts';
import { PACKAGE_ROOT } from '../config/package-root.ts';
import { tempDir } from '../testing/temp-dir.ts';
import { startTilth, type TilthProcess } from '../testing/tilth-process.ts';

const CHECKOUT = PACKAGE_ROOT;
const SLOW = 300_000;

const temps: string[] = [];
function temp(prefix: string): string {
  const dir = tempDir(prefix);
  temps.push(dir);
  return dir;
}

/**
 * npm as a user's shell would run it. Under `npm test` npm passes its own settings down in
 * npm_* variables; the ones that name a prefix or a running script would point these commands
 * at the checkout instead of the folder they are run in.
 */
function npm(args: string[], cwd: string) {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_(lifecycle_|package_|config_(local_)?prefix$|config_global$)/i.test(key)) env[key] = value;
  }
  return execa('npm', [...args, '--no-audit', '--no-fund'], { cwd, env, extendEnv: false, timeout: 240_000, all: true });
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile());
}

/** A throwaway repository with a subfolder to start from; its root, as git reports it. */
function userRepo(): { root: string; sub: string } {
  const root = fs.realpathSync(temp('tilth-user-repo-'));
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
  const sub = path.join(root, 'src');
  fs.mkdirSync(sub);
  fs.writeFileSync(path.join(sub, 'notes.txt'), 'nothing here\na needle in the notes\n');
  return { root, sub };
}

let prefix = '';
let installed = '';
let installLog = '';

beforeAll(async () => {
  const stage = temp('tilth-pack-stage-');
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: CHECKOUT, encoding: 'utf8' });
  for (const file of listed.split('\0')) {
    // node_modules can be a symlink, which a "node_modules/" ignore rule does not match.
    if (file === '' || file === 'node_modules') continue;
    const from = path.join(CHECKOUT, file);
    if (!fs.lstatSync(from, { throwIfNoEntry: false })?.isFile()) continue; // deleted, not yet committed
    fs.mkdirSync(path.dirname(path.join(stage, file)), { recursive: true });
    fs.copyFileSync(from, path.join(stage, file));
  }
  fs.symlinkSync(fs.realpathSync(path.join(CHECKOUT, 'node_modules')), path.join(stage, 'node_modules'));

  const out = temp('tilth-pack-out-');
  const pack = await npm(['pack', '--pack-destination', out], stage).catch((err: unknown) => {
    throw new Error(`npm pack failed:\n${(err as { all?: string }).all ?? String(err)}`);
  });
  const tarballs = fs.readdirSync(out).filter((f) => f.endsWith('.tgz'));
  expect(tarballs, pack.all).toHaveLength(1);

  prefix = temp('tilth-prefix-');
  const install = await npm(['install', '--prefer-offline', '--prefix', prefix, path.join(out, tarballs[0]!)], prefix).catch((err: unknown) => {
    throw new Error(`installing the tarball failed (is the npm registry reachable?):\n${(err as { all?: string }).all ?? String(err)}`);
  });
  installLog = install.all ?? '';
  installed = path.join(prefix, 'node_modules', 'tilth');
}, SLOW);

afterAll(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The installed `tilth serve`, started in `cwd`, with no provider from the environment. */
function serveInstalled(cwd: string, args: string[] = []): Promise<TilthProcess> {
  return startTilth({
    bin: path.join(prefix, 'node_modules', '.bin', 'tilth'),
    cwd,
    home: temp('tilth-pack-home-'),
    args,
    // No loader inherited from the test runner, and no provider from the environment.
    env: { NODE_OPTIONS: '', TILTH_BASE_URL: '', TILTH_API_KEY: '', TILTH_WORKER_MODEL: '' },
  });
}

describe('the packed tilth', () => {
  it('warns of no engine on the Node the README names but the two Fastify dependencies the README lists', () => {
    // A checkout's \`npm ci\` pins versions of these that declare Node 20 (package.json's
    // overrides); an installed package cannot pin its dependencies' dependencies, so npm warns.
    // They work on Node 20: this suite runs the installed server on it.
    const warned = [...installLog.matchAll(/EBADENGINE\s+package: '([^@']+)@/g)].map((m) => m[1]);
    const listed = process.versions.node.startsWith('20.') ? ['content-disposition', 'cookie'] : [];
    expect(warned.filter((name) => !listed.includes(name!))).toEqual([]);
  });

  it('carries the bundled server with its source maps, the built web app, the prompts and the demo example, and no TypeScript sources or tests', () => {
    const files = filesUnder(installed);
    expect(files.filter((f) => /\.(ts|tsx|mts|cts)$/.test(f))).toEqual([]);
    expect(files.filter((f) => /\.test\.|\.spec\./.test(f) && !f.startsWith(path.join('examples', 'js-todo')))).toEqual([]);
    expect(fs.existsSync(path.join(installed, 'server'))).toBe(false);
    expect(fs.existsSync(path.join(installed, 'web'))).toBe(false);
    expect(fs.existsSync(path.join(installed, 'dist', 'server', 'cli.js.map'))).toBe(true);
    for (const file of [
      'bin/tilth.js',
      'dist/server/cli.js',
      'dist/server/grep-worker.mjs',
      'dist/web/index.html',
      'prompts/interview.md',
      'prompts/worker.md',
      'examples/js-todo/src/todo.js',
    ]) {
      expect(files, file).toContain(path.normalize(file));
    }
  });

  it('installs production dependencies only: no TypeScript loader, Vite, TypeScript or React', () => {
    for (const name of ['tsx', 'vite', 'typescript', 'esbuild', 'react', 'vitest']) {
      expect(fs.existsSync(path.join(prefix, 'node_modules', name)), name).toBe(false);
    }
    expect(fs.existsSync(path.join(prefix, 'node_modules', 'fastify'))).toBe(true);
  });

  it('serves the API and the web app from inside another repository, which it offers as the default workspace', async () => {
    const repo = userRepo();
    const server = await serveInstalled(repo.sub);
    try {
      const health = await server.api('GET', '/api/health');
      expect(health.status).toBe(200);
      const version = (JSON.parse(fs.readFileSync(path.join(CHECKOUT, 'package.json'), 'utf8')) as { version: string }).version;
      expect(HealthSchema.parse(health.body)).toMatchObject({ ok: true, name: 'tilth', version });

      const page = await fetch(`${server.origin}/`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('<div id="root">');
      const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script, html).toBeDefined();
      expect((await fetch(`${server.origin}${script}`)).status).toBe(200);

      const config = ConfigResponseSchema.parse((await server.api('GET', '/api/config')).body);
      expect(config.default_workspace).toBe(repo.root);
      expect(server.output()).toContain(`Default workspace: ${repo.root}`);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('runs demo mode from the packaged prompts and example: the interview reaches its first question', async () => {
    const server = await serveInstalled(temp('tilth-pack-cwd-'), ['--demo']);
    try {
      for (let i = 0; i < 200 && !/Demo session/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 50));
      const id = /Demo session (\S+) started/.exec(server.output())?.[1];
      expect(id, server.output()).toBeDefined();
      let pending = null;
      for (let i = 0; i < 150 && pending === null; i++) {
        await new Promise((r) => setTimeout(r, 200));
        pending = SessionDetailSchema.parse((await server.api('GET', `/api/sessions/${id}`)).body).interview?.pending ?? null;
      }
      expect(pending?.text, server.output()).toBe('Which field should a todo gain?');
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('finds every file the bundle loads by URL beside the module that names it (the grep worker thread)', () => {
    const dir = path.join(installed, 'dist', 'server');
    const named = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .flatMap((f) => [...fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/new URL\("(\.\/[^"]+)",\s*import\.meta\.url\)/g)].map((m) => m[1]!));
    expect(named).toContain('./grep-worker.mjs');
    for (const file of named) expect(fs.existsSync(path.join(dir, file)), file).toBe(true);
  });
});
