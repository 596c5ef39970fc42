/**
 * argv → config → command. Nothing else lives here. Node's own `util.parseArgs` does the parsing:
 * the surface is a handful of flags, not worth a dependency.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CliExit } from './cli/cli-exit.ts';
import { ConfigError, describeConfig, loadConfig, type ConfigKey } from './config/config.ts';
import { displayUrl } from './llm/client.ts';
import { launchToken, rotateToken, TOKEN_FILE } from './http/base/launch-token.ts';
import { LiveConfig } from './config/live-config.ts';
import { PACKAGE_ROOT } from './config/package-root.ts';
import { QueueUnavailableError } from './errors/app-error.ts';
import { QueueKeyError } from './jobs/queue-key.ts';
import { liveServeOrigin, ServeLockError } from './store/serve-lock.ts';
import { consoleLogger, ensureWebBuild, isLoopback, packageVersion, startServer } from './cli/serve.ts';

const HELP = `Tilth — long-running coding agents on your git repo, with you in charge of every merge.

Usage:
  tilth serve [--port N] [--host H] [--sessions-dir DIR] [--open] [--demo]
  tilth info [id]       sessions newest first (status, progress, cost, worktree), or one in detail
  tilth run <id>        run a prepared session in this terminal
  tilth resume <id>     resume a stopped session in this terminal
  tilth rewind <id> --after seed|<task>   move the branch back (backup kept); later tasks pending again
  tilth reset <id> [--yes]   discard a session: worktree, branch and folder
  tilth reopen <id> <task> [--note TEXT]   send a done task back as its next revision
  tilth add-task <id> --title … --description … --criterion …   add a task after the run
  tilth worker [--slots N]   run queued sessions (TILTH_QUEUE) in this process
  tilth config          print the resolved configuration and where each value came from
  tilth token [--rotate]   where the access token is kept; --rotate replaces it
  tilth --version

Every verb takes --help.

serve options:
  --port N             port to listen on (default 4317, TILTH_PORT; 0 picks a free one)
  --host H             interface to bind (default 127.0.0.1; anything else prints a warning)
  --sessions-dir DIR   where sessions live (default $TILTH_HOME/sessions, TILTH_SESSIONS_DIR)
  --open               open the browser at the printed link
  --demo               start a demo session: the bundled example and a scripted model, no provider needed
  --worker-slots N     with TILTH_QUEUE: also run N queued sessions at a time in this process

Configuration comes from flags, the environment, $TILTH_HOME/.env and $TILTH_HOME/config.json
(TILTH_HOME defaults to ~/.tilth). See the README for every variable.
`;

class UsageError extends Error {}

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'sessions-dir': { type: 'string' },
      open: { type: 'boolean', default: false },
      demo: { type: 'boolean', default: false },
      'worker-slots': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const flags: Partial<Record<ConfigKey, string>> = {};
  if (values.port !== undefined) flags.TILTH_PORT = values.port;
  if (values.host !== undefined) flags.TILTH_HOST = values.host;
  if (values['sessions-dir'] !== undefined) flags.TILTH_SESSIONS_DIR = values['sessions-dir'];
  const live = new LiveConfig({ flags });
  const config = live.current;

  for (const warning of config.warnings) consoleLogger.warn(warning);
  if (!isLoopback(config.host)) {
    if (config.values.TILTH_HOST.source !== 'flag') {
      throw new ConfigError([
        `TILTH_HOST is "${config.host}", which is not loopback; pass --host ${config.host} explicitly to expose Tilth beyond this machine`,
      ]);
    }
    consoleLogger.warn(`Tilth is listening on ${config.host}: anyone who can reach it and has the link can drive agents on your repos.`);
  }

  const workerSlots = values['worker-slots'] === undefined ? 0 : Number(values['worker-slots']);
  if (!Number.isInteger(workerSlots) || workerSlots < 0 || workerSlots > 64) {
    throw new UsageError(`--worker-slots must be a whole number from 0 to 64, got "${values['worker-slots']}"`);
  }
  if (workerSlots > 0 && !config.queueUrl) throw new UsageError('--worker-slots takes runs from a queue: set TILTH_QUEUE to a Redis URL first.');

  await ensureWebBuild(consoleLogger);
  // `cd my-repo && tilth serve`: the folder says which repository the user means to work on —
  // unless it is Tilth's own checkout, where one starts it after `npm ci` without meaning that.
  // Asked of git when first needed (the settings the page loads), or a moment after the start:
  // starting a process costs the event loop a fork of the whole server, which the first requests
  // should not wait behind.
  let asking: Promise<string | null> | undefined;
  const defaultWorkspace = () =>
    (asking ??= import('./git/repo.ts')
      .then(({ workTreeRoot }) => workTreeRoot(process.cwd()))
      .then((here) => (here !== null && fs.realpathSync(here) === fs.realpathSync(PACKAGE_ROOT) ? null : here))
      .catch(() => null)
      .then((here) => {
        if (here !== null) process.stdout.write(`Default workspace: ${here}\n`);
        return here;
      }));
  const server = await startServer(live, consoleLogger, { defaultWorkspace, workerSlots });
  setTimeout(() => void defaultWorkspace(), 250).unref();
  // With --demo the printed link opens the demo session itself, not the list it would sit in.
  const demoId = values.demo ? await server.startDemo() : null;
  const link = demoId === null ? server.url : linkToPath(server.url, `/sessions/${demoId}`);
  process.stdout.write(`\nTilth is running. Open this link (it carries your access token):\n\n  ${link}\n\n`);
  if (!config.roles.worker) {
    process.stdout.write('Model provider: none configured yet; the settings page explains how (or try the scripted demo).\n');
  } else {
    for (const role of ['worker', 'evaluator', 'prep'] as const) {
      const endpoint = config.roles[role];
      if (endpoint) process.stdout.write(`Model ${role === 'prep' ? 'interviewer' : role}: ${endpoint.model} at ${displayUrl(endpoint.baseUrl)}\n`);
    }
  }
  process.stdout.write(`Sessions: ${config.sessionsDir}\n`);
  if (demoId !== null) {
    process.stdout.write(`Demo session ${demoId} started with the scripted demo model (demo model — scripted, not AI): the link opens it.\n`);
  }
  process.stdout.write('Press Ctrl+C to stop.\n');

  if (values.open) {
    const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
    void import('execa').then(({ execa }) =>
      execa(opener, [link], { detached: true, stdio: 'ignore' }).catch(() => {
        consoleLogger.warn(`could not open a browser; open the link above yourself`);
      }),
    );
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      process.exit(1); // second Ctrl+C: stop waiting
    }
    stopping = true;
    process.stdout.write(`\n${signal}: stopping Tilth…\n`);
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        consoleLogger.error('shutdown failed', { err: String(err) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

/** `tilth token [--rotate]`: where the kept token lives, or a new one (open tabs ask for the new link after the next start). */
function tokenVerb(args: string[]): void {
  const { values } = parseArgs({ args, options: { rotate: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true });
  const config = loadConfig();
  const file = path.join(config.home, TOKEN_FILE);
  if (values.help) {
    print(
      'Usage: tilth token [--rotate]\n\nThe access token is kept in $TILTH_HOME/token (readable by you alone), so a restart of tilth serve keeps\nopen tabs signed in. --rotate replaces it: restart tilth serve and open the link it prints. TILTH_TOKEN, when set, wins.',
    );
    return;
  }
  if (!values.rotate) {
    print(`The access token is kept in ${file}${config.token ? ' (TILTH_TOKEN is set, and wins over it)' : ''}. tilth token --rotate replaces it.`);
    // The link to reopen a running server, for a tab closed or a browser restarted.
    const origin = liveServeOrigin(config.sessionsDir);
    print(
      origin === null
        ? `No tilth serve is running for ${config.sessionsDir}; start one and open the link it prints.`
        : `Tilth is running; open this link (it carries your access token):\n\n  ${origin}/#token=${config.token ?? launchToken(config.home).token}\n`,
    );
    return;
  }
  rotateToken(config.home);
  print(`A new access token is in ${file}. Restart tilth serve and open the link it prints; open tabs will ask for it.`);
  if (config.token) print('Note: TILTH_TOKEN is set, and wins over the file until you unset it.');
}

async function printConfig(): Promise<void> {
  const config = loadConfig();
  const view = describeConfig(config);
  const width = Math.max(...view.entries.map((e) => e.key.length));
  for (const entry of view.entries) {
    // A value the settings page saved but the environment (or a flag, or .env) overrides.
    const shadowed = entry.overridden && entry.file_value !== null ? `  (overrides config.json: ${entry.file_value})` : '';
    process.stdout.write(`${entry.key.padEnd(width)}  ${(entry.value ?? '(not set)').padEnd(40)}  ${entry.source}${shadowed}\n`);
  }
  process.stdout.write(`\nhome: ${view.paths.home}\n.env: ${view.paths.dotenv}\nconfig file: ${view.paths.config_file}\n`);
  if (!config.queueUrl) {
    process.stdout.write('runs: inside tilth serve (TILTH_QUEUE is not set)\n');
    return;
  }
  const { lookAtQueue } = await import('./jobs/queue.ts');
  const queue = await lookAtQueue(config.queueUrl, config.sessionsDir);
  const workers = queue.problem ?? (queue.workers.length === 0 ? 'no worker connected' : queue.workers.map((w) => w.name).join(', '));
  process.stdout.write(`runs: through the queue at ${queue.url}; workers: ${workers}\n`);
}

const print = (line: string) => process.stdout.write(`${line}\n`);

async function headless(command: 'info' | 'run' | 'resume' | 'reset' | 'rewind' | 'reopen' | 'add-task', rest: string[]): Promise<void> {
  // The engine, the proofs and the review code load for these verbs only, not for `serve`.
  const { addTaskVerb, HEADLESS_HELP, info, parseVerbArgs, reopen, reset, rewindVerb, runVerb } = await import('./cli/headless.ts');
  if (command === 'reopen' || command === 'add-task') {
    if (rest.some((a) => a === '--help' || a === '-h')) print(HEADLESS_HELP[command]!);
    else if (command === 'reopen') await reopen(loadConfig(), rest, print);
    else process.exitCode = await addTaskVerb(loadConfig(), rest, print);
    return;
  }
  const args = parseVerbArgs(rest, command);
  if (args.help) {
    print(HEADLESS_HELP[command]!);
    return;
  }
  const config = loadConfig();
  if (command === 'info') return info(config, args.positionals, print);
  if (command === 'reset') return reset(config, args.positionals, args.yes, print);
  if (command === 'rewind') {
    process.exitCode = await rewindVerb(config, args.positionals, { after: args.after, dryRun: args.dryRun }, print);
    return;
  }
  process.exitCode = await runVerb(command, config, args.positionals, print);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command !== undefined && rest.some((a) => a === '--help' || a === '-h') && (command === 'serve' || command === 'config')) {
    process.stdout.write(HELP);
    return;
  }
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'config':
      return printConfig();
    case 'token':
      return tokenVerb(rest);
    case 'worker':
      // BullMQ and ioredis load only for the commands that use a queue.
      return (await import('./cli/worker.ts')).workerVerb(rest, consoleLogger);
    case 'info':
    case 'run':
    case 'resume':
    case 'reset':
    case 'rewind':
    case 'reopen':
    case 'add-task':
      return headless(command, rest);
    case '--version':
    case '-v':
      process.stdout.write(`${packageVersion()}\n`);
      return;
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(HELP);
      return;
    default:
      throw new UsageError(`Unknown command "${command}".`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof CliExit) fail(err.message, err.code);
  if (err instanceof ConfigError) fail(err.message, 2);
  if (err instanceof UsageError || (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) {
    fail(`${err.message}\n\n${HELP}`, 2);
  }
  if (err instanceof ServeLockError || err instanceof QueueUnavailableError || err instanceof QueueKeyError) fail(err.message, 1);
  if (err instanceof Error && 'code' in err && err.code === 'EADDRINUSE') {
    fail(`That port is already in use. Pick another with --port (or --port 0 for any free one).`, 1);
  }
  fail(`tilth: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`, 1);
});

/** The printed link with another page's path; the `#token=…` fragment stays. */
function linkToPath(url: string, pathname: string): string {
  const link = new URL(url);
  link.pathname = pathname;
  return link.toString();
}
