import type { FastifyInstance } from 'fastify';
import type { ConfigResponse } from '../../shared/api.ts';
import type { AppDeps } from '../app.ts';
import { describeConfig } from '../config.ts';

export function configRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/api/config', async (): Promise<ConfigResponse> => describeConfig(deps.config));
}
