import { useEffect, useRef, useState, type FormEvent, type RefObject } from 'react';
import { answerFromForm, type Choice } from './question-keys.ts';
import { useQuestionKeys } from './use-question-keys.ts';
import type { PendingQuestion } from './interview-state.ts';

export interface QuestionFormProps {
  question: PendingQuestion;
  submitting: boolean;
  /** The server's refusal (409 not pending, 400 empty), shown under the form. */
  error: string | null;
  onSubmit: (answer: string) => void;
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

  const formRef = useQuestionKeys(options.length, {
    pick: (index) => {
      setChoice({ kind: 'option', index });
      setProblem(null);
      optionRefs.current[index]?.focus();
    },
    other: () => {
      setChoice({ kind: 'other' });
      setProblem(null);
      otherRef.current?.focus();
    },
    submit,
  });

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
          <OptionChoices
            questionId={question.question_id}
            options={options}
            choice={choice}
            onChoice={setChoice}
            otherText={otherText}
            onOtherText={setOtherText}
            optionRefs={optionRefs}
            otherRef={otherRef}
          />
        )}
        <AnswerActions submitting={submitting} optionCount={options.length} />
        {shown !== null && (
          <p className="field-error" role="alert" data-testid="answer-error">
            {shown}
          </p>
        )}
      </fieldset>
    </form>
  );
}

/** The submit button, with the keys that work here in words. */
function AnswerActions({ submitting, optionCount }: { submitting: boolean; optionCount: number }) {
  return (
    <div className="actions">
      <button type="submit" className="button" data-testid="submit-answer">
        {submitting ? 'Sending…' : 'Answer'}
      </button>
      <span className="muted small">
        {optionCount === 0 ? 'Enter sends, Shift+Enter adds a line.' : `Keys 1–${Math.min(optionCount, 9)} pick, 0 picks Other, Enter sends.`}
      </span>
    </div>
  );
}

interface OptionChoicesProps {
  /** Names the radio group, one per question. */
  questionId: string;
  options: readonly string[];
  choice: Choice;
  onChoice: (choice: Choice) => void;
  otherText: string;
  onOtherText: (text: string) => void;
  /** The radio buttons, by option index, and the "Other" box: the keys and the first focus move to them. */
  optionRefs: RefObject<(HTMLInputElement | null)[]>;
  otherRef: RefObject<HTMLInputElement | null>;
}

/** The options as radio buttons with their keys, then "Other" with its text box, which picks it when typed in. */
function OptionChoices({ questionId, options, choice, onChoice, otherText, onOtherText, optionRefs, otherRef }: OptionChoicesProps) {
  return (
    <div className="options" role="radiogroup">
      {options.map((option, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the question's options are fixed while it is asked, and the choice is kept by index
        <label key={i} className={`option${choice.kind === 'option' && choice.index === i ? ' option-selected' : ''}`}>
          <input
            ref={(el) => {
              optionRefs.current[i] = el;
            }}
            type="radio"
            name={`answer-${questionId}`}
            data-testid="question-option"
            data-index={i + 1}
            checked={choice.kind === 'option' && choice.index === i}
            onChange={() => onChoice({ kind: 'option', index: i })}
          />
          {i < 9 && <kbd className="option-key">{i + 1}</kbd>}
          <span>{option}</span>
        </label>
      ))}
      <label className={`option option-other${choice.kind === 'other' ? ' option-selected' : ''}`}>
        <input
          type="radio"
          name={`answer-${questionId}`}
          data-testid="other-option"
          checked={choice.kind === 'other'}
          onChange={() => {
            onChoice({ kind: 'other' });
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
          onFocus={() => onChoice({ kind: 'other' })}
          onChange={(event) => {
            onOtherText(event.target.value);
            onChoice({ kind: 'other' });
          }}
          placeholder="Your own answer"
        />
      </label>
    </div>
  );
}
