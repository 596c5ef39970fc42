import { describe, expect, it } from 'vitest';
import { answerFromForm, questionKeyAction, type KeyPress } from './question-keys.ts';

const press = (key: string, over: Partial<KeyPress> = {}): KeyPress => ({ key, shift: false, modifier: false, composing: false, target: 'page', ...over });

describe('questionKeyAction', () => {
  it('maps 1..N to the options and ignores numbers past the last one', () => {
    expect(questionKeyAction(press('1'), 3)).toEqual({ type: 'pick', index: 0 });
    expect(questionKeyAction(press('3'), 3)).toEqual({ type: 'pick', index: 2 });
    expect(questionKeyAction(press('4'), 3)).toBeNull();
    expect(questionKeyAction(press('2', { target: 'choice' }), 3)).toEqual({ type: 'pick', index: 1 });
  });

  it('picks Other with 0 or o, but only when there are options', () => {
    expect(questionKeyAction(press('0'), 2)).toEqual({ type: 'other' });
    expect(questionKeyAction(press('o'), 2)).toEqual({ type: 'other' });
    expect(questionKeyAction(press('O'), 2)).toEqual({ type: 'other' });
    expect(questionKeyAction(press('0'), 0)).toBeNull();
    expect(questionKeyAction(press('1'), 0)).toBeNull();
  });

  it('submits on Enter from the page, a radio, the Other box or the text area', () => {
    for (const target of ['page', 'choice', 'text-input', 'textarea'] as const) {
      expect(questionKeyAction(press('Enter', { target }), 2)).toEqual({ type: 'submit' });
    }
  });

  it('keeps Shift+Enter as a newline in the text area', () => {
    expect(questionKeyAction(press('Enter', { target: 'textarea', shift: true }), 0)).toBeNull();
  });

  it('never picks an option while typing in a text box', () => {
    expect(questionKeyAction(press('1', { target: 'text-input' }), 3)).toBeNull();
    expect(questionKeyAction(press('o', { target: 'textarea' }), 3)).toBeNull();
  });

  it('leaves Enter on a link or button to it, but digits still pick there; leaves fields, shortcuts and composition alone', () => {
    expect(questionKeyAction(press('Enter', { target: 'control' }), 2)).toBeNull();
    expect(questionKeyAction(press('1', { target: 'control' }), 2)).toEqual({ type: 'pick', index: 0 });
    expect(questionKeyAction(press('0', { target: 'control' }), 2)).toEqual({ type: 'other' });
    expect(questionKeyAction(press('1', { target: 'field' }), 2)).toBeNull();
    expect(questionKeyAction(press('Enter', { target: 'field' }), 2)).toBeNull();
    expect(questionKeyAction(press('1', { modifier: true }), 2)).toBeNull();
    expect(questionKeyAction(press('Enter', { target: 'textarea', composing: true }), 0)).toBeNull();
  });

  it('accepts digits typed with Shift, as on AZERTY keyboards', () => {
    expect(questionKeyAction(press('2', { shift: true }), 2)).toEqual({ type: 'pick', index: 1 });
  });
});

describe('answerFromForm', () => {
  const options = ['ISO 8601 strings', 'Date objects'];

  it('sends the option text verbatim, or the Other text trimmed', () => {
    expect(answerFromForm({ options, choice: { kind: 'option', index: 1 }, otherText: '', freeText: '' })).toEqual({ ok: true, answer: 'Date objects' });
    expect(answerFromForm({ options, choice: { kind: 'other' }, otherText: '  epoch ms ', freeText: '' })).toEqual({ ok: true, answer: 'epoch ms' });
  });

  it('sends the free text when the question has no options', () => {
    expect(answerFromForm({ options: [], choice: { kind: 'none' }, otherText: '', freeText: 'No reminders\nplease' })).toEqual({
      ok: true,
      answer: 'No reminders\nplease',
    });
  });

  it('says what is missing instead of sending an empty answer', () => {
    expect(answerFromForm({ options, choice: { kind: 'none' }, otherText: '', freeText: '' }).ok).toBe(false);
    expect(answerFromForm({ options, choice: { kind: 'other' }, otherText: '   ', freeText: '' }).ok).toBe(false);
    expect(answerFromForm({ options: [], choice: { kind: 'none' }, otherText: '', freeText: ' \n ' }).ok).toBe(false);
  });
});
