import { useEffect, useRef } from 'react';
import { questionKeyAction, type KeyTarget } from './question-keys.ts';

/** What the form does for each key action; read afresh on every key, so they may close over the latest state. */
export interface QuestionKeyHandlers {
  /** A number key picked the option at this index (0-based). */
  pick: (index: number) => void;
  /** 0 or O picked "Other". */
  other: () => void;
  submit: () => void;
}

/** Where a key press landed, in the terms of `questionKeyAction`. */
function keyTarget(target: EventTarget | null, form: HTMLFormElement | null): KeyTarget {
  if (!(target instanceof HTMLElement)) return 'page';
  const inForm = form !== null && form.contains(target);
  if (target instanceof HTMLTextAreaElement) return inForm ? 'textarea' : 'field';
  if (target instanceof HTMLInputElement) {
    if (target.type === 'radio' && inForm) return 'choice';
    if (target.type === 'radio' || target.type === 'checkbox') return 'control';
    return inForm ? 'text-input' : 'field';
  }
  if (target.isContentEditable || target instanceof HTMLSelectElement) return 'field';
  if (target.closest('button, a, summary, [role="button"]') !== null) return 'control';
  return 'page';
}

/**
 * The question form's keyboard, heard on the whole document so a key works wherever focus is
 * (see `questionKeyAction`). Returns the ref for the form: a key pressed inside it is the form's.
 */
export function useQuestionKeys(optionCount: number, handlers: QuestionKeyHandlers) {
  const formRef = useRef<HTMLFormElement>(null);
  // The latest handlers, for a document listener registered once per question.
  const latest = useRef({ handlers, optionCount });
  latest.current = { handlers, optionCount };

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const action = questionKeyAction(
        {
          key: event.key,
          shift: event.shiftKey,
          modifier: event.ctrlKey || event.altKey || event.metaKey,
          composing: event.isComposing,
          target: keyTarget(event.target, formRef.current),
        },
        latest.current.optionCount,
      );
      if (action === null) return;
      event.preventDefault();
      switch (action.type) {
        case 'pick':
          latest.current.handlers.pick(action.index);
          break;
        case 'other':
          latest.current.handlers.other();
          break;
        case 'submit':
          latest.current.handlers.submit();
          break;
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);

  return formRef;
}
