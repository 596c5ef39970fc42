import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../store/session-store.ts';
import { ConfigError, describeConfig, loadConfig, storeOptionsOf } from './config.ts';
import { tempDir } from '../testing/test-app.ts';

let home: string;
beforeEach(() => {
  home = tempDir();
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

const worker = { TILTH_BASE_URL: 'http://127.0.0.1:9/v1', TILTH_API_KEY: 'sk-test-1234567890', TILTH_WORKER_MODEL: 'w' };

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('starts with no provider and documented defaults, each marked as default', () => {
    const config = loadConfig({ env: {}, home });
    expect(config.roles).toEqual({});
    expect(config.caps).toEqual({
      max_iterations_per_task: 32,
      max_wall_clock_minutes: 120,
      max_tokens: 2_000_000,
      max_dollars: 10,
      max_evaluator_calls_per_task: 0,
    });
    expect(config.sessionsDir).toBe(path.join(home, 'sessions'));
    expect(config.host).toBe('127.0.0.1');
    expect(config.values.TILTH_MAX_TOKENS.source).toBe('default');
  });

  it("gives the sessions' store a sandbox in the configured mode that hides the home (the keys) and the sessions", () => {
    const auto = new SessionStore(loadConfig({ env: {}, home }).sessionsDir, storeOptionsOf(loadConfig({ env: {}, home })));
    expect(auto.sandbox).toEqual({ mode: 'auto', hide: [path.join(home, 'sessions'), home] });
    expect(auto.session('20260101-000000-abcdef').sandbox).toBe(auto.sandbox);
    const off = loadConfig({ env: { TILTH_SANDBOX: 'off', TILTH_SESSIONS_DIR: path.join(home, 'elsewhere', '..', 'kept') }, home });
    expect(new SessionStore(off.sessionsDir, storeOptionsOf(off)).sandbox).toEqual({ mode: 'off', hide: [path.join(home, 'kept'), home] });
    expect(new SessionStore(path.join(home, 'bare')).sandbox).toEqual({ mode: 'auto', hide: [path.join(home, 'bare')] });
  });

  it('takes each value from the first source that has it: flag, env, .env, file, default', () => {
    fs.writeFileSync(path.join(home, '.env'), 'TILTH_MAX_DOLLARS=3\nTILTH_MAX_TOKENS=500\nTILTH_PORT=5000\n');
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({ TILTH_MAX_DOLLARS: 1, TILTH_MAX_TOKENS: 100, TILTH_PORT: 6000, TILTH_MAX_ITERATIONS_PER_TASK: 7 }),
    );
    const config = loadConfig({ env: { TILTH_MAX_TOKENS: '900', TILTH_PORT: '7000' }, flags: { TILTH_PORT: '8000' }, home });
    expect(config.values.TILTH_PORT).toEqual({ value: 8000, source: 'flag' });
    expect(config.values.TILTH_MAX_TOKENS).toEqual({ value: 900, source: 'env' });
    expect(config.values.TILTH_MAX_DOLLARS).toEqual({ value: 3, source: 'dotenv' });
    expect(config.values.TILTH_MAX_ITERATIONS_PER_TASK).toEqual({ value: 7, source: 'file' });
    expect(config.values.TILTH_MAX_WALL_CLOCK_MINUTES).toEqual({ value: 120, source: 'default' });
  });

  it('treats a blank value as "use the default", whatever the sources below it say', () => {
    fs.writeFileSync(path.join(home, '.env'), 'TILTH_MAX_DOLLARS=4\nTILTH_MAX_TOKENS=77\n');
    const config = loadConfig({ env: { TILTH_MAX_DOLLARS: '   ' }, home });
    expect(config.values.TILTH_MAX_DOLLARS).toEqual({ value: 10, source: 'default' });
    expect(config.values.TILTH_MAX_TOKENS).toEqual({ value: 77, source: 'dotenv' });
  });

  it.each([
    ['TILTH_MAX_TOKENS', '_'],
    ['TILTH_MAX_TOKENS', '1__0'],
    ['TILTH_MAX_TOKENS', '1e6'],
    ['TILTH_MAX_DOLLARS', '0x10'],
    ['TILTH_MAX_DOLLARS', 'Infinity'],
    ['TILTH_MAX_WALL_CLOCK_MINUTES', '1.'],
  ])('rejects %s=%j', (key, value) => {
    expect(errorOf(() => loadConfig({ env: { [key]: value }, home })).message).toContain(key);
  });

  it('accepts underscores between digits and decimals', () => {
    const config = loadConfig({ env: { TILTH_MAX_TOKENS: '1_500_000', TILTH_MAX_DOLLARS: '2.5' }, home });
    expect(config.caps.max_tokens).toBe(1_500_000);
    expect(config.caps.max_dollars).toBe(2.5);
  });

  it('lists every bad value at once, naming the variable and its source', () => {
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ TILTH_NOPE: 1 }));
    const err = errorOf(() => loadConfig({ env: { TILTH_MAX_TOKENS: 'lots', TILTH_BASE_URL: 'ftp://x', TILTH_PORT: '70000', TILTH_MAX_DOLLARS: '-1' }, home }));
    const text = err.problems.join('\n');
    expect(err.problems.length).toBeGreaterThanOrEqual(5);
    expect(text).toMatch(/TILTH_MAX_TOKENS \(from environment\) must be a whole number, got "lots"/);
    expect(text).toMatch(/TILTH_BASE_URL \(from environment\) must be an http\(s\) URL/);
    expect(text).toMatch(/TILTH_PORT \(from environment\) must be between 0 and 65535/);
    expect(text).toMatch(/TILTH_MAX_DOLLARS .* must be at least 0/);
    expect(text).toMatch(/unknown key TILTH_NOPE/);
  });

  it('takes a pinned token of 16 to 512 characters that travel in a link, a cookie and a header, and says what is wrong with any other without repeating it', () => {
    for (const good of ['abcdefghijklmnop', 'A1.b2_c3~d4-e5F6g7', 'x'.repeat(512)]) {
      expect(loadConfig({ env: { TILTH_TOKEN: good }, home }).token).toBe(good);
    }
    const problem = (token: string, from: 'env' | 'dotenv' = 'env') => {
      if (from === 'dotenv') fs.writeFileSync(path.join(home, '.env'), `TILTH_TOKEN="${token}"\n`);
      const err = errorOf(() => loadConfig({ env: from === 'env' ? { TILTH_TOKEN: token } : {}, home }));
      fs.rmSync(path.join(home, '.env'), { force: true });
      expect(err.problems).toHaveLength(1);
      if (token.length >= 8) expect(err.problems[0]).not.toContain(token);
      return err.problems[0];
    };
    expect(problem('x')).toBe(
      'TILTH_TOKEN (from environment) is 1 character long, too short to keep other pages out; use at least 16 (e.g. the output of `openssl rand -hex 24`, or unset it to use the token Tilth keeps in $TILTH_HOME/token)',
    );
    expect(problem('fifteen-chars-x')).toMatch(/^TILTH_TOKEN \(from environment\) is 15 characters long, too short/);
    expect(problem('with a space 0123456789')).toBe(
      'TILTH_TOKEN (from environment) has a space, which cannot travel unchanged in the link, the cookie and the Authorization header; use only letters, digits and . _ ~ - (e.g. the output of `openssl rand -hex 24`, or unset it to use the token Tilth keeps in $TILTH_HOME/token)',
    );
    expect(problem('plus+sign+0123456789')).toMatch(/^TILTH_TOKEN \(from environment\) has "\+", which cannot travel/);
    expect(problem('semi;colon0123456789')).toMatch(/has ";"/);
    expect(problem('tab\tinside0123456789')).toMatch(/has a control or blank character/);
    expect(problem('unicodé-0123456789')).toMatch(/has "é"/);
    expect(problem('y'.repeat(513))).toMatch(/is 513 characters long; use at most 512/);
    expect(problem('short', 'dotenv')).toMatch(new RegExp(`^TILTH_TOKEN \\(from ${path.join(home, '.env').replaceAll('.', '\\.')}\\) is 5 characters long`));
  });

  it('reports a config file that is not JSON', () => {
    fs.writeFileSync(path.join(home, 'config.json'), '{ nope');
    expect(errorOf(() => loadConfig({ env: {}, home })).message).toMatch(/config\.json: not valid JSON/);
  });

  it('routes every role to the worker endpoint unless a role overrides it key by key', () => {
    const config = loadConfig({
      env: { ...worker, TILTH_EVALUATOR_BASE_URL: 'http://127.0.0.1:10/v1', TILTH_EVALUATOR_API_KEY: 'other-key-123456', TILTH_PREP_MODEL: 'p' },
      home,
    });
    expect(config.roles.worker).toEqual({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-1234567890', model: 'w' });
    expect(config.roles.evaluator).toEqual({ baseUrl: 'http://127.0.0.1:10/v1', apiKey: 'other-key-123456', model: 'w' });
    expect(config.roles.prep).toEqual({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-1234567890', model: 'p' });
  });

  it('reports an evaluator endpoint that is set but incomplete', () => {
    const err = errorOf(() => loadConfig({ env: { TILTH_EVALUATOR_MODEL: 'judge' }, home }));
    expect(err.message).toMatch(/the evaluator endpoint is only partly set: also set TILTH_EVALUATOR_BASE_URL, TILTH_EVALUATOR_API_KEY \(or the worker's\)/);
  });

  it('warns when a role on another endpoint borrows the worker key', () => {
    const config = loadConfig({ env: { ...worker, TILTH_EVALUATOR_BASE_URL: 'http://127.0.0.1:10/v1' }, home });
    expect(config.warnings).toEqual([
      expect.stringMatching(/TILTH_EVALUATOR_BASE_URL points the evaluator at another endpoint but it borrows the worker's key/),
    ]);
    expect(loadConfig({ env: worker, home }).warnings).toEqual([]);
  });

  it("takes a context window and a price per role, the evaluator and interviewer borrowing the worker's while they run its model", () => {
    const config = loadConfig({
      env: { ...worker, TILTH_WORKER_CONTEXT_WINDOW: '131_072', TILTH_WORKER_PRICE_IN: '0.27', TILTH_WORKER_PRICE_OUT: '1.1' },
      home,
    });
    const price = { input_per_million: 0.27, output_per_million: 1.1 };
    expect(config.contextWindows).toEqual({ worker: 131_072, evaluator: 131_072, prep: 131_072 });
    expect(config.prices).toEqual({ worker: price, evaluator: price, prep: price });
    expect(config.warnings).toEqual([]);
    expect(describeConfig(config).roles.prep).toMatchObject({ context_window: 131_072, price });
    expect(loadConfig({ env: {}, home }).contextWindows).toEqual({ worker: null, evaluator: null, prep: null });
  });

  it("gives a role with a model of its own its own figures, never the worker's, and warns when it has no price", () => {
    const config = loadConfig({
      env: {
        ...worker,
        TILTH_WORKER_CONTEXT_WINDOW: '65536',
        TILTH_WORKER_PRICE_IN: '3',
        TILTH_WORKER_PRICE_OUT: '15',
        TILTH_EVALUATOR_MODEL: 'judge',
        TILTH_PREP_MODEL: 'interviewer',
        TILTH_PREP_CONTEXT_WINDOW: '32000',
        TILTH_PREP_PRICE_IN: '0',
        TILTH_PREP_PRICE_OUT: '0',
      },
      home,
    });
    expect(config.contextWindows).toEqual({ worker: 65_536, evaluator: null, prep: 32_000 });
    expect(config.prices).toEqual({
      worker: { input_per_million: 3, output_per_million: 15 },
      evaluator: null,
      prep: { input_per_million: 0, output_per_million: 0 },
    });
    expect(config.warnings).toEqual([
      expect.stringMatching(/the evaluator runs its own model \(judge\) but has no price: set TILTH_EVALUATOR_PRICE_IN and TILTH_EVALUATOR_PRICE_OUT/),
    ]);
  });

  it('counts a role on another endpoint as another model, even with the same model name', () => {
    const config = loadConfig({
      env: { ...worker, TILTH_WORKER_CONTEXT_WINDOW: '8192', TILTH_EVALUATOR_BASE_URL: 'http://127.0.0.1:10/v1', TILTH_EVALUATOR_API_KEY: 'k2-0123456789' },
      home,
    });
    expect(config.contextWindows.evaluator).toBeNull();
    expect(config.contextWindows.prep).toBe(8192);
  });

  it.each([
    ['TILTH_WORKER_CONTEXT_WINDOW', 'big', /TILTH_WORKER_CONTEXT_WINDOW \(from environment\) must be a whole number, got "big"/],
    ['TILTH_EVALUATOR_CONTEXT_WINDOW', '100', /TILTH_EVALUATOR_CONTEXT_WINDOW \(from environment\) must be between 512 and 100000000, got 100/],
    ['TILTH_PREP_CONTEXT_WINDOW', '32k', /TILTH_PREP_CONTEXT_WINDOW \(from environment\) must be a whole number/],
    ['TILTH_WORKER_PRICE_IN', '$3', /TILTH_WORKER_PRICE_IN \(from environment\) must be a number, got "\$3"/],
    ['TILTH_EVALUATOR_PRICE_OUT', '-2', /TILTH_EVALUATOR_PRICE_OUT \(from environment\) must be at least 0, got -2/],
  ])('rejects %s=%j, naming the variable', (key, value, message) => {
    expect(errorOf(() => loadConfig({ env: { ...worker, [key]: value }, home })).message).toMatch(message);
  });

  it('refuses half a price, naming both variables', () => {
    const err = errorOf(() => loadConfig({ env: { ...worker, TILTH_WORKER_PRICE_IN: '1' }, home }));
    expect(err.message).toMatch(/TILTH_WORKER_PRICE_IN is set but TILTH_WORKER_PRICE_OUT is not: set both/);
    const other = errorOf(() => loadConfig({ env: { ...worker, TILTH_PREP_PRICE_OUT: '1' }, home }));
    expect(other.message).toMatch(/TILTH_PREP_PRICE_OUT is set but TILTH_PREP_PRICE_IN is not/);
  });

  it('names what is missing when the worker endpoint is only partly set', () => {
    const err = errorOf(() => loadConfig({ env: { TILTH_BASE_URL: 'http://127.0.0.1:9/v1' }, home }));
    expect(err.message).toMatch(/also set TILTH_API_KEY, TILTH_WORKER_MODEL/);
  });
});

describe('describeConfig', () => {
  it('shows a key only as "set", and reports whether a provider is configured', () => {
    const view = describeConfig(loadConfig({ env: worker, home }));
    const key = view.entries.find((e) => e.key === 'TILTH_API_KEY');
    expect(key).toMatchObject({ value: 'set', secret: true, source: 'env', overridden: true, editable: true, file_value: null });
    expect(view.entries.find((e) => e.key === 'TILTH_EVALUATOR_API_KEY')).toMatchObject({ value: null, secret: true, source: 'default' });
    expect(view.roles.evaluator).toEqual({ configured: true, base_url: 'http://127.0.0.1:9/v1', model: 'w', key_set: true, context_window: null, price: null });
    expect(JSON.stringify(view)).not.toContain('sk-test-1234567890');
    expect(view.provider_configured).toBe(true);
    expect(describeConfig(loadConfig({ env: {}, home })).provider_configured).toBe(false);
  });

  it('masks credentials and query strings inside URLs', () => {
    const view = describeConfig(loadConfig({ env: { ...worker, TILTH_BASE_URL: 'https://me:pw@llm.example/v1?api-key=abc' }, home }));
    const value = view.entries.find((e) => e.key === 'TILTH_BASE_URL')?.value ?? '';
    expect(value).not.toMatch(/pw|abc|me:/);
    expect(value).toContain('llm.example/v1');
  });

  it("tells the file's values apart from the ones in effect, and marks the overridden ones", () => {
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({ TILTH_WORKER_MODEL: 'from-file', TILTH_API_KEY: 'sk-file-0123456789', TILTH_MAX_DOLLARS: '4' }),
    );
    const view = describeConfig(loadConfig({ env: { TILTH_BASE_URL: 'http://127.0.0.1:9/v1', TILTH_WORKER_MODEL: 'from-env' }, home }));
    const entry = (key: string) => view.entries.find((e) => e.key === key);
    expect(entry('TILTH_WORKER_MODEL')).toMatchObject({ value: 'from-env', source: 'env', file_value: 'from-file', overridden: true });
    expect(entry('TILTH_API_KEY')).toMatchObject({ value: 'set', source: 'file', file_value: 'set', overridden: false });
    expect(entry('TILTH_MAX_DOLLARS')).toMatchObject({ value: '4', source: 'file', file_value: '4', overridden: false, editable: true });
    expect(entry('TILTH_PORT')).toMatchObject({ editable: false, overridden: false });
    expect(JSON.stringify(view)).not.toContain('sk-file-0123456789');
  });
});
