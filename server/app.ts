/**
 * buildApp(deps) assembles the Fastify instance — security hooks, the one error handler, the
 * routes — and never listens. Tests drive it with `inject` / `injectWS`; `start.ts` listens.
 */
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { ErrorBody } from '../shared/api.ts';
import { AppError, ValidationError } from './errors.ts';
import type { DemoService } from './demo/demo.ts';
import type { InterviewDeps } from './interview/engine.ts';
import type { RunQueue } from './jobs/run-queue.ts';
import type { JobRunner } from './jobs/job-runner.ts';
import type { LiveConfig } from './live-config.ts';
import type { ModelClient } from './llm/client.ts';
import { authRoutes } from './routes/auth.ts';
import { configRoutes } from './routes/config.ts';
import { healthRoutes } from './routes/health.ts';
import { reviewRoutes } from './routes/review.ts';
import { runRoutes } from './routes/run.ts';
import { seedingRoutes } from './routes/seeding.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { staticRoutes } from './routes/static.ts';
import { streamRoutes, type StreamOptions } from './routes/stream.ts';
import { authenticate, checkHost, checkOrigin, type AuthMethod, type SecurityPolicy } from './security.ts';
import type { SessionStore } from './store/session-store.ts';

export interface AppDeps {
  /** The one source of truth for the configuration; the settings page changes it. */
  config: LiveConfig;
  store: SessionStore;
  jobs: JobRunner;
  runs: RunQueue;
  /** Demo mode's scripted model; absent in tests that do not need it. */
  demo?: DemoService;
  llm: ModelClient;
  /** Interview tuning (tests shorten the empty-reply backoff). */
  interview?: Omit<InterviewDeps, 'llm'>;
  security: SecurityPolicy;
  version: string;
  /** Distinguishes launches, so a reconnecting client can tell it reached a new server. */
  serverId: string;
  /** Folder of the built SPA (index.html + assets). */
  webRoot: string;
  stream?: StreamOptions;
  logger?: FastifyServerOptions['logger'];
}

/** Request bodies are small JSON documents; seeds with test files are the largest. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyRequest {
    authMethod: AuthMethod | null;
  }
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
  });
  app.decorateRequest('authMethod', null);
  // Registered before our hooks: its own onRequest hook marks upgrade requests so that a refused
  // upgrade's socket is destroyed after the error response instead of lingering.
  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });

  // Ordering matters: Host first (DNS rebinding), then the token, then Origin for anything that
  // changes state or upgrades to a WebSocket. The static SPA needs only the Host check: it holds
  // no data, and it must load to perform the token handshake.
  //
  // "Is this an API request?" is decided twice, and either answer means yes: from the route the
  // router actually matched (so `/%61pi/x` or an absolute-form target cannot route to an API
  // handler unchecked), and from the decoded path (so unmatched API paths are checked too).
  app.addHook('onRequest', async (request) => {
    checkHost(request.headers.host, deps.security);
    const path = decodedPath(request.url);
    const route = request.routeOptions.url;
    const isApi = isApiPath(path) || (route !== undefined && isApiPath(route));
    const changesState = STATE_CHANGING.has(request.method) || request.headers.upgrade?.toLowerCase() === 'websocket';
    if (!isApi) {
      if (changesState) checkOrigin(request.headers, deps.security, null);
      return;
    }
    if (route !== '/api/auth') request.authMethod = authenticate(request.headers, deps.security);
    if (changesState) checkOrigin(request.headers, deps.security, request.authMethod);
  });

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const body = toErrorBody(error);
    if (body.status >= 500) request.log.error({ err: error }, 'request failed');
    return reply.status(body.status).type('application/json').send({ error: body.error } satisfies ErrorBody);
  });

  healthRoutes(app, deps);
  authRoutes(app, deps);
  configRoutes(app, deps);
  sessionRoutes(app, deps);
  seedingRoutes(app, deps);
  runRoutes(app, deps);
  reviewRoutes(app, deps);
  streamRoutes(app, deps);
  await staticRoutes(app, deps);
  return app;
}

function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

/** The request path as the router sees it: decoded, slashes collapsed; odd targets refused. */
function decodedPath(url: string): string {
  if (!url.startsWith('/')) throw new ValidationError('Request targets must be paths starting with "/".');
  const raw = url.split('?')[0] ?? '';
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    throw new ValidationError('The request path is not valid percent-encoding.');
  }
  return path.replace(/\/+/g, '/').toLowerCase();
}

/** Fastify's own errors mapped to stable codes; anything unknown is a hidden 500. */
function toErrorBody(error: FastifyError): { status: number; error: ErrorBody['error'] } {
  if (error instanceof AppError) {
    if (error.status >= 500 && error.code !== 'corrupt_file') {
      return { status: error.status, error: { code: error.code, message: 'Something went wrong on the server; its log has the details.' } };
    }
    return { status: error.status, error: { code: error.code, message: error.message } };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, error: { code: 'body_too_large', message: `Request body is larger than ${BODY_LIMIT_BYTES} bytes.` } };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, error: { code: 'unsupported_media_type', message: 'Send the body as application/json.' } };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, error: { code: 'invalid_json', message: 'The body is empty; send a JSON object.' } };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, error: { code: 'invalid_json', message: 'The body is not valid JSON.' } };
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    if (error instanceof SyntaxError) return { status: 400, error: { code: 'invalid_json', message: 'The body is not valid JSON.' } };
    return { status: error.statusCode, error: { code: 'bad_request', message: error.message } };
  }
  return { status: 500, error: { code: 'internal_error', message: 'Something went wrong on the server; its log has the details.' } };
}
