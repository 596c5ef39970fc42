/**
 * The settings page's edits as data. A draft holds only what the user changed; a field shows the
 * draft, else what config.json holds. Saving a section sends only its changed keys, so a value
 * the environment sets is never copied into the file by accident, and a key field left blank
 * keeps the saved key.
 */
import { CAP_CONFIG_KEYS, type ConfigEntry, type ConfigUpdate, type EditableConfigKey, type ModelRole, type SecretChange } from '../../../shared/api.ts';

export type SecretKey = 'TILTH_API_KEY' | 'TILTH_EVALUATOR_API_KEY' | 'TILTH_PREP_API_KEY';
export type PlainKey = Exclude<EditableConfigKey, SecretKey>;

export interface SettingsDraft {
  /** Plain values as typed; a key that is absent is unchanged. */
  values: Partial<Record<PlainKey, string>>;
  /** A new key to save, or the saved one to remove; absent: keep it. */
  secrets: Partial<Record<SecretKey, SecretChange>>;
}

export const EMPTY_DRAFT: SettingsDraft = { values: {}, secrets: {} };

export const SECRET_KEYS: readonly SecretKey[] = ['TILTH_API_KEY', 'TILTH_EVALUATOR_API_KEY', 'TILTH_PREP_API_KEY'];

export function isSecretKey(key: EditableConfigKey): key is SecretKey {
  return (SECRET_KEYS as readonly string[]).includes(key);
}

/** The page's forms and the keys each one saves. */
export const SECTIONS = {
  provider: ['TILTH_BASE_URL', 'TILTH_API_KEY', 'TILTH_WORKER_MODEL', 'TILTH_EVALUATOR_MODEL', 'TILTH_PREP_MODEL'],
  overrides: ['TILTH_EVALUATOR_BASE_URL', 'TILTH_EVALUATOR_API_KEY', 'TILTH_PREP_BASE_URL', 'TILTH_PREP_API_KEY'],
  models: [
    'TILTH_WORKER_CONTEXT_WINDOW',
    'TILTH_WORKER_PRICE_IN',
    'TILTH_WORKER_PRICE_OUT',
    'TILTH_EVALUATOR_CONTEXT_WINDOW',
    'TILTH_EVALUATOR_PRICE_IN',
    'TILTH_EVALUATOR_PRICE_OUT',
    'TILTH_PREP_CONTEXT_WINDOW',
    'TILTH_PREP_PRICE_IN',
    'TILTH_PREP_PRICE_OUT',
  ],
  caps: CAP_CONFIG_KEYS,
} as const satisfies Record<string, readonly EditableConfigKey[]>;
export type SectionName = keyof typeof SECTIONS;

/** The roles as the page names them; `prep` is the interviewer. */
export const ROLE_LABELS: Record<ModelRole, string> = { worker: 'Worker', evaluator: 'Evaluator', prep: 'Interviewer' };

export function entryFor(entries: readonly ConfigEntry[], key: string): ConfigEntry | undefined {
  return entries.find((e) => e.key === key);
}

/** What a plain field shows: the draft, else the file's value, else nothing (the placeholder tells the value in effect). */
export function fieldValue(entries: readonly ConfigEntry[], draft: SettingsDraft, key: PlainKey): string {
  return draft.values[key] ?? entryFor(entries, key)?.file_value ?? '';
}

export function setValue(draft: SettingsDraft, key: PlainKey, value: string): SettingsDraft {
  return { ...draft, values: { ...draft.values, [key]: value } };
}

/** `null` goes back to "keep the saved key". */
export function setSecret(draft: SettingsDraft, key: SecretKey, change: SecretChange | null): SettingsDraft {
  const secrets = { ...draft.secrets };
  if (change === null) delete secrets[key];
  else secrets[key] = change;
  return { ...draft, secrets };
}

/** The PUT body for one section: only the keys whose field differs from config.json. */
export function sectionUpdate(entries: readonly ConfigEntry[], draft: SettingsDraft, section: SectionName): ConfigUpdate {
  const update: Record<string, unknown> = {};
  for (const key of SECTIONS[section]) {
    if (isSecretKey(key)) {
      const change = draft.secrets[key];
      if (change !== undefined) update[key] = change;
      continue;
    }
    const typed = draft.values[key];
    if (typed === undefined) continue;
    const saved = entryFor(entries, key)?.file_value ?? '';
    if (typed.trim() === saved.trim()) continue;
    update[key] = typed.trim() === '' ? null : typed.trim();
  }
  return update as ConfigUpdate;
}

export function isDirty(entries: readonly ConfigEntry[], draft: SettingsDraft, section: SectionName): boolean {
  return Object.keys(sectionUpdate(entries, draft, section)).length > 0;
}

/** After a section is saved its fields show the file again. */
export function withoutSection(draft: SettingsDraft, section: SectionName): SettingsDraft {
  const values = { ...draft.values };
  const secrets = { ...draft.secrets };
  for (const key of SECTIONS[section]) {
    if (isSecretKey(key)) delete secrets[key];
    else delete values[key];
  }
  return { values, secrets };
}

const SOURCE_WORDS = { flag: 'a command-line flag', env: 'the environment', dotenv: 'the .env file' } as const;

/**
 * Said under a field whose value a flag, the environment or .env sets: those win over the file
 * this page writes. Null when the page's value is the one in effect.
 */
export function overrideNote(entry: ConfigEntry): string | null {
  if (!entry.overridden) return null;
  const where = SOURCE_WORDS[entry.source as keyof typeof SOURCE_WORDS];
  const shown = entry.secret ? 'a key' : `"${entry.value ?? ''}"`;
  return `${entry.key} is set to ${shown} by ${where}, which wins over this page: what you save here goes to config.json but is not used until you remove it from ${where}.`;
}
