/**
 * The new-session form's draft, kept in the tab's sessionStorage: a user who follows "Set up a
 * provider" (or any other link) and comes back finds the workspace and the brief as they left
 * them. It lives as long as the tab, is cleared once the session is created, and a stored value
 * that does not parse is ignored rather than trusted. Until the user types a workspace the form
 * offers the repository `tilth serve` was started in; anything typed, kept here, wins over it.
 */
import { z } from 'zod';
import { ChecksPresetSchema } from '../../../shared/files.ts';

const KEY = 'tilth.new-session-draft';

export const NewSessionDraftSchema = z.object({
  /** null: nothing typed yet, so the form shows the default workspace. */
  workspace: z.string().max(4096).nullable(),
  brief: z.string().max(200_000),
  checks_preset: ChecksPresetSchema.nullable(),
});
export type NewSessionDraft = z.infer<typeof NewSessionDraftSchema>;

export const EMPTY_NEW_SESSION_DRAFT: NewSessionDraft = { workspace: null, brief: '', checks_preset: null };

/** The workspace field's text: what the user typed, else the repository the server was started in. */
export function shownWorkspace(typed: string | null, defaultWorkspace: string | null | undefined): string {
  return typed ?? defaultWorkspace ?? '';
}

/** The part of `Storage` the draft uses; null where the browser refuses storage. */
export type DraftStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export function loadDraft(storage: DraftStorage | null): NewSessionDraft {
  try {
    const text = storage?.getItem(KEY);
    if (text === null || text === undefined) return EMPTY_NEW_SESSION_DRAFT;
    const parsed = NewSessionDraftSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : EMPTY_NEW_SESSION_DRAFT;
  } catch {
    return EMPTY_NEW_SESSION_DRAFT;
  }
}

/** Saves the draft; an empty one is removed, so a tab that typed nothing keeps nothing. */
export function saveDraft(storage: DraftStorage | null, draft: NewSessionDraft): void {
  try {
    if (!draft.workspace && draft.brief === '' && draft.checks_preset === null) storage?.removeItem(KEY);
    else storage?.setItem(KEY, JSON.stringify(draft));
  } catch {
    // Storage full or refused: the form still works, it just forgets on navigation.
  }
}

export function clearDraft(storage: DraftStorage | null): void {
  try {
    storage?.removeItem(KEY);
  } catch {
    // As above: nothing to clear where nothing could be stored.
  }
}

/** The tab's sessionStorage, or null where reading it throws (storage disabled). */
export function tabStorage(): DraftStorage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}
