/** POST /api/auth: the SPA trades the token from the URL fragment for an HttpOnly cookie. */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../base/app-deps.ts';
import { UnauthorizedError } from '../../errors/app-error.ts';
import { authCookie, tokensEqual } from '../base/security.ts';
import { handle } from './contract.ts';

export function authRoutes(app: FastifyInstance, deps: AppDeps): void {
  handle(app, 'postAuth', async ({ body: { token }, reply }) => {
    if (!tokensEqual(token, deps.security.token)) {
      throw new UnauthorizedError('That link is from another launch of Tilth. Open the link printed in your terminal by the running `tilth serve`.');
    }
    reply.header('set-cookie', authCookie(deps.security.port(), token));
    return { ok: true as const };
  });
}
