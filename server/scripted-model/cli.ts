/**
 * `npm run fake-model -- --port 5390 --script path.json [--script more.json]`
 *
 * Starts the scripted fake model standalone (for Playwright's webServer, demo runs and poking at
 * it by hand). The base URL is the only line on stdout so scripts can read it; everything else
 * goes to stderr. On SIGINT/SIGTERM it closes the server, reports unconsumed replies and
 * failures, and exits 0.
 */
import { parseArgs } from 'node:util';
import { FakeScriptError, loadScriptFile, startScriptedModel, type ScriptedModel, type Script } from './model-server.ts';

const USAGE = `usage: fake-model [--port 5390] [--script script.json ...]

  --port     port on 127.0.0.1 (0 picks a free one; default 5390)
  --script   JSON script {"models": {"<model>": [reply, ...]}}; may repeat; more can be
             added later with POST /_control/script`;

async function main(argv: string[]): Promise<number> {
  let values: { port?: string | undefined; script?: string[] | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: '5390' },
        script: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port ?? '') || port > 65535) {
    process.stderr.write(`--port must be a whole number between 0 and 65535, got "${values.port}"\n`);
    return 2;
  }

  const scripts: Script[] = [];
  try {
    for (const file of values.script ?? []) scripts.push(await loadScriptFile(file));
  } catch (err) {
    if (err instanceof FakeScriptError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw err;
  }

  let fake: ScriptedModel;
  try {
    fake = await startScriptedModel({ port });
  } catch (err) {
    process.stderr.write(`cannot listen on 127.0.0.1:${port}: ${(err as Error).message}\n`);
    return 1;
  }
  for (const script of scripts) fake.load(script);
  process.stdout.write(`${fake.baseURL}\n`);
  const queued = Object.entries(fake.remaining()).map(([model, n]) => `${model}: ${n}`);
  process.stderr.write(`fake model (scripted, not AI) listening; replies queued: ${queued.length ? queued.join(', ') : 'none'}\n`);

  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await fake.close();
  try {
    fake.assertDone();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
