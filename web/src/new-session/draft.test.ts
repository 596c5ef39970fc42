import { describe, expect, it } from 'vitest';
import { clearDraft, EMPTY_NEW_SESSION_DRAFT, loadDraft, saveDraft, shownWorkspace, type DraftStorage } from './draft.ts';

function memoryStorage(): DraftStorage & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

describe('the new-session draft', () => {
  it('keeps the workspace, brief and preset until the session is created', () => {
    const storage = memoryStorage();
    expect(loadDraft(storage)).toEqual(EMPTY_NEW_SESSION_DRAFT);
    const draft = { workspace: '/home/me/todo', brief: 'Add due dates.\nISO format.', checks_preset: 'node' as const };
    saveDraft(storage, draft);
    expect(loadDraft(storage)).toEqual(draft);
    clearDraft(storage);
    expect(loadDraft(storage)).toEqual(EMPTY_NEW_SESSION_DRAFT);
    expect(storage.items.size).toBe(0);
  });

  it('stores nothing for an empty form', () => {
    const storage = memoryStorage();
    saveDraft(storage, { workspace: '/x', brief: '', checks_preset: null });
    saveDraft(storage, EMPTY_NEW_SESSION_DRAFT);
    expect(storage.items.size).toBe(0);
    saveDraft(storage, { workspace: '', brief: '', checks_preset: null });
    expect(storage.items.size).toBe(0);
  });

  it('offers the repository the server was started in until a workspace is typed, and a typed one, even emptied, wins', () => {
    expect(shownWorkspace(EMPTY_NEW_SESSION_DRAFT.workspace, '/home/me/todo')).toBe('/home/me/todo');
    expect(shownWorkspace(null, undefined)).toBe('');
    expect(shownWorkspace(null, null)).toBe('');
    expect(shownWorkspace('/home/me/other', '/home/me/todo')).toBe('/home/me/other');
    expect(shownWorkspace('', '/home/me/todo')).toBe('');
    // A draft from before the default existed (a string) still loads, and still wins.
    const storage = memoryStorage();
    storage.items.set('tilth.new-session-draft', JSON.stringify({ workspace: '/typed', brief: 'b', checks_preset: null }));
    expect(shownWorkspace(loadDraft(storage).workspace, '/home/me/todo')).toBe('/typed');
  });

  it('ignores a stored value that does not parse, and storage that throws', () => {
    const storage = memoryStorage();
    storage.items.set('tilth.new-session-draft', '{"workspace": 7');
    expect(loadDraft(storage)).toEqual(EMPTY_NEW_SESSION_DRAFT);
    storage.items.set('tilth.new-session-draft', JSON.stringify({ workspace: '/x', brief: 'b', checks_preset: 'maven' }));
    expect(loadDraft(storage)).toEqual(EMPTY_NEW_SESSION_DRAFT);
    const refusing: DraftStorage = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
      removeItem: () => {
        throw new Error('denied');
      },
    };
    expect(loadDraft(refusing)).toEqual(EMPTY_NEW_SESSION_DRAFT);
    expect(() => saveDraft(refusing, { workspace: '/x', brief: 'b', checks_preset: null })).not.toThrow();
    expect(() => clearDraft(refusing)).not.toThrow();
    expect(loadDraft(null)).toEqual(EMPTY_NEW_SESSION_DRAFT);
  });
});
