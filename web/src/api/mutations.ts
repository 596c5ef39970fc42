/**
 * The state-changing calls of the seeding flow and the run, built on an `ApiClient` so tests pass
 * one with a fake fetch; pages use `seeding` and `runs` (the browser's client) inside `useMutation`.
 */
import { z } from 'zod';
import {
  ConfigResponseSchema,
  ConnectionTestResultSchema,
  CreatedSessionSchema,
  NoteResponseSchema,
  RunResponseSchema,
  StopResponseSchema,
  type ConfigResponse,
  type ConfigUpdate,
  type ConnectionTestResult,
  type ModelRole,
  type SessionListItem,
} from '../../../shared/api.ts';
import type { SteeringNote } from '../../../shared/files.ts';
import { SeedViewSchema, type ChecksPreset, type SeedEdit, type SeedView } from '../../../shared/seed.ts';
import { api as browserApi } from './browser.ts';
import type { ApiClient } from './client.ts';

/** `{ok: true}`, what answer and discard return. */
const OkSchema = z.object({ ok: z.literal(true) });

const sessionPath = (id: string) => `/api/sessions/${encodeURIComponent(id)}`;

export interface CreateSessionInput {
  workspace: string;
  brief: string;
  alongside?: boolean;
  checks_preset?: ChecksPreset;
}

export function seedingCalls(api: ApiClient) {
  return {
    async createSession(input: CreateSessionInput): Promise<SessionListItem> {
      return (await api.post('/api/sessions', input, CreatedSessionSchema)).session;
    },

    /** A demo session: the bundled example with the scripted demo model, no provider needed. */
    async startDemo(): Promise<SessionListItem> {
      return (await api.post('/api/demo', {}, CreatedSessionSchema)).session;
    },

    /** Removes the session's worktree, branch and folder; the server wants the id repeated. */
    async discardSession(id: string): Promise<void> {
      await api.delete(`${sessionPath(id)}?${new URLSearchParams({ confirm: id }).toString()}`, OkSchema);
    },

    /** A failed interview again, same session and brief; refused while its provider is still down. */
    async retryInterview(id: string): Promise<SessionListItem> {
      return (await api.post(`${sessionPath(id)}/interview/retry`, {}, CreatedSessionSchema)).session;
    },

    async answerQuestion(input: { sessionId: string; questionId: string; answer: string }): Promise<void> {
      await api.post(`${sessionPath(input.sessionId)}/answer`, { questionId: input.questionId, answer: input.answer }, OkSchema);
    },

    /** The seed again, with a contract check that had an environment problem run again. */
    recheckSeed(sessionId: string): Promise<SeedView> {
      return api.get(`${sessionPath(sessionId)}/seed?recheck=1`, SeedViewSchema);
    },

    saveSeed(input: { sessionId: string; edit: SeedEdit }): Promise<SeedView> {
      return api.put(`${sessionPath(input.sessionId)}/seed`, input.edit, SeedViewSchema);
    },
  };
}

export const seeding = seedingCalls(browserApi);

export type RunResponse = z.infer<typeof RunResponseSchema>;
export type StopResponse = z.infer<typeof StopResponseSchema>;

export function runCalls(api: ApiClient) {
  return {
    /** Starts a prepared session or resumes a stopped one; a run already going answers its state. */
    startRun(sessionId: string): Promise<RunResponse> {
      return api.post(`${sessionPath(sessionId)}/run`, {}, RunResponseSchema);
    },

    /** Stops the run gracefully, or takes the session out of the queue. */
    stopRun(sessionId: string): Promise<StopResponse> {
      return api.post(`${sessionPath(sessionId)}/stop`, {}, StopResponseSchema);
    },

    /** Guidance the worker reads once, at its next iteration. */
    async addNote(input: { sessionId: string; text: string }): Promise<SteeringNote> {
      return (await api.post(`${sessionPath(input.sessionId)}/notes`, { text: input.text }, NoteResponseSchema)).note;
    },
  };
}

export const runs = runCalls(browserApi);

export function configCalls(api: ApiClient) {
  return {
    /** Writes the changed keys to config.json; answers the configuration now in effect. */
    saveConfig(update: ConfigUpdate): Promise<ConfigResponse> {
      return api.put('/api/config', update, ConfigResponseSchema);
    },

    /** Tries the role's saved (or environment's) endpoint; a failure is in the result, not thrown. */
    testConnection(role: ModelRole): Promise<ConnectionTestResult> {
      return api.post('/api/config/test', { role }, ConnectionTestResultSchema);
    },
  };
}

export const settings = configCalls(browserApi);
