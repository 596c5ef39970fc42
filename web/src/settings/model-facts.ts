/**
 * What the settings page says about each role's context window and price: the placeholders of
 * the fields (what applies when a field is left blank) and the line under them comparing the
 * configured window with what the provider reports. Pure.
 */
import type { ConfigEntry, ContextWindowSource, ModelRole, RoleContextWindow, RoleView } from '../../../shared/api.ts';
import { formatInt } from '../../../shared/format.ts';

export const WINDOW_KEYS: Record<ModelRole, 'TILTH_WORKER_CONTEXT_WINDOW' | 'TILTH_EVALUATOR_CONTEXT_WINDOW' | 'TILTH_PREP_CONTEXT_WINDOW'> = {
  worker: 'TILTH_WORKER_CONTEXT_WINDOW',
  evaluator: 'TILTH_EVALUATOR_CONTEXT_WINDOW',
  prep: 'TILTH_PREP_CONTEXT_WINDOW',
};

export const PRICE_KEYS = {
  worker: { in: 'TILTH_WORKER_PRICE_IN', out: 'TILTH_WORKER_PRICE_OUT' },
  evaluator: { in: 'TILTH_EVALUATOR_PRICE_IN', out: 'TILTH_EVALUATOR_PRICE_OUT' },
  prep: { in: 'TILTH_PREP_PRICE_IN', out: 'TILTH_PREP_PRICE_OUT' },
} as const satisfies Record<ModelRole, { in: string; out: string }>;

export const WINDOW_SOURCE_NAMES: Record<ContextWindowSource, string> = {
  config: 'the configuration',
  openrouter: 'OpenRouter',
  vllm: 'vLLM',
  llamacpp: 'llama.cpp',
  lmstudio: 'LM Studio',
  ollama: 'Ollama',
  unknown: 'the provider',
};

/**
 * Placeholder of a role's window field when its own value is not set: the worker's when the
 * server says the role borrows it, else what the provider reports, else a prompt to set it.
 */
export function windowPlaceholder(role: ModelRole, own: ConfigEntry | undefined, view: RoleView, reported: RoleContextWindow | undefined): string {
  if (own?.value != null) return own.value;
  if (role !== 'worker' && view.context_window !== null) return `${view.context_window} (the worker's)`;
  const tokens = reported?.discovered.tokens ?? null;
  if (tokens !== null) return `${tokens} (from ${WINDOW_SOURCE_NAMES[reported!.discovered.source]})`;
  return 'Unknown — type it';
}

/** Placeholder of a price field: its value in effect, the worker's it borrows, or "not set". */
export function pricePlaceholder(role: ModelRole, side: 'in' | 'out', own: ConfigEntry | undefined, view: RoleView): string {
  if (own?.value != null) return own.value;
  if (role !== 'worker' && view.price !== null) return `${side === 'in' ? view.price.input_per_million : view.price.output_per_million} (the worker's)`;
  return 'Not set';
}

export interface WindowReport {
  /** `warning`: the configured window is larger than what the provider says it serves. */
  tone: 'ok' | 'warning' | 'unknown';
  /** The window Tilth works with, in one sentence. */
  inEffect: string;
  /** What the provider says, and its note; null when it says nothing worth a line. */
  provider: string | null;
}

/** The line under a role's fields: the window in effect, and the provider's own figure beside it. */
export function describeWindow(report: RoleContextWindow): WindowReport {
  const { configured, discovered } = report;
  const source = WINDOW_SOURCE_NAMES[discovered.source];
  const note = discovered.note === null ? '' : ` ${discovered.note}`;
  const provider =
    discovered.tokens === null ? (discovered.note === null ? null : discovered.note) : `${source} reports ${formatInt(discovered.tokens)} tokens.${note}`;
  if (configured !== null) {
    const larger = discovered.tokens !== null && configured > discovered.tokens;
    if (larger) {
      return {
        tone: 'warning',
        inEffect: `In effect: ${formatInt(configured)} tokens, as set here — more than the ${formatInt(discovered.tokens!)} ${source} reports. Requests past that are refused or silently cut: raise it at the provider, or set it lower here.`,
        provider: discovered.note,
      };
    }
    return { tone: 'ok', inEffect: `In effect: ${formatInt(configured)} tokens, as set here.`, provider };
  }
  if (discovered.tokens !== null)
    return { tone: 'ok', inEffect: `In effect: ${formatInt(discovered.tokens)} tokens, from ${source}.`, provider: discovered.note };
  return {
    tone: 'unknown',
    inEffect: "Unknown: set it, or Tilth cannot leave old tool output out before the model's limit.",
    provider,
  };
}
