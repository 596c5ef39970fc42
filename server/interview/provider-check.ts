/**
 * Before an interview starts (a new session, a retry), one quick question to its model's
 * provider: are you there, and do you take this key? A provider that is down is said at once, in
 * its own words, before a branch or worktree exists — not after half a minute of retries inside
 * an interview the user is watching.
 */
import type { ModelClient } from '../llm/client.ts';
import { ProviderCheckError, ProviderNotConfiguredError } from '../llm/errors.ts';

/** Long enough for a local server busy loading a model to list it; short enough to wait for. */
export const PROVIDER_CHECK_TIMEOUT_MS = 5_000;

export type ProviderCheckPurpose = 'create' | 'retry';

const OUTCOME: Record<ProviderCheckPurpose, { notDone: string; retry: string }> = {
  create: { notDone: 'so no session was created', retry: 'then create the session again' },
  retry: { notDone: 'so the interview was not restarted', retry: 'then press Retry' },
};

/**
 * Throws ProviderCheckError unless the interview's model answers. A provider that answers "busy"
 * (429) passes: it is there, and the interview's own retries wait for it, visibly.
 */
export async function checkInterviewProvider(llm: ModelClient, purpose: ProviderCheckPurpose, signal?: AbortSignal): Promise<void> {
  const endpoint = llm.describeEndpoint('prep');
  // Creation says this in its own words before it gets here; a retry after the provider was
  // removed from the settings says it here.
  if (!endpoint) throw new ProviderNotConfiguredError('prep');
  const result = await llm.probe('prep', { timeoutMs: PROVIDER_CHECK_TIMEOUT_MS, ...(signal ? { signal } : {}) });
  if (result.ok || result.status === 429) return;
  const status = result.status ?? null;
  const { notDone, retry: then } = OUTCOME[purpose];
  const who = `The interview model "${endpoint.model}" at ${endpoint.baseUrl}`;
  const detail = result.detail.replace(/\.$/, '');
  if (result.oversized) {
    throw new ProviderCheckError(
      'provider_unreachable',
      `${who} answered with more than Tilth reads, ${notDone}. ${detail}. Once it answers normally, ${then.replace(/^then /, '')}.`,
    );
  }
  if (status === null) {
    throw new ProviderCheckError(
      'provider_unreachable',
      `${who} did not answer, ${notDone}. ${detail}. Check that the provider is running and that its base URL is right (Settings), ${then}.`,
    );
  }
  if (status >= 500) {
    throw new ProviderCheckError(
      'provider_unreachable',
      `${who} answered with a server error, ${notDone}. ${detail}. The provider is having trouble; wait a moment (or check its status page), ${then}.`,
    );
  }
  const fix =
    status === 401 || status === 403
      ? 'Check the API key for the interview on the settings page'
      : 'Check the base URL and the model name for the interview on the settings page';
  throw new ProviderCheckError('provider_refused', `${who} refused the request, ${notDone}. ${detail}. ${fix}, ${then}.`);
}
