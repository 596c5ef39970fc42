/**
 * Configuration (SPEC §10). Each value is resolved from, in order: a CLI flag, the process
 * environment, `$TILTH_HOME/.env`, `$TILTH_HOME/config.json`, then its default — and remembers
 * which one it came from. A blank value counts as unset. Every problem is collected and reported
 * at once, naming the variable, so a user fixes their setup in one pass.
 *
 * The server starts with no provider configured; the role endpoints are then simply absent.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { EDITABLE_CONFIG_KEYS, type ConfigResponse, type ConfigSource, type EditableConfigKey, type RoleView } from '../../shared/api.ts';
import type { Caps } from '../../shared/files.ts';
import type { SandboxMode } from '../proc/sandbox.ts';
import type { Price } from '../../shared/price.ts';
import { ROLES, type Role, type RoleEndpoint, type RoleEndpoints } from '../llm/types.ts';

type Parser<T> = (raw: string) => T;

interface KeySpec<T> {
  description: string;
  secret?: boolean;
  /** null means "no value" (optional, or derived from another key). */
  fallback: T | null;
  parse: Parser<T>;
}

class ParseProblem extends Error {}

const text: Parser<string> = (raw) => raw;

function url(raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ParseProblem(`must be an http(s) URL, got "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ParseProblem(`must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function redisUrl(raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ParseProblem(`must be a redis:// or rediss:// URL, got "${raw}"`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new ParseProblem(`must be a redis:// or rediss:// URL, got "${raw}"`);
  return raw;
}

function integer(min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> {
  return (raw) => {
    const n = Number(raw.replaceAll('_', ''));
    if (!/^-?\d+(_\d+)*$/.test(raw) || !Number.isSafeInteger(n)) throw new ParseProblem(`must be a whole number, got "${raw}"`);
    if (n < min || n > max) throw new ParseProblem(`must be between ${min} and ${max}, got ${n}`);
    return n;
  };
}

function decimal(min: number): Parser<number> {
  return (raw) => {
    const n = Number(raw);
    if (!/^-?\d+(\.\d+)?$/.test(raw) || !Number.isFinite(n)) throw new ParseProblem(`must be a number, got "${raw}"`);
    if (n < min) throw new ParseProblem(`must be at least ${min}, got ${n}`);
    return n;
  };
}

function host(raw: string): string {
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(raw)) throw new ParseProblem(`must be a host name or IP address, got "${raw}"`);
  return raw;
}

function oneOf<const T extends string>(...choices: T[]): Parser<T> {
  return (raw) => {
    const value = raw.toLowerCase();
    if (!(choices as string[]).includes(value)) throw new ParseProblem(`must be one of ${choices.join(', ')}, got "${raw}"`);
    return value as T;
  };
}

function list(raw: string): string[] {
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new ParseProblem('must list at least one file name');
  return items;
}

/**
 * A pinned access token (TILTH_TOKEN) travels in the printed link's fragment, in a cookie and in
 * an `Authorization: Bearer` header. RFC 3986's unreserved characters pass all three as they are
 * (a `+` in the fragment reads back as a space, a `;` or `,` ends a cookie, a space splits the
 * header), so only those are taken. And 16 at least: the token is all that keeps any web page
 * the user opens from driving the agents, and 16 random ones of these 66 are ~96 bits, where a
 * "test" or a "1" is guessed at once (the kept one Tilth mints is 43). The value is a secret, so
 * a problem never repeats it.
 */
const TOKEN_MIN_LENGTH = 16;
/** As long as the kept token may be (launch-token.ts), well inside any header or URL limit. */
const TOKEN_MAX_LENGTH = 512;
const TOKEN_FIX = 'e.g. the output of `openssl rand -hex 24`, or unset it to use the token Tilth keeps in $TILTH_HOME/token';

function accessToken(raw: string): string {
  const bad = [...raw].find((ch) => !/^[A-Za-z0-9._~-]$/.test(ch));
  if (bad !== undefined) {
    const what = bad === ' ' ? 'a space' : /\p{Cc}|\s/u.test(bad) ? 'a control or blank character' : `"${bad}"`;
    throw new ParseProblem(
      `has ${what}, which cannot travel unchanged in the link, the cookie and the Authorization header; use only letters, digits and . _ ~ - (${TOKEN_FIX})`,
    );
  }
  if (raw.length < TOKEN_MIN_LENGTH) {
    throw new ParseProblem(
      `is ${raw.length} character${raw.length === 1 ? '' : 's'} long, too short to keep other pages out; use at least ${TOKEN_MIN_LENGTH} (${TOKEN_FIX})`,
    );
  }
  if (raw.length > TOKEN_MAX_LENGTH) throw new ParseProblem(`is ${raw.length} characters long; use at most ${TOKEN_MAX_LENGTH} (${TOKEN_FIX})`);
  return raw;
}

/** The add-task deadline by default: a few model turns and a red proof fit well within it; a provider that hangs does not. */
export const ADD_TASK_SECONDS = 180;

const KEYS = {
  TILTH_SESSIONS_DIR: { description: 'Where session folders live. Default: $TILTH_HOME/sessions.', fallback: null, parse: text },
  TILTH_HOST: { description: 'Interface `tilth serve` binds. Anything but loopback needs --host and prints a warning.', fallback: '127.0.0.1', parse: host },
  TILTH_PORT: { description: 'Port `tilth serve` listens on (0 picks a free one).', fallback: 4317, parse: integer(0, 65535) },
  TILTH_TOKEN: {
    description: 'Pin the access token instead of the one kept in $TILTH_HOME/token (for scripts): 16 to 512 of A-Z a-z 0-9 . _ ~ -.',
    secret: true,
    fallback: null,
    parse: accessToken,
  },
  TILTH_BASE_URL: { description: 'OpenAI-compatible base URL for the worker (e.g. https://openrouter.ai/api/v1).', fallback: null, parse: url },
  TILTH_API_KEY: { description: 'API key for the worker endpoint.', secret: true, fallback: null, parse: text },
  TILTH_WORKER_MODEL: { description: 'Model that writes the code.', fallback: null, parse: text },
  TILTH_EVALUATOR_MODEL: { description: "Model that judges each case. Default: the worker's.", fallback: null, parse: text },
  TILTH_EVALUATOR_BASE_URL: { description: "Evaluator endpoint. Default: the worker's.", fallback: null, parse: url },
  TILTH_EVALUATOR_API_KEY: { description: "Evaluator key. Default: the worker's.", secret: true, fallback: null, parse: text },
  TILTH_PREP_MODEL: { description: "Interview model. Default: the worker's.", fallback: null, parse: text },
  TILTH_PREP_BASE_URL: { description: "Interview endpoint. Default: the worker's.", fallback: null, parse: url },
  TILTH_PREP_API_KEY: { description: "Interview key. Default: the worker's.", secret: true, fallback: null, parse: text },
  TILTH_WORKER_CONTEXT_WINDOW: {
    description:
      "The worker model's context window in tokens. Default: what the provider tells (OpenRouter, vLLM, llama.cpp, LM Studio, Ollama), else unknown.",
    fallback: null,
    parse: integer(512, 100_000_000),
  },
  TILTH_EVALUATOR_CONTEXT_WINDOW: {
    description: "The evaluator model's context window in tokens. Default: the worker's when it uses the same model, else what the provider tells.",
    fallback: null,
    parse: integer(512, 100_000_000),
  },
  TILTH_PREP_CONTEXT_WINDOW: {
    description: "The interview model's context window in tokens. Default: the worker's when it uses the same model, else what the provider tells.",
    fallback: null,
    parse: integer(512, 100_000_000),
  },
  TILTH_WORKER_PRICE_IN: {
    description: 'USD per million prompt tokens of the worker model, for the dollar cap when the provider reports no cost.',
    fallback: null,
    parse: decimal(0),
  },
  TILTH_WORKER_PRICE_OUT: { description: 'USD per million completion tokens of the worker model.', fallback: null, parse: decimal(0) },
  TILTH_EVALUATOR_PRICE_IN: {
    description: "USD per million prompt tokens of the evaluator model. Default: the worker's when it uses the same model.",
    fallback: null,
    parse: decimal(0),
  },
  TILTH_EVALUATOR_PRICE_OUT: {
    description: "USD per million completion tokens of the evaluator model. Default: the worker's when it uses the same model.",
    fallback: null,
    parse: decimal(0),
  },
  TILTH_PREP_PRICE_IN: {
    description: "USD per million prompt tokens of the interview model. Default: the worker's when it uses the same model.",
    fallback: null,
    parse: decimal(0),
  },
  TILTH_PREP_PRICE_OUT: {
    description: "USD per million completion tokens of the interview model. Default: the worker's when it uses the same model.",
    fallback: null,
    parse: decimal(0),
  },
  TILTH_CONTEXT_FILES: {
    description: 'Workspace files shown to the worker and evaluator, in priority order.',
    fallback: ['AGENTS.md', 'CLAUDE.md'],
    parse: list,
  },
  TILTH_MAX_ITERATIONS_PER_TASK: {
    description: 'Worker model calls per task before the task fails (the iteration cap).',
    fallback: 32,
    parse: integer(1, 10_000),
  },
  TILTH_MAX_WALL_CLOCK_MINUTES: { description: 'Wall-clock budget of a run, in minutes.', fallback: 120, parse: decimal(0) },
  TILTH_MAX_TOKENS: { description: 'Token budget of a run (the interview is counted apart).', fallback: 2_000_000, parse: integer(0) },
  TILTH_MAX_DOLLARS: { description: 'Spend budget of a run in USD, as reported by the provider.', fallback: 10, parse: decimal(0) },
  TILTH_MAX_EVALUATOR_CALLS_PER_TASK: {
    description: 'Evaluator calls per task before the task fails (the evaluator cap); 0 turns the cap off.',
    fallback: 0,
    parse: integer(0, 10_000),
  },
  TILTH_MUTATION_SECONDS: {
    description: "The mutation probe's time budget per accepted task, in seconds; 0 turns it off.",
    fallback: 60,
    parse: decimal(0),
  },
  TILTH_MUTATION_GATE: {
    description: 'on: merging a session whose mutation probes left surviving mutants needs the explicit override (off: they only inform).',
    fallback: 'off',
    parse: oneOf('on', 'off'),
  },
  TILTH_PROOF_REPEATS: {
    description: 'How often the red and green proofs run each named test case; a case that both passes and fails is flaky and counts as neither.',
    fallback: 2,
    parse: integer(1, 5),
  },
  TILTH_ADD_TASK_SECONDS: {
    description:
      'How long adding a task after the run may take (the model writing its test, then its red proof), in seconds; past it, it is cancelled and nothing is added.',
    fallback: ADD_TASK_SECONDS,
    parse: integer(1, 3600),
  },
  TILTH_MAX_CONCURRENT_RUNS: { description: 'Runs at once; further runs wait in a queue.', fallback: 2, parse: integer(1, 64) },
  TILTH_QUEUE: {
    description:
      'A Redis URL (redis://host:port): runs go through a durable queue there and `tilth worker` processes run them. Unset: runs execute inside `tilth serve`.',
    fallback: null,
    parse: redisUrl,
  },
  TILTH_QUEUE_LEASE_SECONDS: {
    description:
      "With TILTH_QUEUE: how long a worker's hold on a run lasts without renewal; a worker silent longer (dead or frozen) loses the run, which then ends stopped (crash).",
    fallback: 30,
    parse: integer(1, 3600),
  },
  TILTH_SANDBOX: {
    description: "Shell sandbox for the worker's bash and the checks: auto (bubblewrap when it works here) or off.",
    fallback: 'auto',
    parse: oneOf('auto', 'off'),
  },
} satisfies Record<string, KeySpec<unknown>>;

export type ConfigKey = keyof typeof KEYS;
type ValueOf<K extends ConfigKey> = ReturnType<(typeof KEYS)[K]['parse']>;
export const CONFIG_KEYS = Object.keys(KEYS) as ConfigKey[];
// The API's list of editable keys must name real keys: a typo here is a type error.
const EDITABLE: ReadonlySet<ConfigKey> = new Set<ConfigKey>(EDITABLE_CONFIG_KEYS satisfies readonly ConfigKey[]);

export function isEditable(key: ConfigKey): key is EditableConfigKey & ConfigKey {
  return EDITABLE.has(key);
}

/** Checks one value with the parser the config uses: null when fine, else what is wrong with it. */
export function checkValue(key: ConfigKey, raw: string): string | null {
  const spec: KeySpec<unknown> = KEYS[key];
  try {
    spec.parse(raw);
    return null;
  } catch (err) {
    return err instanceof ParseProblem ? err.message : String(err);
  }
}

export interface Resolved<T> {
  value: T | null;
  source: ConfigSource;
}

export interface Config {
  home: string;
  sessionsDir: string;
  configFile: string;
  dotenvFile: string;
  values: { [K in ConfigKey]: Resolved<ValueOf<K>> };
  /** What config.json holds, unparsed (the settings page edits this layer). */
  fileValues: Record<string, string>;
  host: string;
  port: number;
  token: string | null;
  roles: RoleEndpoints;
  /** Per role, the configured context window in tokens (after the fallback); null: discover it. */
  contextWindows: Record<Role, number | null>;
  /** Per role, the configured price (after the fallback); null: only what the provider reports counts. */
  prices: Record<Role, Price | null>;
  caps: Caps;
  contextFiles: string[];
  /** The mutation probe's budget per accepted task, in ms (TILTH_MUTATION_SECONDS); 0 is off. */
  mutationBudgetMs: number;
  /** TILTH_MUTATION_GATE: surviving mutants hold a merge back until overridden. */
  mutationGate: boolean;
  /** TILTH_PROOF_REPEATS: runs of each named case in the red and green proofs. */
  proofRepeats: number;
  /** TILTH_ADD_TASK_SECONDS in ms: the deadline of adding a task after the run. */
  addTaskDeadlineMs: number;
  maxConcurrentRuns: number;
  /** TILTH_QUEUE: runs go through a BullMQ queue on this Redis; null runs them in `tilth serve`. */
  queueUrl: string | null;
  /** TILTH_QUEUE_LEASE_SECONDS in ms. */
  queueLeaseMs: number;
  /** Not errors, but worth telling the user at startup. */
  warnings: string[];
}

/** Per key, what is wrong with it, worded to follow the field's name ("must be a number, got …"). */
export type FieldProblems = Partial<Record<ConfigKey, string>>;

export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    /** The problems a single key's field can show beside it (the settings page does). */
    readonly fields: FieldProblems = {},
  ) {
    super(`Tilth's configuration has ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface ConfigInputs {
  /** Values from CLI flags, by config key. */
  flags?: Partial<Record<ConfigKey, string>>;
  env?: NodeJS.ProcessEnv;
  /** Overrides $TILTH_HOME and the ~/.tilth default. */
  home?: string;
  /** Used instead of reading config.json: checks a settings save before it is written. */
  fileValues?: Record<string, string>;
}

/** The file's text, or null when it does not exist (fine) or cannot be read (a problem). */
function readOptional(file: string, problems: string[]): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(`${file}: cannot be read (${(err as Error).message})`);
    return null;
  }
}

function readDotenv(file: string, problems: string[]): Record<string, string> {
  const content = readOptional(file, problems);
  if (content === null) return {};
  const parsed = parseEnv(content);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed)) if (v !== undefined) out[k] = v;
  return out;
}

/** config.json as strings by key; what is wrong with it goes to `problems`. */
export function readConfigFile(file: string, problems: string[]): Record<string, string> {
  const content = readOptional(file, problems);
  if (content === null) return {};
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch (err) {
    problems.push(`${file}: not valid JSON (${(err as Error).message})`);
    return {};
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    problems.push(`${file}: must be a JSON object like {"TILTH_WORKER_MODEL": "..."}`);
    return {};
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) {
    if (!(k in KEYS)) {
      problems.push(`${file}: unknown key ${k} (known keys: ${CONFIG_KEYS.join(', ')})`);
    } else if (typeof v === 'string' || typeof v === 'number') {
      out[k] = String(v);
    } else if (v !== null) {
      problems.push(`${file}: ${k} must be a string or a number`);
    }
  }
  return out;
}

export function defaultHome(env: NodeJS.ProcessEnv): string {
  const fromEnv = env.TILTH_HOME?.trim();
  return path.resolve(fromEnv ? fromEnv : path.join(os.homedir(), '.tilth'));
}

/** Resolves every key and returns the config, or throws ConfigError listing all problems. */
export function loadConfig(inputs: ConfigInputs = {}): Config {
  const env = inputs.env ?? process.env;
  const flags = inputs.flags ?? {};
  const home = path.resolve(inputs.home ?? defaultHome(env));
  const dotenvFile = path.join(home, '.env');
  const configFile = path.join(home, 'config.json');
  const problems: string[] = [];
  const fields: FieldProblems = {};
  const dotenv = readDotenv(dotenvFile, problems);
  const file = inputs.fileValues ?? readConfigFile(configFile, problems);

  const layers: [ConfigSource, Record<string, string | undefined>][] = [
    ['flag', flags],
    ['env', env],
    ['dotenv', dotenv],
    ['file', file],
  ];

  const values = {} as Record<ConfigKey, Resolved<unknown>>;
  for (const key of CONFIG_KEYS) {
    const spec: KeySpec<unknown> = KEYS[key];
    values[key] = { value: spec.fallback, source: 'default' };
    for (const [source, layer] of layers) {
      const value = layer[key];
      if (value === undefined) continue;
      const raw = value.trim();
      if (raw === '') break; // SPEC §10: a blank value means "use the default", whatever lies below
      try {
        values[key] = { value: spec.parse(raw), source };
      } catch (err) {
        const where = source === 'flag' ? 'flag' : source === 'env' ? 'environment' : source === 'dotenv' ? dotenvFile : configFile;
        const problem = err instanceof ParseProblem ? err.message : String(err);
        problems.push(`${key} (from ${where}) ${problem}`);
        if (source === 'file') fields[key] = problem;
      }
      break;
    }
  }
  const v = values as Config['values'];

  const warnings: string[] = [];
  const roles = resolveRoles(v, problems, warnings, fields);
  const { contextWindows, prices } = resolveModelFacts(v, problems, warnings, fields);
  if (problems.length > 0) throw new ConfigError(problems, fields);

  const sessionsDir = path.resolve(v.TILTH_SESSIONS_DIR.value ?? path.join(home, 'sessions'));
  return {
    home,
    sessionsDir,
    configFile,
    dotenvFile,
    values: v,
    fileValues: file,
    host: v.TILTH_HOST.value ?? '127.0.0.1',
    port: v.TILTH_PORT.value ?? 4317,
    token: v.TILTH_TOKEN.value,
    roles,
    contextWindows,
    prices,
    caps: {
      max_iterations_per_task: v.TILTH_MAX_ITERATIONS_PER_TASK.value ?? 32,
      max_wall_clock_minutes: v.TILTH_MAX_WALL_CLOCK_MINUTES.value ?? 120,
      max_tokens: v.TILTH_MAX_TOKENS.value ?? 2_000_000,
      max_dollars: v.TILTH_MAX_DOLLARS.value ?? 10,
      max_evaluator_calls_per_task: v.TILTH_MAX_EVALUATOR_CALLS_PER_TASK.value ?? 0,
    },
    contextFiles: v.TILTH_CONTEXT_FILES.value ?? ['AGENTS.md', 'CLAUDE.md'],
    mutationBudgetMs: Math.round((v.TILTH_MUTATION_SECONDS.value ?? 60) * 1000),
    mutationGate: v.TILTH_MUTATION_GATE.value === 'on',
    proofRepeats: v.TILTH_PROOF_REPEATS.value ?? 2,
    addTaskDeadlineMs: (v.TILTH_ADD_TASK_SECONDS.value ?? ADD_TASK_SECONDS) * 1000,
    maxConcurrentRuns: v.TILTH_MAX_CONCURRENT_RUNS.value ?? 2,
    queueUrl: v.TILTH_QUEUE.value,
    queueLeaseMs: (v.TILTH_QUEUE_LEASE_SECONDS.value ?? 30) * 1000,
    warnings,
  };
}

/**
 * Each role gets its own endpoint; evaluator and prep fall back key by key to the worker's. A
 * partly configured worker (say, a URL but no model) is a problem worth reporting; a wholly
 * unconfigured one is fine — the UI guides the user.
 */
function resolveRoles(v: Config['values'], problems: string[], warnings: string[], fields: FieldProblems): RoleEndpoints {
  const worker = { baseUrl: v.TILTH_BASE_URL.value, apiKey: v.TILTH_API_KEY.value, model: v.TILTH_WORKER_MODEL.value };
  const perRole: Record<Role, typeof worker> = {
    worker,
    evaluator: {
      baseUrl: v.TILTH_EVALUATOR_BASE_URL.value ?? worker.baseUrl,
      apiKey: v.TILTH_EVALUATOR_API_KEY.value ?? worker.apiKey,
      model: v.TILTH_EVALUATOR_MODEL.value ?? worker.model,
    },
    prep: {
      baseUrl: v.TILTH_PREP_BASE_URL.value ?? worker.baseUrl,
      apiKey: v.TILTH_PREP_API_KEY.value ?? worker.apiKey,
      model: v.TILTH_PREP_MODEL.value ?? worker.model,
    },
  };
  const names: Record<Role, [string, string, string]> = {
    worker: ['TILTH_BASE_URL', 'TILTH_API_KEY', 'TILTH_WORKER_MODEL'],
    evaluator: ['TILTH_EVALUATOR_BASE_URL', 'TILTH_EVALUATOR_API_KEY', 'TILTH_EVALUATOR_MODEL'],
    prep: ['TILTH_PREP_BASE_URL', 'TILTH_PREP_API_KEY', 'TILTH_PREP_MODEL'],
  };
  const roles: RoleEndpoints = {};
  for (const role of ['worker', 'evaluator', 'prep'] as const) {
    const r = perRole[role];
    const present = [r.baseUrl, r.apiKey, r.model].filter((x) => x !== null).length;
    const ownKeys = names[role].filter((name) => v[name as ConfigKey].value !== null);
    if (present === 3) {
      roles[role] = { baseUrl: r.baseUrl, apiKey: r.apiKey, model: r.model } as RoleEndpoint;
      const [urlKey, keyKey] = names[role];
      if (role !== 'worker' && r.baseUrl !== worker.baseUrl && v[keyKey as ConfigKey].value === null) {
        warnings.push(
          `${urlKey} points the ${role} at another endpoint but it borrows the worker's key (TILTH_API_KEY); set ${keyKey} if that provider needs its own`,
        );
      }
    } else if (present > 0 && (role === 'worker' || ownKeys.length > 0)) {
      const missing = names[role].filter((_, i) => [r.baseUrl, r.apiKey, r.model][i] === null);
      const together = `${role === 'prep' ? "the interviewer's" : `the ${role}'s`} base URL, API key and model go together`;
      for (const key of missing) {
        fields[key as ConfigKey] =
          `is needed too: ${together}${role === 'worker' ? '' : ", and the worker's is not set to fall back on"} (a local server that needs no key accepts any, e.g. "none")`;
      }
      problems.push(
        `the ${role} endpoint is only partly set: also set ${missing.join(', ')}${role === 'worker' ? '' : ` (or the worker's)`} (local servers that need no key accept any value, e.g. "none")`,
      );
    }
  }
  return roles;
}

const FACT_KEYS: Record<Role, { window: ConfigKey; priceIn: ConfigKey; priceOut: ConfigKey; model: ConfigKey; baseUrl: ConfigKey }> = {
  worker: {
    window: 'TILTH_WORKER_CONTEXT_WINDOW',
    priceIn: 'TILTH_WORKER_PRICE_IN',
    priceOut: 'TILTH_WORKER_PRICE_OUT',
    model: 'TILTH_WORKER_MODEL',
    baseUrl: 'TILTH_BASE_URL',
  },
  evaluator: {
    window: 'TILTH_EVALUATOR_CONTEXT_WINDOW',
    priceIn: 'TILTH_EVALUATOR_PRICE_IN',
    priceOut: 'TILTH_EVALUATOR_PRICE_OUT',
    model: 'TILTH_EVALUATOR_MODEL',
    baseUrl: 'TILTH_EVALUATOR_BASE_URL',
  },
  prep: {
    window: 'TILTH_PREP_CONTEXT_WINDOW',
    priceIn: 'TILTH_PREP_PRICE_IN',
    priceOut: 'TILTH_PREP_PRICE_OUT',
    model: 'TILTH_PREP_MODEL',
    baseUrl: 'TILTH_PREP_BASE_URL',
  },
};

/**
 * A role's context window and price describe its model, so the evaluator and the interviewer
 * borrow the worker's only while they run the worker's model at the worker's endpoint — the
 * default setup. With a model of their own, the worker's figures would be wrong: the window is
 * then discovered from their provider, and a missing price is said at startup rather than
 * silently borrowed. A price is a pair: one half alone is a problem (0 is fine for a free half).
 */
function resolveModelFacts(v: Config['values'], problems: string[], warnings: string[], fields: FieldProblems): Pick<Config, 'contextWindows' | 'prices'> {
  const num = (key: ConfigKey) => v[key].value as number | null;
  const str = (key: ConfigKey) => v[key].value as string | null;
  const own = {} as Record<Role, { window: number | null; price: Price | null; partial: boolean }>;
  for (const role of ROLES) {
    const keys = FACT_KEYS[role];
    const input = num(keys.priceIn);
    const output = num(keys.priceOut);
    const partial = (input === null) !== (output === null);
    if (partial) {
      const [set, unset] = input === null ? [keys.priceOut, keys.priceIn] : [keys.priceIn, keys.priceOut];
      problems.push(`${set} is set but ${unset} is not: set both (0 for a side that costs nothing), or neither`);
      fields[unset] = 'is needed too: a price has an input and an output side (0 for a side that costs nothing), or leave both blank';
    }
    own[role] = {
      window: num(keys.window),
      price: input !== null && output !== null ? { input_per_million: input, output_per_million: output } : null,
      partial,
    };
  }
  const workerModel = str('TILTH_WORKER_MODEL');
  const workerUrl = str('TILTH_BASE_URL');
  const contextWindows = {} as Record<Role, number | null>;
  const prices = {} as Record<Role, Price | null>;
  for (const role of ROLES) {
    const keys = FACT_KEYS[role];
    const sameModel = role === 'worker' || ((str(keys.model) ?? workerModel) === workerModel && (str(keys.baseUrl) ?? workerUrl) === workerUrl);
    contextWindows[role] = own[role].window ?? (sameModel ? own.worker.window : null);
    prices[role] = own[role].price ?? (sameModel ? own.worker.price : null);
    if (!sameModel && own[role].price === null && !own[role].partial && own.worker.price !== null) {
      warnings.push(
        `the ${role} runs its own model (${str(keys.model) ?? workerModel}) but has no price: set ${keys.priceIn} and ${keys.priceOut}, or its calls count only what the provider reports toward TILTH_MAX_DOLLARS`,
      );
    }
  }
  return { contextWindows, prices };
}

/** A URL for display: user:password and the query (which may carry a key) are masked. */
/**
 * The sessions folder as the configuration says to keep it: its store, whose sandbox policy hides
 * the home (the API keys in .env and config.json) from every untrusted command, besides the
 * sessions themselves, in the configured mode (TILTH_SANDBOX).
 */
export function storeOptionsOf(config: Config): { sandbox: { mode: SandboxMode; alsoHide: string[] } } {
  return { sandbox: { mode: config.values.TILTH_SANDBOX.value ?? 'auto', alsoHide: [config.home] } };
}

export function withoutCredentials(raw: string): string {
  const parsed = new URL(raw);
  if (parsed.username || parsed.password) {
    parsed.username = '••••';
    parsed.password = '';
  }
  if (parsed.search) parsed.search = '?••••';
  return parsed.toString().replace(/\/+$/, '');
}

/** A value as the API and `tilth config` show it: a secret is only "set", a URL loses its credentials. */
function display(key: ConfigKey, value: unknown): string | null {
  const spec: KeySpec<unknown> = KEYS[key];
  if (value === null || value === undefined) return null;
  if (spec.secret) return 'set';
  if (spec.parse === url || spec.parse === redisUrl) {
    try {
      return withoutCredentials(String(value));
    } catch {
      return '(invalid URL)'; // only a raw file value can be unparsable; never echo it
    }
  }
  return Array.isArray(value) ? value.join(',') : String(value);
}

const OVERRIDING: ReadonlySet<ConfigSource> = new Set(['flag', 'env', 'dotenv']);

/** Everything /api/config reports that the configuration alone decides (the route adds the sandbox and the launch folder's repo). */
export function describeConfig(config: Config): Omit<ConfigResponse, 'sandbox' | 'default_workspace' | 'queue'> {
  const entries = CONFIG_KEYS.map((key) => {
    const spec: KeySpec<unknown> = KEYS[key];
    const { value, source } = config.values[key];
    let shown = display(key, value);
    if (key === 'TILTH_SESSIONS_DIR' && value === null) shown = config.sessionsDir;
    return {
      key,
      value: shown,
      source,
      secret: spec.secret === true,
      description: spec.description,
      editable: isEditable(key),
      file_value: display(key, config.fileValues[key]),
      overridden: OVERRIDING.has(source),
    };
  });
  const roles = {} as Record<Role, RoleView>;
  for (const role of ROLES) {
    const endpoint = config.roles[role];
    const facts = { context_window: config.contextWindows[role], price: config.prices[role] };
    roles[role] = endpoint
      ? { configured: true, base_url: display('TILTH_BASE_URL', endpoint.baseUrl), model: endpoint.model, key_set: endpoint.apiKey !== '', ...facts }
      : { configured: false, base_url: null, model: null, key_set: false, ...facts };
  }
  return {
    entries,
    provider_configured: config.roles.worker !== undefined,
    roles,
    paths: { home: config.home, sessions: config.sessionsDir, config_file: config.configFile, dotenv: config.dotenvFile },
    warnings: config.warnings,
  };
}
