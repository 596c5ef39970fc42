/** Parses request parts with shared zod schemas; a failure is a 400 saying what to fix. */
import type { z } from 'zod';
import { NotFoundError, ValidationError, describeZodError } from '../../errors/app-error.ts';
import type { SessionHandle } from '../../store/session-handle.ts';
import type { SessionStore } from '../../store/session-store.ts';

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params' | 'frame'): z.infer<S> {
  // No body at all is an empty object; `null` is not (the app refuses it before any handler).
  const parsed = schema.safeParse(value === undefined ? {} : value);
  if (!parsed.success) throw new ValidationError(`Invalid ${where}: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

/** The session a route's `:id` names, already a valid id: it must exist (404 otherwise). */
export function existingSession(store: SessionStore, id: string): SessionHandle {
  const session = store.session(id);
  if (!session.exists()) throw new NotFoundError('session_not_found', `No session ${id} under ${store.root}`);
  return session;
}
