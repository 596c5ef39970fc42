/**
 * The provider presets as a select beside a base URL field: choosing one fills the URL, and the
 * provider's known requirements show under it — for the preset chosen, or the one the URL in the
 * field (or in effect) belongs to.
 */
import { useId } from 'react';
import { PROVIDER_PRESETS, presetForUrl, type ProviderPreset } from '../../../shared/providers.ts';

const HOSTED = PROVIDER_PRESETS.filter((p) => !p.local);
const LOCAL = PROVIDER_PRESETS.filter((p) => p.local);

export function ProviderPresetPicker(props: { fieldLabel: string; baseUrl: string; onPick: (baseUrl: string) => void }) {
  const id = useId();
  const current = presetForUrl(props.baseUrl);
  return (
    <div className="preset-picker" data-testid="provider-preset-picker">
      <div className="preset-row">
        <label htmlFor={id} className="preset-label">
          Provider
        </label>
        <select
          id={id}
          className="input select preset-select"
          data-testid="provider-preset"
          aria-label={`${props.fieldLabel}: provider preset`}
          value={current?.id ?? ''}
          onChange={(event) => {
            const preset = PROVIDER_PRESETS.find((p) => p.id === event.target.value);
            if (preset) props.onPick(preset.baseUrl);
          }}
        >
          <option value="">Other — type the base URL</option>
          <optgroup label="Hosted">
            {HOSTED.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </optgroup>
          <optgroup label="On your machine">
            {LOCAL.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </optgroup>
        </select>
      </div>
      {current !== null && <PresetRequirements preset={current} />}
    </div>
  );
}

function PresetRequirements({ preset }: { preset: ProviderPreset }) {
  return (
    <div className="preset-requirements" data-testid="provider-requirements" data-preset={preset.id} role="note">
      <p className="preset-requirements-title">
        <strong>{preset.name}</strong>
        {preset.local ? ' — a server on your machine' : ''}
        {preset.contextWindow === 'discovered' ? ' · context window read from the server' : ' · context window: set it below'}
      </p>
      <ul>
        {preset.requirements.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </div>
  );
}
