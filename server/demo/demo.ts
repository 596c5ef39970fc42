/**
 * Demo mode (SPEC §10): the whole journey with no provider. A demo session is an ordinary session
 * on a fresh copy of the bundled JavaScript example, kept beside the sessions; only its model is
 * replaced, by the project's scripted OpenAI-compatible server running in this process on a
 * loopback port. Each demo session's model answers through a responder (demo-script.ts) that
 * reads where the session is from the request itself, so nothing is queued ahead: a stop, a
 * resume, a restart or a kill of the server leaves nothing out of step.
 */
import path from 'node:path';
import type { SessionListItem } from '../../shared/api.ts';
import type { SeedingDeps } from '../sessions/session-setup.ts';
import { ModelClient } from '../llm/client.ts';
import type { SessionStore } from '../store/session-store.ts';
import { startScriptedModel, type ChatRequest, type ScriptedModel, type ScriptedReplyInput } from '../scripted-model/model-server.ts';

/** Demo repositories live here, under the sessions root (a dot-folder, so it is never a session). */
export const DEMO_REPOS = '.demo-repos';

/** The name the demo's scripted model answers to; each demo session's model adds its own suffix. */
export const DEMO_MODEL = 'tilth-demo (scripted, not AI)';

export interface DemoOptions {
  /** A pause before each scripted reply (tests use it to catch a model call in flight). */
  replyDelayMs?: number;
}

export class DemoService {
  private readonly clients = new Map<string, ModelClient>();

  private constructor(
    private readonly fake: ScriptedModel,
    private readonly store: SessionStore,
    private readonly options: DemoOptions,
  ) {}

  static async start(store: SessionStore, options: DemoOptions = {}): Promise<DemoService> {
    return new DemoService(await startScriptedModel(), store, options);
  }

  /** The scripted model server, with its record of every request. */
  get model(): ScriptedModel {
    return this.fake;
  }

  /** Each demo session has its own model name on the scripted server, so two demos never mix. */
  private modelName(id: string): string {
    return `${DEMO_MODEL} ${id.slice(-6)}`;
  }

  /** The scripted client for a demo session, or null for any other session. */
  clientFor(id: string): ModelClient | null {
    let client = this.clients.get(id);
    if (client) return client;
    let demo = false;
    try {
      demo = this.store.session(id).checkpoint.read().demo;
    } catch {
      return null;
    }
    if (!demo) return null;
    const endpoint = { baseUrl: this.fake.baseURL, apiKey: 'demo', model: this.modelName(id) };
    client = new ModelClient({ endpoints: { worker: endpoint, evaluator: endpoint, prep: endpoint }, retry: { maxAttempts: 1 } });
    this.fake.respondWith(endpoint.model, (request) => this.reply(request));
    this.clients.set(id, client);
    return client;
  }

  private async reply(request: ChatRequest): Promise<ScriptedReplyInput> {
    // The script loads with a demo's first model call, not with the server (issue 32).
    const { demoReply } = await import('./demo-script.ts');
    const reply = demoReply(request);
    return this.options.replyDelayMs ? { ...reply, delay_ms: this.options.replyDelayMs } : reply;
  }

  /** Creates a demo session on a fresh copy of the example and starts its interview. */
  async createSession(deps: SeedingDeps): Promise<SessionListItem> {
    // What a new demo session needs loads with the first one, not with the server (issue 32).
    const [{ makeExampleRepo }, { startInterviewJob }, { addWorktree, inspectWorkspace }] = await Promise.all([
      import('./example-repo.ts'),
      import('../sessions/session-setup.ts'),
      import('../git/repo.ts'),
    ]);
    const repo = await makeExampleRepo('js-todo', path.join(this.store.root, DEMO_REPOS));
    const info = await inspectWorkspace(repo.dir);
    if (!info.root || !info.head) throw new Error(`the demo repository at ${repo.dir} has no commits`);
    const created = this.store.create({
      source: info.root,
      brief: 'Demo: add a field to the todos of the bundled example',
      baseBranch: info.branch,
      baseSha: info.head,
      status: 'interviewing',
    });
    const id = created.session_id;
    const gitDirs = await addWorktree(info.root, created.worktree, created.branch, info.head);
    this.store.session(id).checkpoint.update(() => ({
      ...gitDirs,
      demo: true,
      checks_preset: 'node',
      title: 'Demo: a new field on todos',
      models: { worker: this.modelName(id), evaluator: this.modelName(id), prep: this.modelName(id) },
    }));
    const client = this.clientFor(id)!;
    startInterviewJob({ ...deps, llmFor: (sid) => (sid === id ? client : (deps.llmFor?.(sid) ?? deps.llm)) }, id);
    return this.store.session(id).listItem();
  }

  async close(): Promise<void> {
    await this.fake.close();
  }
}
