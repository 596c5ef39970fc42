import type { AppDeps } from '../base/app-deps.ts';
import type { FastifyInstance } from 'fastify';
import { handle } from './contract.ts';

export function healthRoutes(app: FastifyInstance, deps: AppDeps): void {
  const startedAt = Date.now();
  handle(app, 'getHealth', async () => ({
    ok: true,
    name: 'tilth',
    version: deps.version,
    uptime_s: (Date.now() - startedAt) / 1000,
  }));
}
