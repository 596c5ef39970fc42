import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NoteResponseSchema } from '../../../shared/api.ts';
import { auth, makeTestApp, type TestApp } from '../../testing/test-app.ts';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(() => t.close());

const post = { ...auth, origin: 'http://localhost' };
const session = (status: 'prepared' | 'all_done') => t.store.create({ source: '/repo', brief: 'b', baseBranch: 'main', baseSha: 'abc', status }).session_id;

describe('POST /api/sessions/:id/notes', () => {
  it('stores a guidance note and records a steering_note event', async () => {
    const id = session('prepared');
    const res = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/notes`, headers: post, payload: { text: '  Prefer ISO dates  ' } });
    expect(res.statusCode).toBe(201);
    const { note } = NoteResponseSchema.parse(res.json());
    expect(note).toMatchObject({ text: 'Prefer ISO dates', consumed_at: null });
    const notes = t.store.session(id).steering.read();
    expect(notes.map((n) => n.note_id)).toEqual([note.note_id]);
    expect(t.store.session(id).log().readAfter(0, 100).at(-1)).toMatchObject({
      type: 'steering_note',
      data: { note_id: note.note_id, text: 'Prefer ISO dates' },
    });
  });

  it('refuses an empty note, a finished session and an unknown one, each with its code', async () => {
    const id = session('prepared');
    const empty = await t.app.inject({ method: 'POST', url: `/api/sessions/${id}/notes`, headers: post, payload: { text: '   ' } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.message).toMatch(/text must not be empty/);
    const done = session('all_done');
    const late = await t.app.inject({ method: 'POST', url: `/api/sessions/${done}/notes`, headers: post, payload: { text: 'x' } });
    expect(late.statusCode).toBe(409);
    expect(late.json().error.code).toBe('session_not_running');
    const missing = await t.app.inject({ method: 'POST', url: '/api/sessions/20200101-000000-000000/notes', headers: post, payload: { text: 'x' } });
    expect(missing.statusCode).toBe(404);
    const foreign = await t.app.inject({
      method: 'POST',
      url: `/api/sessions/${id}/notes`,
      headers: { cookie: 'tilth_token_80=test-token-0123456789abcdef', origin: 'http://evil.example' },
      payload: { text: 'x' },
    });
    expect(foreign.statusCode).toBe(403);
  });
});
