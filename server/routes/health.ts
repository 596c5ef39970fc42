import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { HealthSchema } from '../../shared/api.ts';
import type { AppDeps } from '../app-deps.ts';

export function healthRoutes(app: FastifyInstance, deps: AppDeps): void {
  const startedAt = Date.now();
  app.get(
    '/api/health',
    async (): Promise<z.infer<typeof HealthSchema>> => ({
      ok: true,
      name: 'tilth',
      version: deps.version,
      uptime_s: (Date.now() - startedAt) / 1000,
    }),
  );
}
