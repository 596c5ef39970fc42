import type { UseQueryResult } from '@tanstack/react-query';
import type { ConfigEntry, ConfigResponse, ContextWindowsResponse, ModelRole } from '../../../shared/api.ts';
import { presetForUrl } from '../../../shared/providers.ts';
import { describeWindow, PRICE_KEYS, pricePlaceholder, WINDOW_KEYS, windowPlaceholder } from './model-facts.ts';
import {
  entryFor,
  fieldValue,
  isDirty,
  setSecret,
  setValue,
  type PlainKey,
  type SecretKey,
  type SectionName,
  ROLE_LABELS,
  SECTIONS,
  type SettingsDraft,
} from './settings-draft.ts';
import { SecretSetting, TextSetting } from './setting-field.tsx';
import { SettingsForm, type SaveState } from './settings-form.tsx';

export interface SectionProps {
  entries: readonly ConfigEntry[];
  draft: SettingsDraft;
  onDraft: (draft: SettingsDraft) => void;
  save: (section: SectionName) => SaveState;
  onSave: (section: SectionName) => void;
  configFile: string;
  /** What the last failed save found wrong, by key; shown beside each field. */
  errors: Readonly<Record<string, string>>;
}

/** Binds fields to the draft; a key the server does not list is simply not shown. */
function fields({ entries, draft, onDraft, errors }: SectionProps) {
  const text = (key: PlainKey, label: string, extra: { placeholder?: string; example?: string; hint?: string; presets?: boolean; numeric?: boolean } = {}) => {
    const entry = entryFor(entries, key);
    return entry ? (
      <TextSetting
        entry={entry}
        label={label}
        value={fieldValue(entries, draft, key)}
        onChange={(v) => onDraft(setValue(draft, key, v))}
        error={errors[key]}
        {...extra}
      />
    ) : null;
  };
  const secret = (key: SecretKey, label: string, hint?: string) => {
    const entry = entryFor(entries, key);
    return entry ? (
      <SecretSetting
        entry={entry}
        label={label}
        change={draft.secrets[key]}
        onChange={(c) => onDraft(setSecret(draft, key, c))}
        error={errors[key]}
        {...(hint ? { hint } : {})}
      />
    ) : null;
  };
  return { text, secret };
}

function formProps(props: SectionProps, name: SectionName) {
  return { name, dirty: isDirty(props.entries, props.draft, name), save: props.save(name), configFile: props.configFile, onSave: () => props.onSave(name) };
}

/** Placeholder of a role's own value when it falls back to the worker's. */
function fallback(entries: readonly ConfigEntry[], own: string, worker: string): string {
  const value = entryFor(entries, own)?.value ?? entryFor(entries, worker)?.value;
  return value ? `${value} (the worker's)` : "Same as the worker's";
}

export function ProviderSection(props: SectionProps) {
  const { text, secret } = fields(props);
  const baseUrl = fieldValue(props.entries, props.draft, 'TILTH_BASE_URL') || (entryFor(props.entries, 'TILTH_BASE_URL')?.value ?? '');
  const example = presetForUrl(baseUrl)?.exampleModel ?? 'qwen/qwen3-coder';
  return (
    <SettingsForm
      {...formProps(props, 'provider')}
      title="Provider and models"
      intro="Any OpenAI-compatible endpoint works. The evaluator and the interviewer use the worker's endpoint unless you give them their own below."
    >
      {text('TILTH_BASE_URL', 'Base URL', { presets: true, example: 'https://openrouter.ai/api/v1' })}
      {secret('TILTH_API_KEY', 'API key', 'Local servers (Ollama, LM Studio, vLLM, llama.cpp) ignore the key but one must be set: type none.')}
      {text('TILTH_WORKER_MODEL', 'Worker model', { example: `e.g. ${example}`, hint: 'Writes the code.' })}
      {text('TILTH_EVALUATOR_MODEL', 'Evaluator model', {
        placeholder: fallback(props.entries, 'TILTH_EVALUATOR_MODEL', 'TILTH_WORKER_MODEL'),
        hint: 'Judges each task. Leave blank to use the worker model.',
      })}
      {text('TILTH_PREP_MODEL', 'Interviewer model', {
        placeholder: fallback(props.entries, 'TILTH_PREP_MODEL', 'TILTH_WORKER_MODEL'),
        hint: 'Runs the interview that writes the plan. Leave blank to use the worker model.',
      })}
    </SettingsForm>
  );
}

/** Collapsed by default: most setups use one provider for every role. */
export function OverridesSection(props: SectionProps) {
  const { text, secret } = fields(props);
  const own = SECTIONS.overrides.filter((k) => entryFor(props.entries, k)?.value != null).length;
  /** A role's own endpoint; its blank fields use the worker's. */
  const override = (role: 'evaluator' | 'prep', prefix: 'EVALUATOR' | 'PREP') => (
    <fieldset className="role-override">
      <legend>{ROLE_LABELS[role]}</legend>
      {text(`TILTH_${prefix}_BASE_URL`, `${ROLE_LABELS[role]} base URL`, {
        presets: true,
        placeholder: fallback(props.entries, `TILTH_${prefix}_BASE_URL`, 'TILTH_BASE_URL'),
      })}
      {secret(`TILTH_${prefix}_API_KEY`, `${ROLE_LABELS[role]} API key`, "Blank uses the worker's key.")}
    </fieldset>
  );
  return (
    <details className="panel role-overrides" data-testid="role-overrides">
      <summary>
        <span className="role-overrides-title">Per-role endpoints</span>{' '}
        <span className="muted">({own === 0 ? "the evaluator and the interviewer use the worker's" : `${own} value(s) of their own`})</span>
      </summary>
      <SettingsForm
        {...formProps(props, 'overrides')}
        intro="Only when the evaluator or the interviewer should use another provider than the worker. A blank field uses the worker's."
      >
        {override('evaluator', 'EVALUATOR')}
        {override('prep', 'PREP')}
      </SettingsForm>
    </details>
  );
}

export function CapsSection(props: SectionProps) {
  const { text } = fields(props);
  const cap = (key: PlainKey, label: string) => text(key, label, { numeric: true, hint: entryFor(props.entries, key)?.description ?? '' });
  return (
    <SettingsForm
      {...formProps(props, 'caps')}
      title="Caps"
      intro="Limits for each run. A run records the caps it started with; changes apply to the next run. Blank means the default."
    >
      <div className="caps-grid">
        {cap('TILTH_MAX_ITERATIONS_PER_TASK', 'Iterations per task')}
        {cap('TILTH_MAX_WALL_CLOCK_MINUTES', 'Wall clock (minutes)')}
        {cap('TILTH_MAX_TOKENS', 'Tokens per run')}
        {cap('TILTH_MAX_DOLLARS', 'Dollars per run')}
        {cap('TILTH_MAX_EVALUATOR_CALLS_PER_TASK', 'Evaluator calls per task')}
        {cap('TILTH_MAX_CONCURRENT_RUNS', 'Runs at once')}
      </div>
    </SettingsForm>
  );
}

const ROLES: readonly ModelRole[] = ['worker', 'evaluator', 'prep'];

/**
 * Per role: the model's context window and its price per million tokens, with what the
 * provider reports about the window under the fields.
 */
export function ModelFactsSection(props: SectionProps & { roles: ConfigResponse['roles']; windows: UseQueryResult<ContextWindowsResponse> }) {
  const { text } = fields(props);
  const { windows } = props;
  return (
    <SettingsForm
      {...formProps(props, 'models')}
      title="Context windows and prices"
      intro={
        <>
          With the window known, Tilth leaves old tool output out of a long conversation before it overflows, and charts each call against it. Prices, in US
          dollars per million tokens, count toward the dollar cap when the provider reports no cost (OpenRouter does; most do not). The evaluator and the
          interviewer use the worker&rsquo;s figures while they run the worker&rsquo;s model.{' '}
          <button
            type="button"
            className="button button-plain button-small"
            data-testid="windows-refresh"
            disabled={windows.isFetching}
            onClick={() => void windows.refetch()}
          >
            {windows.isFetching ? 'Asking the providers…' : 'Ask the providers again'}
          </button>
        </>
      }
    >
      {ROLES.map((role) => {
        const view = props.roles[role];
        const reported = windows.data?.roles[role];
        const own = (key: string) => entryFor(props.entries, key);
        return (
          <fieldset key={role} className="role-override model-facts" data-testid="model-facts" data-role={role}>
            <legend>
              {ROLE_LABELS[role]}
              {view.configured && (
                <span className="muted model-facts-model">
                  {' '}
                  — <code>{view.model}</code>
                </span>
              )}
            </legend>
            <div className="facts-grid">
              {text(WINDOW_KEYS[role], 'Context window', {
                numeric: true,
                hint: 'tokens',
                placeholder: windowPlaceholder(role, own(WINDOW_KEYS[role]), view, reported),
              })}
              {text(PRICE_KEYS[role].in, 'Input price', {
                numeric: true,
                hint: '$ per million tokens',
                placeholder: pricePlaceholder(role, 'in', own(PRICE_KEYS[role].in), view),
              })}
              {text(PRICE_KEYS[role].out, 'Output price', {
                numeric: true,
                hint: '$ per million tokens',
                placeholder: pricePlaceholder(role, 'out', own(PRICE_KEYS[role].out), view),
              })}
            </div>
            <WindowLine role={role} configured={view.configured} windows={windows} />
          </fieldset>
        );
      })}
    </SettingsForm>
  );
}

function WindowLine({ role, configured, windows }: { role: ModelRole; configured: boolean; windows: UseQueryResult<ContextWindowsResponse> }) {
  const reported = windows.data?.roles[role];
  if (!configured) return null;
  if (reported === undefined) {
    return (
      <p className="field-hint muted window-line" data-testid="window-line" data-role={role} data-state={windows.isError ? 'error' : 'asking'}>
        {windows.isError ? `Could not ask the provider: ${windows.error.message}` : "Asking the provider for this model's context window…"}
      </p>
    );
  }
  const report = describeWindow(reported);
  return (
    <div
      className={`field-hint window-line window-${report.tone}`}
      data-testid="window-line"
      data-role={role}
      data-state={report.tone}
      data-source={reported.discovered.source}
      data-tokens={reported.discovered.tokens ?? ''}
      role={report.tone === 'warning' ? 'alert' : undefined}
    >
      <p data-testid="window-in-effect">{report.inEffect}</p>
      {report.provider !== null && (
        <p className="muted" data-testid="window-provider">
          {report.provider}
        </p>
      )}
    </div>
  );
}
