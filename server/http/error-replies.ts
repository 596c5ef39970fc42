/**
 * Every error answer has the body `{error: {code, message}}`, including the ones that never
 * reach the error handler: Fastify's router refusals (a URL it cannot decode, a path segment past
 * `maxParamLength`) and Node's HTTP parser refusals (headers or request line too large, bytes that
 * are not HTTP), which are answered on the raw socket.
 *
 * Every code and its status come from the catalogue in `shared/errors.ts`.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError } from 'fastify';
import type { ErrorBody } from '../../shared/api.ts';
import { type ErrorCode, errorStatus } from '../../shared/errors.ts';
import { AppError } from '../errors/app-error.ts';

/** Request bodies are small JSON documents; seeds with test files are the largest. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * A request line longer than this that overflows Node's header limit is answered 414 (URI too
 * long) rather than 431: the target, not the headers, is what the client must shorten.
 */
const LONG_REQUEST_LINE = 8 * 1024;

const HIDDEN = 'Something went wrong on the server; its log has the details.';

export interface ErrorReply {
  status: number;
  error: ErrorBody['error'];
}

/** The reply for a catalogued code, with the catalogue's status. */
function reply(code: ErrorCode, message: string): ErrorReply {
  return { status: errorStatus(code), error: { code, message } };
}

/** Our own errors as they are; Fastify's mapped to stable codes; anything unknown a hidden 500. */
export function toErrorReply(error: FastifyError): ErrorReply {
  if (error instanceof AppError) {
    if (!error.expose) return reply(error.code, HIDDEN);
    const answer = reply(error.code, error.message);
    return error.fields === undefined ? answer : { ...answer, error: { ...answer.error, fields: { ...error.fields } } };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return reply('body_too_large', `Request body is larger than ${BODY_LIMIT_BYTES} bytes.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return reply('unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return reply('invalid_json', 'The body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return reply('invalid_json', 'The body is not valid JSON.');
    case 'FST_ERR_BAD_URL':
      return reply('invalid_request', 'The request path is not valid percent-encoding (a % must be followed by two hex digits).');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return reply('uri_too_long', 'A segment of the request path is too long; ids in Tilth paths are short.');
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    if (error instanceof SyntaxError) return reply('invalid_json', 'The body is not valid JSON.');
    // Fastify's own 4xx keeps its status; the catalogue's 400 is the usual one.
    return { status: error.statusCode, error: { code: 'bad_request' satisfies ErrorCode, message: error.message } };
  }
  return reply('internal_error', HIDDEN);
}

/** Node's `clientError`: its `rawPacket` is the chunk the parser failed on (typed loosely upstream). */
export type ClientError = Error & { code?: string; rawPacket?: unknown };

/** What Node's HTTP parser refused, before there was a request to hand to Fastify. */
export function clientErrorReply(err: ClientError): ErrorReply {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      if (requestLineLength(Buffer.isBuffer(err.rawPacket) ? err.rawPacket : undefined) > LONG_REQUEST_LINE) {
        return reply('uri_too_long', 'The request target is too long; send long values in a JSON body instead.');
      }
      return reply('headers_too_large', "The request headers are too large; clear this site's cookies or send fewer headers.");
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return reply('request_timeout', 'The request was not received in time.');
    default:
      return reply('bad_request', 'The request is not valid HTTP/1.1.');
  }
}

/**
 * Node's parser keeps the chunk it failed on. When that chunk starts with a request line, its
 * length says whether the target was the large part; if it starts elsewhere, it was headers.
 */
function requestLineLength(packet: Buffer | undefined): number {
  if (packet === undefined || !/^[A-Z]+ \S/.test(packet.subarray(0, 16).toString('latin1'))) return 0;
  const end = packet.indexOf('\r\n');
  return end === -1 ? packet.length : end;
}

/**
 * Answers on the raw socket, as Node and Fastify do by default, but in our body shape. There is
 * no parsed request yet, so no Host or token check can run first; the answer says nothing but
 * what was wrong with the bytes the client sent.
 */
export function answerClientError(err: ClientError, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const reply = clientErrorReply(err);
  const body = JSON.stringify({ error: reply.error } satisfies ErrorBody);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
