import type { FastifyInstance } from 'fastify';
import type { ConfigResponse } from '../../shared/api.ts';
import type { AppDeps } from '../app.ts';
import { describeConfig } from '../config.ts';
import { detectSandbox } from '../engine/sandbox.ts';

export function configRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/api/config', async (): Promise<ConfigResponse> => {
    const { available, tool, detail } = detectSandbox(deps.config.values.TILTH_SANDBOX.value ?? 'auto');
    return { ...describeConfig(deps.config), sandbox: { available, tool, detail } };
  });
}
