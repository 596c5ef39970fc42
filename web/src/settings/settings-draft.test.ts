import { describe, expect, it } from 'vitest';
import { EDITABLE_CONFIG_KEYS, type ConfigEntry } from '../../../shared/api.ts';
import { EMPTY_DRAFT, fieldValue, isDirty, overrideNote, SECTIONS, sectionUpdate, setSecret, setValue, withoutSection } from './settings-draft.ts';

function entry(key: string, fields: Partial<ConfigEntry> = {}): ConfigEntry {
  return {
    key,
    value: null,
    source: 'default',
    secret: key.endsWith('_API_KEY'),
    description: '',
    editable: true,
    file_value: null,
    overridden: false,
    ...fields,
  };
}

const ENTRIES: ConfigEntry[] = [
  entry('TILTH_BASE_URL', { value: 'http://a/v1', source: 'file', file_value: 'http://a/v1' }),
  entry('TILTH_API_KEY', { value: 'set', source: 'file', file_value: 'set' }),
  entry('TILTH_WORKER_MODEL', { value: 'env-model', source: 'env', overridden: true }),
  entry('TILTH_MAX_DOLLARS', { value: '4', source: 'file', file_value: '4' }),
  entry('TILTH_MAX_TOKENS', { value: '2000000' }),
];

describe('settings draft', () => {
  it('puts every key the page may edit in exactly one section', () => {
    const inSections = Object.values(SECTIONS).flat();
    expect([...inSections].sort()).toEqual([...EDITABLE_CONFIG_KEYS].sort());
  });

  it('shows the file value until the user types, never the value the environment sets', () => {
    expect(fieldValue(ENTRIES, EMPTY_DRAFT, 'TILTH_BASE_URL')).toBe('http://a/v1');
    expect(fieldValue(ENTRIES, EMPTY_DRAFT, 'TILTH_WORKER_MODEL')).toBe('');
    expect(fieldValue(ENTRIES, setValue(EMPTY_DRAFT, 'TILTH_BASE_URL', 'http://b/v1'), 'TILTH_BASE_URL')).toBe('http://b/v1');
  });

  it('sends only what differs from config.json; a blank field removes the value', () => {
    let draft = setValue(EMPTY_DRAFT, 'TILTH_BASE_URL', ' http://a/v1 ');
    expect(sectionUpdate(ENTRIES, draft, 'provider')).toEqual({});
    expect(isDirty(ENTRIES, draft, 'provider')).toBe(false);
    draft = setValue(draft, 'TILTH_WORKER_MODEL', 'file-model');
    draft = setValue(draft, 'TILTH_MAX_DOLLARS', '');
    draft = setValue(draft, 'TILTH_MAX_TOKENS', '1_000');
    expect(sectionUpdate(ENTRIES, draft, 'provider')).toEqual({ TILTH_WORKER_MODEL: 'file-model' });
    expect(sectionUpdate(ENTRIES, draft, 'caps')).toEqual({ TILTH_MAX_DOLLARS: null, TILTH_MAX_TOKENS: '1_000' });
  });

  it('keeps a saved key unless the user types a new one or removes it', () => {
    let draft = setSecret(EMPTY_DRAFT, 'TILTH_API_KEY', { set: 'sk-new' });
    expect(sectionUpdate(ENTRIES, draft, 'provider')).toEqual({ TILTH_API_KEY: { set: 'sk-new' } });
    draft = setSecret(draft, 'TILTH_PREP_API_KEY', { clear: true });
    expect(sectionUpdate(ENTRIES, draft, 'overrides')).toEqual({ TILTH_PREP_API_KEY: { clear: true } });
    draft = setSecret(draft, 'TILTH_API_KEY', null);
    expect(sectionUpdate(ENTRIES, draft, 'provider')).toEqual({});
  });

  it('forgets one section after it is saved, keeping the others', () => {
    const draft = setValue(setSecret(setValue(EMPTY_DRAFT, 'TILTH_BASE_URL', 'http://c/v1'), 'TILTH_API_KEY', { set: 'k' }), 'TILTH_MAX_DOLLARS', '9');
    const left = withoutSection(draft, 'provider');
    expect(left).toEqual({ values: { TILTH_MAX_DOLLARS: '9' }, secrets: {} });
  });

  it('says plainly when the environment wins, and never quotes a key', () => {
    expect(overrideNote(ENTRIES[2]!)).toBe(
      'TILTH_WORKER_MODEL is set to "env-model" by the environment, which wins over this page: what you save here goes to config.json but is not used until you remove it from the environment.',
    );
    expect(overrideNote(entry('TILTH_API_KEY', { value: 'set', source: 'dotenv', overridden: true }))).toMatch(/is set to a key by the \.env file/);
    expect(overrideNote(ENTRIES[0]!)).toBeNull();
  });
});
