/**
 * A provider whose answers never end, met through a real `tilth serve`: the settings page asks
 * for the context window and tests the connection against a model list that streams forever,
 * and an interview's model call gets a completion that streams forever. Each is refused in
 * seconds with one sentence, the server answers other requests all along, and what the provider
 * managed to send stays near the bounds (the scripted model counts it).
 */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ContextWindowsResponseSchema, ConnectionTestResultSchema, SessionDetailSchema } from '../../shared/api.ts';
import { makeExampleRepo, type ExampleRepo } from '../demo/example-repo.ts';
import { startScriptedModel, type ScriptedModel } from '../scripted-model/model-server.ts';
import { SOCKET_SLACK_BYTES } from '../testing/endless-http.ts';
import { tempDir } from '../testing/temp-dir.ts';
import { startTilth, type TilthProcess } from '../testing/tilth-process.ts';
import { COMPLETION_MAX_BYTES, MODEL_LIST_MAX_BYTES } from './bounded-answer.ts';
import { PROBE_TIMEOUT_MS } from './probe.ts';
import { DISCOVERY_TIMEOUT_MS } from './context-window.ts';

const PREP = 'prep-model';
const NO_PROVIDER_SENDS_THAT = 'No provider answers with that much: check the provider, or a proxy in front of it.';

let flooding: ScriptedModel | null = null;
let chatty: ScriptedModel | null = null;
let server: TilthProcess | null = null;
let repo: ExampleRepo | null = null;
let home: string | null = null;

afterEach(async () => {
  await server?.stop();
  await flooding?.close();
  await chatty?.close();
  await repo?.cleanup();
  if (home) fs.rmSync(home, { recursive: true, force: true });
  server = flooding = chatty = repo = home = null;
});

/** `work` timed, while /api/health is asked every 50 ms: the longest any health answer took. */
async function whileWatchingHealth<T>(tilth: TilthProcess, work: () => Promise<T>): Promise<{ value: T; ms: number; slowestHealthMs: number }> {
  let slowest = 0;
  let stop = false;
  const watcher = (async () => {
    while (!stop) {
      const asked = Date.now();
      const { status } = await tilth.api('GET', '/api/health');
      expect(status).toBe(200);
      slowest = Math.max(slowest, Date.now() - asked);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const started = Date.now();
  try {
    const value = await work();
    return { value, ms: Date.now() - started, slowestHealthMs: slowest };
  } finally {
    stop = true;
    await watcher;
  }
}

/** The server's peak resident memory so far (VmHWM), in MiB. */
function peakRssMiB(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

describe('a provider whose answers never end, through tilth serve', { timeout: 120_000 }, () => {
  it('is refused in seconds, in one sentence, by discovery, the connection test and a model call, while the server keeps answering', async () => {
    flooding = await startScriptedModel({ listModels: 'endless' });
    chatty = await startScriptedModel();
    chatty.enqueue(PREP, { fault: 'endless' });
    repo = await makeExampleRepo('js-todo');
    home = tempDir('tilth-endless-');
    server = await startTilth({
      home,
      env: {
        TILTH_BASE_URL: flooding.baseURL,
        TILTH_API_KEY: 'sk-endless-0123456789',
        TILTH_WORKER_MODEL: 'worker-model',
        TILTH_PREP_BASE_URL: chatty.baseURL,
        TILTH_PREP_MODEL: PREP,
      },
    });
    const tilth = server;
    const flooded = `${flooding.baseURL}/models`;

    const windows = await whileWatchingHealth(tilth, () => tilth.api('GET', '/api/config/context-windows?role=worker'));
    expect(windows.value.status).toBe(200);
    expect(ContextWindowsResponseSchema.parse(windows.value.body).roles.worker?.discovered).toEqual({
      tokens: null,
      source: 'unknown',
      note: `The provider's answer to GET ${flooded} passed 8 MiB; Tilth stopped reading it.`,
    });
    expect(windows.ms).toBeLessThan(DISCOVERY_TIMEOUT_MS);
    expect(windows.slowestHealthMs).toBeLessThan(2_000);

    const test = await whileWatchingHealth(tilth, () => tilth.api('POST', '/api/config/test', { role: 'worker' }));
    expect(ConnectionTestResultSchema.parse(test.value.body)).toEqual({
      role: 'worker',
      ok: false,
      detail: `The provider's answer to GET ${flooded} passed 8 MiB; Tilth stopped reading it. ${NO_PROVIDER_SENDS_THAT}`,
    });
    expect(test.ms).toBeLessThan(PROBE_TIMEOUT_MS / 2);
    expect(test.slowestHealthMs).toBeLessThan(2_000);

    // The interview's model lists itself, then answers its first call with a completion that never ends.
    const failed = await whileWatchingHealth(tilth, async () => {
      const created = await tilth.api('POST', '/api/sessions', { workspace: repo!.dir, brief: 'Add due dates to todos' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = (created.body as { session: { id: string } }).session.id;
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
        const detail = SessionDetailSchema.parse((await tilth.api('GET', `/api/sessions/${id}`)).body);
        if (detail.session.status === 'failed') return detail;
      }
      throw new Error(`the interview did not fail within 30 s:\n${tilth.output()}`);
    });
    expect(failed.value.session.last_stop).toBe('provider_failure');
    expect(failed.value.last_error).toContain(
      `The provider's answer to POST ${chatty.baseURL}/chat/completions passed 32 MiB; Tilth stopped reading it (not retried: retrying cannot fix it).`,
    );
    expect(chatty.requests.map((r) => r.servedBy?.fault)).toEqual(['endless']);
    expect(failed.ms).toBeLessThan(15_000);
    expect(failed.slowestHealthMs).toBeLessThan(2_000);

    // What the providers managed to send before Tilth closed each connection.
    for (const fake of [flooding, chatty]) await until(() => fake.endless.open === 0);
    expect(flooding.endless.closed).toBe(2);
    expect(flooding.endless.written).toBeLessThan(2 * (MODEL_LIST_MAX_BYTES + SOCKET_SLACK_BYTES));
    expect(chatty.endless).toMatchObject({ closed: 1 });
    expect(chatty.endless.written).toBeLessThan(COMPLETION_MAX_BYTES + SOCKET_SLACK_BYTES);
    // Whatever the server holds besides: far from the gigabytes an unbounded read reaches.
    expect(peakRssMiB(tilth.pgid)).toBeLessThan(1_024);
  });
});

async function until(test: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
