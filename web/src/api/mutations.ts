/**
 * The state-changing calls of the seeding flow and the run, built on an `ApiClient` so tests pass
 * one with a fake fetch; pages use `seeding` and `runs` (the browser's client) inside `useMutation`.
 */
import type { ConfigResponse, ConfigUpdate, ConnectionTestResult, ModelRole, SessionListItem } from '../../../shared/api.ts';
import type { SteeringNote } from '../../../shared/files.ts';
import type { EndpointResponse } from '../../../shared/routes.ts';
import type { ChecksPreset, SeedEdit, SeedSaved, SeedView } from '../../../shared/seed.ts';
import { api as browserApi } from './browser.ts';
import type { ApiClient } from './client.ts';
export interface CreateSessionInput {
  workspace: string;
  brief: string;
  alongside?: boolean;
  checks_preset?: ChecksPreset;
}

export function seedingCalls(api: ApiClient) {
  return {
    async createSession(input: CreateSessionInput): Promise<SessionListItem> {
      return (await api.call('createSession', { body: input })).session;
    },

    /** A demo session: the bundled example with the scripted demo model, no provider needed. */
    async startDemo(): Promise<SessionListItem> {
      return (await api.call('startDemo', {})).session;
    },

    /** Removes the session's worktree, branch and folder; the server wants the id repeated. */
    async discardSession(id: string): Promise<void> {
      await api.call('discardSession', { params: { id }, query: { confirm: id } });
    },

    /** A failed interview again, same session and brief; refused while its provider is still down. */
    async retryInterview(id: string): Promise<SessionListItem> {
      return (await api.call('retryInterview', { params: { id } })).session;
    },

    async answerQuestion(input: { sessionId: string; questionId: string; answer: string }): Promise<void> {
      await api.call('answerQuestion', { params: { id: input.sessionId }, body: { questionId: input.questionId, answer: input.answer } });
    },

    /** The seed again, with a contract check that had an environment problem run again. */
    recheckSeed(sessionId: string): Promise<SeedView> {
      return api.call('getSeed', { params: { id: sessionId }, query: { recheck: '1' } });
    },

    /** Saves the edit as one commit and answers once the contract check has run on it again. */
    saveSeed(input: { sessionId: string; edit: SeedEdit }): Promise<SeedSaved> {
      return api.call('putSeed', { params: { id: input.sessionId }, body: input.edit });
    },
  };
}

export const seeding = seedingCalls(browserApi);

export type RunResponse = EndpointResponse<'startRun'>;
export type StopResponse = EndpointResponse<'stopRun'>;

export function runCalls(api: ApiClient) {
  return {
    /** Starts a prepared session or resumes a stopped one; a run already going answers its state. */
    startRun(sessionId: string): Promise<RunResponse> {
      return api.call('startRun', { params: { id: sessionId } });
    },

    /** Stops the run gracefully, or takes the session out of the queue. */
    stopRun(sessionId: string): Promise<StopResponse> {
      return api.call('stopRun', { params: { id: sessionId } });
    },

    /** Guidance the worker reads once, at its next iteration. */
    async addNote(input: { sessionId: string; text: string }): Promise<SteeringNote> {
      return (await api.call('addNote', { params: { id: input.sessionId }, body: { text: input.text } })).note;
    },
  };
}

export const runs = runCalls(browserApi);

export function configCalls(api: ApiClient) {
  return {
    /** Writes the changed keys to config.json; answers the configuration now in effect. */
    saveConfig(update: ConfigUpdate): Promise<ConfigResponse> {
      return api.call('putConfig', { body: update });
    },

    /** Tries the role's saved (or environment's) endpoint; a failure is in the result, not thrown. */
    testConnection(role: ModelRole): Promise<ConnectionTestResult> {
      return api.call('testConnection', { body: { role } });
    },
  };
}

export const settings = configCalls(browserApi);
