/** Run routes (SPEC §6, §8). For now: guidance notes, which the worker reads once at its next iteration. */
import type { FastifyInstance } from 'fastify';
import { NoteRequestSchema } from '../../shared/api.ts';
import type { SessionStatus } from '../../shared/events.ts';
import type { AppDeps } from '../app.ts';
import { ConflictError } from '../errors.ts';
import { addSteeringNote } from '../store/run-files.ts';
import { existingSessionId, parseInput } from './validate.ts';

/** A note only makes sense while there is a run ahead: before it, during it, or paused. */
const NOTE_STATUSES = new Set<SessionStatus>(['prepared', 'running', 'stopped']);

export function runRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { store } = deps;

  app.post('/api/sessions/:id/notes', async (request, reply) => {
    const id = existingSessionId(store, request.params);
    const { text } = parseInput(NoteRequestSchema, request.body, 'body');
    const { status } = store.readCheckpoint(id);
    if (!NOTE_STATUSES.has(status)) {
      throw new ConflictError('session_not_running', `Guidance goes to the worker of a run; this session is ${status}.`);
    }
    const note = addSteeringNote(store.dir(id), text);
    store.emit(id, { type: 'steering_note', data: { note_id: note.note_id, text: note.text } });
    return reply.status(201).send({ note });
  });
}
