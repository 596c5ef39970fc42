/**
 * Registers a handler for an endpoint of the contract (shared/routes.ts), validating in and out.
 *
 * In: the path parameters, then the query, then the body are parsed with the entry's schemas
 * before the handler runs; a failure is a 400 `invalid_request` naming each problem. An endpoint
 * that declares no query or body takes none (an empty object stands for "nothing sent").
 *
 * Out: what the handler returns is checked against the entry's response schema. A mismatch is a
 * server bug, not the client's fault: the client gets a 500 `response_invalid` (the message
 * hidden like any 5xx), and the log gets an error line with the endpoint and the zod issues, so
 * a test that reaches it fails on the status and the line says where to look. What was checked is
 * sent as the handler returned it, so schemas with defaults are applied once, by the client.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ROUTES, type EndpointName, type Routes } from '../../../shared/routes.ts';
import { AppError, describeZodError } from '../../errors/app-error.ts';
import { parseInput } from './validate.ts';

const NOTHING = z.strictObject({});

type Parsed<E, K extends 'params' | 'query' | 'body'> = E extends { [P in K]: infer S extends z.ZodType } ? z.output<S> : Record<string, never>;

export interface HandlerInput<N extends EndpointName> {
  params: Parsed<Routes[N], 'params'>;
  query: Parsed<Routes[N], 'query'>;
  body: Parsed<Routes[N], 'body'>;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** A handler answers the body; it may set another success status on `reply` first. */
export type Handler<N extends EndpointName> = (input: HandlerInput<N>) => Promise<z.input<Routes[N]['response']>>;

export function handle<N extends EndpointName>(app: FastifyInstance, name: N, handler: Handler<N>): void {
  const entry: Routes[N] = ROUTES[name];
  const schemas = entry as { params?: z.ZodType; query?: z.ZodType; body?: z.ZodType; status?: number };
  app.route({
    method: entry.method,
    url: entry.path,
    handler: async (request, reply) => {
      const params = parseInput(schemas.params ?? NOTHING, request.params, 'params');
      const query = parseInput(schemas.query ?? NOTHING, request.query, 'query');
      const body = parseInput(schemas.body ?? NOTHING, request.body, 'body');
      reply.status(schemas.status ?? 200);
      const out = await handler({ params, query, body, request, reply } as HandlerInput<N>);
      const checked = entry.response.safeParse(out);
      if (!checked.success) {
        request.log.error({ endpoint: name, issues: checked.error.issues }, `response of ${name} does not match its schema`);
        throw new AppError('response_invalid', `${entry.method} ${entry.path} answered a body its schema refuses: ${describeZodError(checked.error)}`);
      }
      return out;
    },
  });
}
