/**
 * buildApp(deps) assembles the Fastify instance — security hooks, the one error handler, the
 * routes — and never listens. Tests drive it with `inject` / `injectWS`; `cli/serve.ts` listens.
 */
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ErrorBody } from '../../shared/api.ts';
import type { AppDeps } from './base/app-deps.ts';
import { answerClientError, BODY_LIMIT_BYTES, toErrorReply } from './error-replies.ts';
import { ValidationError } from '../errors/app-error.ts';
import { authRoutes } from './routes/auth.ts';
import { configRoutes } from './routes/config.ts';
import { healthRoutes } from './routes/health.ts';
import { reviewRoutes } from './routes/review.ts';
import { runRoutes } from './routes/run.ts';
import { seedingRoutes } from './routes/seeding.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { staticRoutes } from './routes/static.ts';
import { streamRoutes } from './routes/stream.ts';
import { authenticate, checkHost, checkOrigin, type AuthMethod } from './base/security.ts';

export { BODY_LIMIT_BYTES } from './error-replies.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyRequest {
    authMethod: AuthMethod | null;
  }
  interface FastifyInstance {
    /** Every route as registered (method, URL), for checks that must cover all of them. */
    readonly routeTable: readonly { method: string; url: string }[];
  }
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    // Node's parser refusals (431, 414, bad bytes) in our body shape rather than Node's.
    clientErrorHandler: answerClientError,
    // The router's refusals (a URL it cannot decode, an overlong path segment) skip the hooks, so
    // the access checks run here first: they still come before anything else is said.
    frameworkErrors: (error, request, reply) => {
      try {
        checkAccess(request, undefined);
      } catch (refusal) {
        sendError(refusal as FastifyError, request, reply);
        return;
      }
      sendError(error, request, reply);
    },
  });
  app.decorateRequest('authMethod', null);
  const routeTable: { method: string; url: string }[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routeTable.push({ method, url: route.url });
  });
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
  function checkAccess(request: FastifyRequest, route: string | undefined): void {
    checkHost(request.raw.rawHeaders, deps.security);
    const path = decodedPath(request.url);
    // A path that does not decode might have been an API path: it needs the token too.
    const isApi = path === null || isApiPath(path) || (route !== undefined && isApiPath(route));
    const changesState = STATE_CHANGING.has(request.method) || request.headers.upgrade?.toLowerCase() === 'websocket';
    if (!isApi) {
      if (changesState) checkOrigin(request.headers, deps.security, null);
      return;
    }
    if (route !== '/api/auth') request.authMethod = authenticate(request.headers, deps.security);
    if (changesState) checkOrigin(request.headers, deps.security, request.authMethod);
    if (path === null) throw new ValidationError('The request path is not valid percent-encoding (a % must be followed by two hex digits).');
  }
  app.addHook('onRequest', async (request) => checkAccess(request, request.routeOptions.url));

  // Every body this API takes is a JSON object. Checked once here, after parsing and before any
  // handler, so no route can mistake `null`, an array or a bare value for an empty object.
  app.addHook('preValidation', async (request) => {
    const body: unknown = request.body;
    if (body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body))) return;
    const given = body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`;
    throw new ValidationError(`The body must be a JSON object ({...}), not ${given}.`);
  });

  app.setErrorHandler(async (error: FastifyError, request, reply) => sendError(error, request, reply));

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

/**
 * The request path as the router sees it: decoded, slashes collapsed; odd targets refused; null
 * when it is not valid percent-encoding.
 */
function decodedPath(url: string): string | null {
  if (!url.startsWith('/')) throw new ValidationError('Request targets must be paths starting with "/".');
  const raw = url.split('?')[0] ?? '';
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return null;
  }
  return path.replace(/\/+/g, '/').toLowerCase();
}

function sendError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { status, error: body } = toErrorReply(error);
  if (status >= 500) request.log.error({ err: error }, 'request failed');
  return reply
    .status(status)
    .type('application/json')
    .send({ error: body } satisfies ErrorBody);
}
