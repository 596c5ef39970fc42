/**
 * Settings: what the configuration is and where each value came from (GET), changing the
 * provider, models and caps (PUT, written to config.json), and trying a role's endpoint (POST
 * /test). API keys go in and never come out: not in a response, a log line or an event.
 */
import type { FastifyInstance } from 'fastify';
import { ConfigUpdateSchema, ConnectionTestRequestSchema, type ConfigResponse, type ConnectionTestResult } from '../../shared/api.ts';
import type { AppDeps } from '../app.ts';
import { describeConfig } from '../config.ts';
import { detectSandbox } from '../proc/sandbox.ts';
import { parseInput } from './validate.ts';

export function configRoutes(app: FastifyInstance, deps: AppDeps): void {
  const view = (): ConfigResponse => {
    const config = deps.config.current;
    const { available, tool, detail } = detectSandbox(config.values.TILTH_SANDBOX.value ?? 'auto');
    return { ...describeConfig(config), sandbox: { available, tool, detail } };
  };

  app.get('/api/config', async (): Promise<ConfigResponse> => view());

  app.put('/api/config', async (request): Promise<ConfigResponse> => {
    const update = parseInput(ConfigUpdateSchema, request.body, 'body');
    const next = deps.config.save(update);
    // New work follows the save at once: the next model call of each role, the next run's caps,
    // a larger run limit. Runs under way keep the endpoints and caps they started with.
    deps.llm.reconfigure(next.roles);
    deps.runs.limitChanged();
    return view();
  });

  app.post('/api/config/test', async (request): Promise<ConnectionTestResult> => {
    const { role } = parseInput(ConnectionTestRequestSchema, request.body, 'body');
    const { ok, detail } = await deps.llm.probe(role);
    return { role, ok, detail };
  });
}
