import type { ConfigResponse } from '../../../shared/api.ts';
import { Link } from '../router.tsx';
import { paths } from '../paths.ts';

const REQUIRED = ['TILTH_BASE_URL', 'TILTH_API_KEY', 'TILTH_WORKER_MODEL'] as const;

/** Shown when no model provider is configured; `compact` links to Settings instead of explaining. */
export function ProviderBanner({ paths: files, compact = false }: { paths: ConfigResponse['paths']; compact?: boolean }) {
  if (compact) {
    return (
      <div className="callout callout-warning" data-testid="provider-hint" role="note">
        No model provider is configured yet, so sessions cannot run. {/* Worded without "Settings" so the nav link stays the only link of that name. */}
        <Link to={paths.settings} testId="provider-hint-link">
          Here is what to set
        </Link>
        .
      </div>
    );
  }
  return (
    <div className="callout callout-warning" data-testid="provider-banner" role="note">
      <h2>No model provider configured</h2>
      <p>
        Tilth needs an OpenAI-compatible endpoint (OpenRouter, OpenAI, Ollama, LM Studio, vLLM, llama.cpp server…). Fill in the base URL, API key and worker
        model below and save: no restart needed. Or set
      </p>
      <ul className="env-list">
        {REQUIRED.map((name) => (
          <li key={name}>
            <code>{name}</code>
          </li>
        ))}
      </ul>
      <p>
        in your shell environment or in <code data-testid="dotenv-path">{files.dotenv}</code> and restart <code>tilth serve</code>; those win over what this
        page saves to <code data-testid="config-file-path">{files.config_file}</code>.
      </p>
    </div>
  );
}

/**
 * On the new-session page: without a model for the interview no session can start, so say so
 * before the user writes a whole brief.
 */
export function InterviewProviderNote() {
  return (
    <div className="callout callout-warning" data-testid="interview-provider-note" role="note">
      <strong>No model is configured for the interview</strong>, so a session cannot start yet.{' '}
      {/* Worded without "Settings" so the nav link stays the only link of that name. */}
      <Link to={paths.settingsThenBack(paths.newSession)} testId="interview-provider-link">
        Set up a provider
      </Link>{' '}
      first; it takes effect at once, and what you type here is kept.
    </div>
  );
}
