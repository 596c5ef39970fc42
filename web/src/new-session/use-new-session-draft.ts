import { useEffect, useState } from 'react';
import type { ChecksPreset } from '../../../shared/seed.ts';
import { loadDraft, saveDraft, shownWorkspace, tabStorage } from './draft.ts';

/** The form's fields, saved to the tab as they change (see draft.ts). */
export function useNewSessionDraft(defaultWorkspace: string | null | undefined) {
  // What was typed before the user left (for the settings page, say) comes back with the form.
  const [initial] = useState(() => loadDraft(tabStorage()));
  // null until the user types: the field then shows the repository `tilth serve` was started in.
  const [typedWorkspace, setWorkspace] = useState(initial.workspace);
  const [brief, setBrief] = useState(initial.brief);
  const [presetChoice, setPresetChoice] = useState<ChecksPreset | null>(initial.checks_preset);
  useEffect(() => saveDraft(tabStorage(), { workspace: typedWorkspace, brief, checks_preset: presetChoice }), [typedWorkspace, brief, presetChoice]);
  return { workspace: shownWorkspace(typedWorkspace, defaultWorkspace), setWorkspace, brief, setBrief, presetChoice, setPresetChoice };
}
