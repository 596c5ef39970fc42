/**
 * The built SPA. Any non-API GET that is not a file gets index.html, so deep links work. The
 * HTML carries the Content-Security-Policy; the SPA needs no inline script.
 */
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../base/app-deps.ts';
import { NotFoundError } from '../../errors/app-error.ts';
import { CONTENT_SECURITY_POLICY } from '../base/security.ts';

const MISSING_BUILD_HTML = `<!doctype html><meta charset="utf-8"><title>Tilth</title>
<body style="font-family: system-ui; max-width: 40rem; margin: 4rem auto">
<h1>Tilth's web app is not built</h1>
<p>Run <code>npm run build</code> in the Tilth checkout, then reload this page.</p></body>`;

export async function staticRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const root = deps.webRoot;
  const index = path.join(root, 'index.html');
  const built = fs.existsSync(index);

  app.addHook('onSend', async (_request, reply, payload) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/html')) {
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('cache-control', 'no-store');
    }
    return payload;
  });

  if (built) {
    await app.register(fastifyStatic, {
      root,
      // One route for every file, looked up per request: a route per file would glob the folder
      // at every start (issue 32). A folder is no file: its path goes to index.html below.
      wildcard: true,
      allowedPath: (pathname) => !pathname.endsWith('/'),
      index: false,
      dotfiles: 'ignore',
      // Hashed assets can be cached for good; index.html never (it names the current assets).
      setHeaders: (res, file) => {
        if (file.includes(`${path.sep}assets${path.sep}`)) res.header('cache-control', 'public, max-age=31536000, immutable');
      },
    });
  }

  app.setNotFoundHandler(async (request, reply) => {
    const url = request.url.split('?')[0] ?? '';
    if (url.startsWith('/api/') || url === '/api' || request.method !== 'GET') {
      throw new NotFoundError('not_found', `No route ${request.method} ${url}.`);
    }
    if (!built) return reply.type('text/html; charset=utf-8').send(MISSING_BUILD_HTML);
    return reply.type('text/html; charset=utf-8').sendFile('index.html');
  });
}
