import type { ExplorationLine } from './exploration.ts';
import type { InterviewModel, InterviewUsageView, QaItem } from './interview-state.ts';
import { retryStatus, type RetryEvent } from '../pending-retry.ts';
import { useNow } from '../use-now.ts';
import { InterviewEnded, type InterviewEndedActions } from './interview-ended.tsx';
import { QuestionForm } from './question-form.tsx';
import { formatTokens, formatUsd } from '../../../shared/format.ts';
import './interview.css';

export interface InterviewViewProps {
  model: InterviewModel;
  exploration: readonly ExplorationLine[];
  submitting: boolean;
  answerError: string | null;
  onAnswer: (questionId: string, answer: string) => void;
  /** What a failed or stopped interview offers: Retry, Settings, Discard. */
  ended: InterviewEndedActions;
}

/** The interview as it happens: the question (or what the interviewer is doing), the answers so far, its exploration. */
export function InterviewView({ model, exploration, submitting, answerError, onAnswer, ended }: InterviewViewProps) {
  return (
    <div className="interview" data-testid="interview-view" data-phase={model.phase}>
      <div className="interview-main">
        <InterviewUsage usage={model.usage} />
        {model.phase === 'asking' && model.pending !== null && (
          <QuestionForm
            key={model.pending.question_id}
            question={model.pending}
            submitting={submitting}
            error={answerError}
            onSubmit={(answer) => {
              if (model.pending !== null) onAnswer(model.pending.question_id, answer);
            }}
          />
        )}
        {model.phase === 'waiting' &&
          (model.retry !== null ? (
            <RetryWait retry={model.retry} />
          ) : (
            <div className="panel interview-waiting" data-testid="interview-waiting" role="status" aria-live="polite">
              <span className="spinner" aria-hidden="true" /> Waiting for the interviewer… it is reading the code or thinking about its next question.
            </div>
          ))}
        {(model.phase === 'failed' || model.phase === 'stopped') && (
          <InterviewEnded phase={model.phase} failure={model.failure} stopReason={model.stopReason} actions={ended} />
        )}
        <QaHistory items={model.history} />
      </div>
      <ExplorationList lines={exploration} />
    </div>
  );
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A model call that failed and waits for its next attempt, counting down. */
function RetryWait({ retry }: { retry: RetryEvent }) {
  const now = useNow(1000);
  return (
    <div className="panel interview-waiting interview-retrying" data-testid="interview-waiting" data-retrying="true" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>
        <span className="interview-retry-status" data-testid="interview-retry-status">
          {capitalise(retryStatus(retry, now))}
        </span>
        <span className="muted small interview-retry-note">The interview carries on by itself once the provider answers.</span>
      </span>
    </div>
  );
}

function InterviewUsage({ usage }: { usage: InterviewUsageView }) {
  return (
    <p className="muted small interview-usage" data-testid="interview-tokens" data-tokens={usage.tokens}>
      Interview: {formatTokens(usage.tokens)} · {usage.calls} model {usage.calls === 1 ? 'call' : 'calls'} · {formatUsd(usage.costUsd)}{' '}
      <span title="The interview's spend is kept apart from the run's budget.">(not counted in the run's budget)</span>
    </p>
  );
}

export function QaHistory({ items }: { items: readonly QaItem[] }) {
  if (items.length === 0) return null;
  return (
    <section className="qa-history" data-testid="qa-history" aria-label="Questions answered so far">
      <h2>Answered</h2>
      <ol className="qa-list">
        {items.map((item) => (
          <li key={item.seq} className="qa-item" data-testid="qa-item" data-question-id={item.questionId}>
            <div className="qa-question">{item.question ?? <span className="muted">(an earlier question)</span>}</div>
            <div className="qa-answer">{item.answer}</div>
          </li>
        ))}
      </ol>
    </section>
  );
}

export function ExplorationList({ lines }: { lines: readonly ExplorationLine[] }) {
  return (
    <aside className="exploration" aria-label="What the interviewer looked at">
      <h2>Exploration</h2>
      {lines.length === 0 ? (
        <p className="muted small">Nothing read yet.</p>
      ) : (
        <ol className="exploration-list">
          {lines.map((line) => (
            <li
              key={line.seq}
              className={`exploration-line mono${line.error ? ' exploration-error' : ''}`}
              data-testid="exploration-line"
              data-tool={line.tool}
              title={line.preview ?? undefined}
            >
              {line.text}
              {line.error && <span className="exploration-flag"> — error</span>}
            </li>
          ))}
        </ol>
      )}
    </aside>
  );
}

/** The finished interview, folded under the seed review: what was asked, answered and read. */
export function InterviewTranscript({ history, exploration }: { history: readonly QaItem[]; exploration: readonly ExplorationLine[] }) {
  return (
    <details className="interview-transcript" data-testid="interview-transcript">
      <summary>
        Interview: {history.length} {history.length === 1 ? 'question' : 'questions'} answered, {exploration.length}{' '}
        {exploration.length === 1 ? 'tool call' : 'tool calls'}
      </summary>
      <div className="interview">
        <div className="interview-main">{history.length === 0 ? <p className="muted">No questions were asked.</p> : <QaHistory items={history} />}</div>
        <ExplorationList lines={exploration} />
      </div>
    </details>
  );
}
