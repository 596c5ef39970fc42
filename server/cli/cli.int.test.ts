/** The real `tilth` bin as a user runs it: a child process in its own group, killed by group. */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigResponseSchema, SessionListSchema } from '../../shared/api.ts';
import { PACKAGE_ROOT } from '../config/package-root.ts';
import { SessionStore } from '../store/session-store.ts';
import { tempDir } from '../testing/test-app.ts';
import { startTilth } from '../testing/tilth-process.ts';

const BIN = path.join(PACKAGE_ROOT, 'bin', 'tilth.js');
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

function home(): string {
  const dir = tempDir('tilth-cli-');
  homes.push(dir);
  return dir;
}

function runOnce(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 20_000 });
}

describe('tilth serve', () => {
  it('prints the link with its token, serves with it, refuses without it, and stops cleanly on SIGTERM', async () => {
    const TILTH_HOME = home();
    const crashed = new SessionStore(path.join(TILTH_HOME, 'sessions'));
    const leftRunning = crashed.create({ source: '/repo', brief: 'b', baseBranch: 'main', baseSha: 'abc', status: 'running' }).session_id;
    crashed.close();

    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { detached: true, env: { ...process.env, TILTH_HOME } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<URL>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed:\n${out}`)), 15_000);
        child.stdout.on('data', () => {
          const match = /http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+/.exec(out);
          if (match) {
            clearTimeout(timer);
            resolve(new URL(match[0]));
          }
        });
      });
      const token = url.hash.slice('#token='.length);
      expect(token.length).toBeGreaterThanOrEqual(40);
      const api = `${url.origin}/api`;
      expect((await fetch(`${api}/health`)).status).toBe(401);
      const health = await fetch(`${api}/health`, { headers: { authorization: `Bearer ${token}` } });
      expect(health.status).toBe(200);

      // The session a crash left "running" is now stopped, resumable, and says why.
      const list = SessionListSchema.parse(await (await fetch(`${api}/sessions`, { headers: { authorization: `Bearer ${token}` } })).json());
      expect(list.sessions.find((s) => s.id === leftRunning)).toMatchObject({ status: 'stopped', last_stop: 'crash' });
      expect(out).toContain('Marked 1 session(s) stopped');
      // The banner says where sessions live, whether a provider is set, and whether the shell is sandboxed.
      expect(out).toContain(`Sessions: ${path.join(TILTH_HOME, 'sessions')}`);
      expect(out).toContain('Model provider: none configured yet');
      expect(out).toMatch(/Shell sandbox: (on|off)/);

      // A second server on the same sessions folder refuses before touching anything.
      const second = runOnce(['serve', '--port', '0'], { TILTH_HOME });
      expect(second.status).toBe(1);
      expect(second.stderr).toContain(`Another tilth serve (pid ${child.pid}`);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(out).toContain('SIGTERM: stopping Tilth');
  });

  it('offers the repository it was started in as the default workspace, and none when started outside one', async () => {
    const repo = home();
    spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
    fs.mkdirSync(path.join(repo, 'src'));
    const outside = home();
    // The temp folder must not count as inside some repository further up.
    const env = { GIT_CEILING_DIRECTORIES: path.dirname(outside) };
    for (const [cwd, expected] of [
      [path.join(repo, 'src'), fs.realpathSync(repo)],
      [outside, null],
    ] as const) {
      const server = await startTilth({ home: home(), cwd, env });
      try {
        const { body } = await server.api('GET', '/api/config');
        expect(ConfigResponseSchema.parse(body).default_workspace).toBe(expected);
        if (expected) expect(server.output()).toContain(`Default workspace: ${expected}`);
        else expect(server.output()).not.toContain('Default workspace');
      } finally {
        await server.stop();
      }
    }
  });

  it('lists every configuration problem at once and exits 2', () => {
    const result = runOnce(['serve', '--port', 'eighty'], { TILTH_HOME: home(), TILTH_MAX_TOKENS: 'lots', TILTH_MAX_DOLLARS: '-3' });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/3 problem\(s\)/);
    expect(result.stderr).toMatch(/TILTH_PORT \(from flag\) must be a whole number/);
    expect(result.stderr).toMatch(/TILTH_MAX_TOKENS \(from environment\)/);
    expect(result.stderr).toMatch(/TILTH_MAX_DOLLARS \(from environment\)/);
  });

  it('stops at start, exit 2, with one sentence naming TILTH_TOKEN when the pinned token is too short', () => {
    const short = runOnce(['serve', '--port', '0'], { TILTH_HOME: home(), TILTH_TOKEN: 'x' });
    expect(short.status).toBe(2);
    expect(short.stdout).not.toContain('Tilth is running');
    expect(short.stderr).toContain(
      'TILTH_TOKEN (from environment) is 1 character long, too short to keep other pages out; use at least 16 (e.g. the output of `openssl rand -hex 24`, or unset it to use the token Tilth keeps in $TILTH_HOME/token)',
    );
  }, 60_000);

  it('stops at start, exit 2, with one sentence naming TILTH_TOKEN when the pinned token has a character that cannot travel, never repeating it', () => {
    const spaced = runOnce(['serve', '--port', '0'], { TILTH_HOME: home(), TILTH_TOKEN: 'one with a space in it' });
    expect(spaced.status).toBe(2);
    expect(spaced.stdout).not.toContain('Tilth is running');
    expect(spaced.stderr).toMatch(
      /1 problem\(s\):\n {2}- TILTH_TOKEN \(from environment\) has a space, which cannot travel unchanged in the link, the cookie and the Authorization header; use only letters, digits and \. _ ~ -/,
    );
    expect(spaced.stderr).not.toContain('one with a space in it');
  }, 60_000);

  it("started in Tilth's own checkout, it offers no default workspace (the checkout is not what a user means to work on)", async () => {
    const server = await startTilth({ home: home() });
    try {
      expect(server.output()).not.toContain('Default workspace:');
      const config = ConfigResponseSchema.parse((await server.api('GET', '/api/config')).body);
      expect(config.default_workspace).toBeNull();
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('`tilth token` prints the link to reopen the running server, with the port it really took (--port 0)', async () => {
    const h = home();
    const sessions = path.join(h, 'sessions');
    const none = runOnce(['token'], { TILTH_HOME: h, TILTH_SESSIONS_DIR: sessions });
    expect(none.stdout).toContain(`No tilth serve is running for ${sessions}`);
    const server = await startTilth({ home: h });
    try {
      const out = runOnce(['token'], { TILTH_HOME: h, TILTH_SESSIONS_DIR: sessions });
      expect(out.status, out.stderr).toBe(0);
      expect(out.stdout).toContain(`The access token is kept in ${path.join(h, 'token')}`);
      expect(out.stdout).toContain(`Tilth is running; open this link (it carries your access token):\n\n  ${server.url}\n`);
      expect(server.port).not.toBe(0);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('signs in with a pinned token of every allowed kind of character, by the link, the cookie and the header', async () => {
    const token = 'Pinned.token~with-all_kinds09';
    const server = await startTilth({ home: home(), env: { TILTH_TOKEN: token } });
    try {
      expect(server.url).toMatch(new RegExp(`#token=${token.replaceAll('.', '\\.')}$`));
      expect(server.token).toBe(token);
      expect((await server.api('GET', '/api/health')).status).toBe(200);
      // What the page does with the link's fragment: trade it for the cookie, then use that.
      const fragment = new URLSearchParams(new URL(server.url).hash.slice(1)).get('token');
      expect(fragment).toBe(token);
      const traded = await fetch(`${server.origin}/api/auth`, {
        method: 'POST',
        headers: { origin: server.origin, 'content-type': 'application/json' },
        body: JSON.stringify({ token: fragment }),
      });
      expect(traded.status).toBe(200);
      const cookie = traded.headers.get('set-cookie')!.split(';')[0]!;
      expect((await fetch(`${server.origin}/api/health`, { headers: { cookie } })).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('refuses a non-loopback host that was not given as a flag', () => {
    const result = runOnce(['serve', '--port', '0'], { TILTH_HOME: home(), TILTH_HOST: '0.0.0.0' });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/pass --host 0\.0\.0\.0 explicitly/);
  });

  it('rejects an unknown flag with usage', () => {
    const result = runOnce(['serve', '--prot', '1'], { TILTH_HOME: home() });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/Unknown option '--prot'/);
    expect(result.stderr).toMatch(/Usage:/);
  });

  it('prints the resolved configuration with sources, a key only as "set"', () => {
    const result = runOnce(['config'], {
      TILTH_HOME: home(),
      TILTH_API_KEY: 'sk-very-secret-value-42',
      TILTH_BASE_URL: 'http://127.0.0.1:1/v1',
      TILTH_WORKER_MODEL: 'm',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/TILTH_API_KEY\s+set\s+env/);
    expect(result.stdout).not.toContain('sk-very');
    expect(result.stdout).toMatch(/TILTH_MAX_DOLLARS\s+10\s+default/);
  });

  it('prints what the settings page saved to config.json, and says when the environment overrides it', () => {
    const dir = home();
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({
        TILTH_MAX_DOLLARS: '3',
        TILTH_WORKER_MODEL: 'from-file',
        TILTH_BASE_URL: 'http://127.0.0.1:1/v1',
        TILTH_API_KEY: 'sk-saved-in-the-file-1',
      }),
      { mode: 0o600 },
    );
    const result = runOnce(['config'], { TILTH_HOME: dir, TILTH_WORKER_MODEL: 'from-env' });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/TILTH_MAX_DOLLARS\s+3\s+file/);
    expect(result.stdout).toMatch(/TILTH_API_KEY\s+set\s+file/);
    expect(result.stdout).toMatch(/TILTH_WORKER_MODEL\s+from-env\s+env\s+\(overrides config\.json: from-file\)/);
    expect(result.stdout).not.toContain('sk-saved');
  });
});
