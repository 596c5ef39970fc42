/**
 * Keyboard for the question form, as a pure mapping from a key press to what it does. Number
 * keys pick an option and Enter submits; inside a text box only Enter means anything (Shift+Enter
 * is a newline), so typing an answer never picks an option by accident.
 */

/** Where the key was pressed, as the form sees it. */
export type KeyTarget =
  /** Nothing that takes keys: the page, the form's background, a label. */
  | 'page'
  /** One of the form's radio buttons. */
  | 'choice'
  /** The form's one-line text box ("Other"). */
  | 'text-input'
  /** The form's free-text area. */
  | 'textarea'
  /** A button, link, summary or checkbox: Enter is its own, but a digit means nothing to it. */
  | 'control'
  /** A select, or a text box outside the form: every key is its own. */
  | 'field';

export interface KeyPress {
  key: string;
  shift: boolean;
  /** Ctrl, Alt or Meta held: a shortcut of the browser's or the system's. */
  modifier: boolean;
  /** An input method is composing (e.g. Japanese): Enter confirms the text, not the form. */
  composing: boolean;
  target: KeyTarget;
}

export type KeyAction = { type: 'pick'; index: number } | { type: 'other' } | { type: 'submit' } | null;

/** `optionCount` is 0 for a free-text question; `index` in `pick` is 0-based. */
export function questionKeyAction(press: KeyPress, optionCount: number): KeyAction {
  if (press.modifier || press.composing || press.target === 'field') return null;
  const enter = press.key === 'Enter';
  // Focus on a link or a button after a Tab: Enter follows or presses it; digits still pick.
  if (press.target === 'control' && enter) return null;
  if (press.target === 'text-input' || press.target === 'textarea') {
    return enter && !press.shift ? { type: 'submit' } : null;
  }
  if (enter) return press.shift ? null : { type: 'submit' };
  // Shift is allowed: on some keyboard layouts (AZERTY) the digits need it.
  if (optionCount === 0) return null;
  if (/^[1-9]$/.test(press.key)) {
    const index = Number(press.key) - 1;
    return index < optionCount ? { type: 'pick', index } : null;
  }
  if (press.key === '0' || press.key === 'o' || press.key === 'O') return { type: 'other' };
  return null;
}

/** The form's choice: an option by index, "Other" with its text, or nothing yet. */
export type Choice = { kind: 'option'; index: number } | { kind: 'other' } | { kind: 'none' };

/** The answer the form would send, or why it cannot be sent yet. */
export function answerFromForm(input: {
  options: readonly string[];
  choice: Choice;
  otherText: string;
  freeText: string;
}): { ok: true; answer: string } | { ok: false; message: string } {
  if (input.options.length === 0) {
    const answer = input.freeText.trim();
    return answer === '' ? { ok: false, message: 'Write an answer first.' } : { ok: true, answer };
  }
  switch (input.choice.kind) {
    case 'option': {
      const answer = input.options[input.choice.index];
      return answer === undefined ? { ok: false, message: 'Pick one of the options.' } : { ok: true, answer };
    }
    case 'other': {
      const answer = input.otherText.trim();
      return answer === '' ? { ok: false, message: 'Write your answer in the “Other” box.' } : { ok: true, answer };
    }
    case 'none':
      return { ok: false, message: 'Pick an option (keys 1–' + String(Math.min(input.options.length, 9)) + ') or write your own.' };
  }
}
