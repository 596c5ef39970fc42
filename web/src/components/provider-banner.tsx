import type { ConfigResponse } from '../../../shared/api.ts';
import { Link, paths } from '../router.tsx';

const REQUIRED = ['TILTH_BASE_URL', 'TILTH_API_KEY', 'TILTH_WORKER_MODEL'] as const;

/** Shown when no model provider is configured; `compact` links to Settings instead of explaining. */
export function ProviderBanner({ paths: files, compact = false }: { paths: ConfigResponse['paths']; compact?: boolean }) {
  if (compact) {
    return (
      <div className="callout callout-warning" data-testid="provider-hint" role="note">
        No model provider is configured yet, so sessions cannot run.{' '}
        {/* Worded without "Settings" so the nav link stays the only link of that name. */}
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
        Tilth needs an OpenAI-compatible endpoint (OpenRouter, OpenAI, Ollama, LM Studio, vLLM, llama.cpp server…).
        Set these variables:
      </p>
      <ul className="env-list">
        {REQUIRED.map((name) => (
          <li key={name}>
            <code>{name}</code>
          </li>
        ))}
      </ul>
      <p>
        in your shell environment, in <code data-testid="dotenv-path">{files.dotenv}</code>, or in the config file{' '}
        <code data-testid="config-file-path">{files.config_file}</code>. Then restart <code>tilth serve</code>.
      </p>
    </div>
  );
}
