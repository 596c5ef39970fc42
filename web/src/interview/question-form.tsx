import { useEffect, useRef, useState, type FormEvent } from 'react';
import { answerFromForm, questionKeyAction, type Choice, type KeyTarget } from './question-keys.ts';
import type { PendingQuestion } from './interview-state.ts';

export interface QuestionFormProps {
  question: PendingQuestion;
  submitting: boolean;
  /** The server's refusal (409 not pending, 400 empty), shown under the form. */
  error: string | null;
  onSubmit: (answer: string) => void;
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
 * One question: radio options plus "Other" with a text box, or a free-text box. Keys 1–9 pick an
 * option, 0 or O picks "Other", Enter submits (Shift+Enter is a newline in the text area).
 */
export function QuestionForm({ question, submitting, error, onSubmit }: QuestionFormProps) {
  const options = question.options ?? [];
  const [choice, setChoice] = useState<Choice>({ kind: 'none' });
  const [otherText, setOtherText] = useState('');
  const [freeText, setFreeText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const otherRef = useRef<HTMLInputElement>(null);
  const freeRef = useRef<HTMLTextAreaElement>(null);
  const optionRefs = useRef<(HTMLInputElement | null)[]>([]);

  const submit = () => {
    if (submitting) return;
    const result = answerFromForm({ options, choice, otherText, freeText });
    if (!result.ok) {
      setProblem(result.message);
      return;
    }
    setProblem(null);
    onSubmit(result.answer);
  };

  // The latest handlers, for a document listener registered once per question.
  const latest = useRef({ submit, optionCount: options.length });
  latest.current = { submit, optionCount: options.length };

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
          setChoice({ kind: 'option', index: action.index });
          setProblem(null);
          optionRefs.current[action.index]?.focus();
          break;
        case 'other':
          setChoice({ kind: 'other' });
          setProblem(null);
          otherRef.current?.focus();
          break;
        case 'submit':
          latest.current.submit();
          break;
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);

  // A free-text question is answered by typing, so the box takes focus when it appears; an option
  // question puts it on its first option, so Tab and the arrows start from the choices.
  useEffect(() => {
    if (options.length === 0) freeRef.current?.focus();
    else optionRefs.current[0]?.focus();
  }, [options.length]);

  const onFormSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit();
  };
  const shown = error ?? problem;

  return (
    <form
      ref={formRef}
      className="panel question-form"
      data-testid="question-form"
      data-question-id={question.question_id}
      onSubmit={onFormSubmit}
      aria-busy={submitting}
    >
      <fieldset disabled={submitting}>
        <legend className="question-text" data-testid="question-text">
          {question.text}
        </legend>
        {options.length === 0 ? (
          <textarea
            ref={freeRef}
            className="input textarea"
            data-testid="free-text-input"
            aria-label="Your answer"
            rows={4}
            value={freeText}
            onChange={(event) => setFreeText(event.target.value)}
            placeholder="Your answer"
          />
        ) : (
          <div className="options" role="radiogroup">
            {options.map((option, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the question's options are fixed while it is asked, and the choice is kept by index
              <label key={i} className={`option${choice.kind === 'option' && choice.index === i ? ' option-selected' : ''}`}>
                <input
                  ref={(el) => {
                    optionRefs.current[i] = el;
                  }}
                  type="radio"
                  name={`answer-${question.question_id}`}
                  data-testid="question-option"
                  data-index={i + 1}
                  checked={choice.kind === 'option' && choice.index === i}
                  onChange={() => setChoice({ kind: 'option', index: i })}
                />
                {i < 9 && <kbd className="option-key">{i + 1}</kbd>}
                <span>{option}</span>
              </label>
            ))}
            <label className={`option option-other${choice.kind === 'other' ? ' option-selected' : ''}`}>
              <input
                type="radio"
                name={`answer-${question.question_id}`}
                data-testid="other-option"
                checked={choice.kind === 'other'}
                onChange={() => {
                  setChoice({ kind: 'other' });
                  otherRef.current?.focus();
                }}
              />
              <kbd className="option-key">0</kbd>
              <span>Other:</span>
              <input
                ref={otherRef}
                className="input"
                data-testid="other-input"
                aria-label="Other answer"
                value={otherText}
                onFocus={() => setChoice({ kind: 'other' })}
                onChange={(event) => {
                  setOtherText(event.target.value);
                  setChoice({ kind: 'other' });
                }}
                placeholder="Your own answer"
              />
            </label>
          </div>
        )}
        <div className="actions">
          <button type="submit" className="button" data-testid="submit-answer">
            {submitting ? 'Sending…' : 'Answer'}
          </button>
          <span className="muted small">
            {options.length === 0 ? 'Enter sends, Shift+Enter adds a line.' : `Keys 1–${Math.min(options.length, 9)} pick, 0 picks Other, Enter sends.`}
          </span>
        </div>
        {shown !== null && (
          <p className="field-error" role="alert" data-testid="answer-error">
            {shown}
          </p>
        )}
      </fieldset>
    </form>
  );
}
