/**
 * Settings: what the configuration is and where each value came from (GET), changing the
 * provider, models and caps (PUT, written to config.json), trying a role's endpoint (POST
 * /test), and each role's context window, configured or asked of its provider (GET
 * /context-windows). API keys go in and never come out: not in a response, a log line or an event.
 */
import type { FastifyInstance } from 'fastify';
import type { ConfigResponse, ContextWindowsResponse, ContextWindowView } from '../../../shared/api.ts';
import type { AppDeps } from '../base/app-deps.ts';
import { describeConfig } from '../../config/config.ts';
import { resolveContextWindow, type ContextWindow } from '../../llm/context-window.ts';
import { scrubSecret } from '../../llm/failure.ts';
import { ROLES } from '../../llm/types.ts';
import { detectSandbox } from '../../proc/sandbox.ts';
import { handle } from './contract.ts';

export function configRoutes(app: FastifyInstance, deps: AppDeps): void {
  const view = async (): Promise<ConfigResponse> => {
    const config = deps.config.current;
    const { available, tool, detail } = detectSandbox(config.values.TILTH_SANDBOX.value ?? 'auto');
    return {
      ...describeConfig(config),
      sandbox: { available, tool, detail },
      default_workspace: (typeof deps.defaultWorkspace === 'function' ? await deps.defaultWorkspace() : deps.defaultWorkspace) ?? null,
      queue: await deps.runs.describe(),
    };
  };

  handle(app, 'getConfig', view);

  handle(app, 'putConfig', async ({ body }) => {
    const next = deps.config.save(body);
    // New work follows the save at once: the next model call of each role, the next run's caps,
    // a larger run limit. Runs under way keep the endpoints and caps they started with.
    deps.llm.reconfigure(next.roles);
    deps.runs.limitChanged();
    return view();
  });

  handle(app, 'testConnection', async ({ body: { role } }) => {
    const { ok, detail } = await deps.llm.probe(role);
    return { role, ok, detail };
  });

  // Asks the providers afresh each time (a few small GETs, at most ~5 s): a local server may
  // have been restarted with another context since. The provider is asked even when a window is
  // configured, so the page can show where the two disagree. Roles on one endpoint and model ask once.
  handle(app, 'getContextWindows', async ({ query }) => {
    const config = deps.config.current;
    const asked = new Map<string, Promise<ContextWindow>>();
    const roles: ContextWindowsResponse['roles'] = {};
    await Promise.all(
      (query.role === undefined ? ROLES : [query.role]).map(async (role) => {
        const endpoint = config.roles[role];
        const same = endpoint === undefined ? role : JSON.stringify([endpoint.baseUrl, endpoint.apiKey, endpoint.model]);
        let pending = asked.get(same);
        if (pending === undefined) {
          pending = resolveContextWindow(null, endpoint);
          asked.set(same, pending);
        }
        const window = await pending;
        const note = window.note === undefined ? null : endpoint === undefined ? window.note : scrubSecret(window.note, endpoint.apiKey);
        const discovered: ContextWindowView = { tokens: window.tokens, source: window.source, note };
        roles[role] = { configured: config.contextWindows[role], discovered };
      }),
    );
    return { roles };
  });
}
