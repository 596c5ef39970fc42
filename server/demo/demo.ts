/**
 * Demo mode (SPEC §10): the whole journey with no provider. A demo session is an ordinary session
 * on a fresh copy of the bundled JavaScript example, kept beside the sessions; only its model is
 * replaced, by the project's scripted OpenAI-compatible server running in this process on a
 * loopback port. The script follows the session: each answer the user gives queues the next
 * scripted turn (demo-script.ts), and starting the run queues the run's turns.
 */
import path from 'node:path';
import type { TilthEvent } from '../../shared/events.ts';
import type { SessionListItem } from '../../shared/api.ts';
import { addWorktree, inspectWorkspace } from '../git/repo.ts';
import { startInterviewJob, type SeedingDeps } from '../interview/session-setup.ts';
import { readInterview } from '../interview/engine.ts';
import { ModelClient } from '../llm/client.ts';
import type { SessionStore } from '../store/session-store.ts';
import { makeExampleRepo } from '../testing/example-repo.ts';
import { startFakeModel, type FakeModel } from '../testing/fake-model.ts';
import { DEMO_MODEL, interviewTurns, QUESTIONS, runTurns, seedTurn } from './demo-script.ts';

/** Demo repositories live here, under the sessions root (a dot-folder, so it is never a session). */
export const DEMO_REPOS = '.demo-repos';

export class DemoService {
  private readonly clients = new Map<string, ModelClient>();
  private readonly unsubscribe = new Map<string, () => void>();

  private constructor(
    private readonly fake: FakeModel,
    private readonly store: SessionStore,
  ) {}

  static async start(store: SessionStore): Promise<DemoService> {
    return new DemoService(await startFakeModel(), store);
  }

  /** Each demo session has its own queue on the scripted server, so two demos never mix. */
  private modelName(id: string): string {
    return `${DEMO_MODEL} ${id.slice(-6)}`;
  }

  /** The scripted client for a demo session, or null for any other session. */
  clientFor(id: string): ModelClient | null {
    let client = this.clients.get(id);
    if (client) return client;
    let demo = false;
    try {
      demo = this.store.readCheckpoint(id).demo;
    } catch {
      return null;
    }
    if (!demo) return null;
    const endpoint = { baseUrl: this.fake.baseURL, apiKey: 'demo', model: this.modelName(id) };
    client = new ModelClient({ endpoints: { worker: endpoint, evaluator: endpoint, prep: endpoint }, retry: { maxAttempts: 1 } });
    this.clients.set(id, client);
    this.follow(id);
    return client;
  }

  /** Answers given so far, in order. */
  private answers(id: string): string[] {
    return readInterview(this.store, id)?.history.map((h) => h.answer) ?? [];
  }

  private follow(id: string): void {
    if (this.unsubscribe.has(id)) return;
    const model = this.modelName(id);
    this.unsubscribe.set(
      id,
      this.store.bus.subscribe(id, (event: TilthEvent) => {
        if (event.type === 'question_answered') {
          const answers = this.answers(id);
          if (answers.length < QUESTIONS.length) this.fake.enqueue(model, ...interviewTurns(answers.length));
          else this.fake.enqueue(model, seedTurn(answers));
        } else if (event.type === 'session_start' && event.data.phase === 'run') {
          this.fake.enqueue(model, ...runTurns(this.answers(id)));
        }
      }),
    );
  }

  /** Creates a demo session on a fresh copy of the example and starts its interview. */
  async createSession(deps: SeedingDeps): Promise<SessionListItem> {
    const repo = await makeExampleRepo('js-todo', path.join(this.store.root, DEMO_REPOS));
    const info = await inspectWorkspace(repo.dir);
    if (!info.root || !info.head) throw new Error(`the demo repository at ${repo.dir} has no commits`);
    const created = this.store.create({ source: info.root, brief: 'Demo: add a field to the todos of the bundled example', baseBranch: info.branch, baseSha: info.head, status: 'interviewing' });
    const id = created.session_id;
    const gitDirs = await addWorktree(info.root, created.worktree, created.branch, info.head);
    this.store.updateCheckpoint(id, () => ({
      ...gitDirs,
      demo: true,
      checks_preset: 'node',
      title: 'Demo: a new field on todos',
      models: { worker: this.modelName(id), evaluator: this.modelName(id), prep: this.modelName(id) },
    }));
    const client = this.clientFor(id)!;
    this.fake.enqueue(this.modelName(id), ...interviewTurns(0));
    startInterviewJob({ ...deps, llmFor: (sid) => (sid === id ? client : (deps.llmFor?.(sid) ?? deps.llm)) }, id);
    return this.store.listItem(id);
  }

  async close(): Promise<void> {
    for (const stop of this.unsubscribe.values()) stop();
    this.unsubscribe.clear();
    await this.fake.close();
  }
}
