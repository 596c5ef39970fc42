/**
 * The top of the dashboard: what the run is doing now, for how long, and its newest event
 * (`now-line.ts` reads it from the events). The activity is announced to screen readers when it
 * changes; the seconds counter beside it is not, or it would be read out every second.
 */
import { Fragment, memo } from 'react';
import { formatDuration } from '../../../../shared/format.ts';
import { nowLine, type NowInput } from './now-line.ts';
import { useClock } from '../state/timing.ts';

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A sentence with its `quoted` commands shown as code. */
function Words({ text }: { text: string }) {
  const parts = text.split('`');
  // An unmatched backtick is shown as it is.
  if (parts.length % 2 === 0) return text;
  // biome-ignore lint/suspicious/noArrayIndexKey: the pieces of one fixed sentence, in order
  return parts.map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : <Fragment key={i}>{part}</Fragment>));
}
/** Whole seconds: the counter ticks once a second, so "850 ms" would only flicker past. */
const forWords = (ms: number) => (ms < 1000 ? '0 s' : formatDuration(Math.floor(ms / 1000) * 1000));

export const NowBar = memo(function NowBar(props: { input: Omit<NowInput, 'now'>; onJump: (seq: number) => void }) {
  const live = props.input.active || props.input.status === 'interviewing';
  // Twice a second, so the counter turns over within half a second of each whole second.
  const now = useClock(live ? 500 : 3_600_000);
  const line = nowLine({ ...props.input, now });
  const { task, latest } = line;
  return (
    <section className={`panel now-bar now-${line.activity}`} aria-label="Now" data-testid="now-line" data-activity={line.activity}>
      <p className="now-main">
        <span className="now-dot" aria-hidden="true" />
        <span className="now-text" role="status" data-testid="now-text">
          <Words text={capitalise(line.text)} />
        </span>
        {task !== null && (
          <span className="now-task" data-testid="now-task">
            <span className="mono">{task.id}</span>
            {task.title !== null && <> {task.title}</>}
          </span>
        )}
        {line.since !== null && (
          <span className="now-for" data-testid="now-for">
            for {forWords(now - line.since)}
          </span>
        )}
      </p>
      {latest !== null && (
        <p className="now-latest small" data-testid="now-latest">
          <span className="now-latest-label">Latest event</span>{' '}
          <button type="button" className="now-latest-seq mono" onClick={() => props.onJump(latest.seq)} aria-label={`Show event ${latest.seq} in the stream`}>
            #{latest.seq}
          </button>{' '}
          <span className="now-latest-text">
            <Words text={latest.text} />
          </span>
        </p>
      )}
    </section>
  );
});
