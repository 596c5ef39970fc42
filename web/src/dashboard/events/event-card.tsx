/**
 * One event as a readable card: a head line (seq, time, type, where, and the one-line summary
 * from shared/event-text.ts) and a body written for its type (the `CARDS` table). The raw JSON is one click away; long
 * text (reasoning, prompts) opens on demand. Which parts are open is kept by the list, so a card
 * scrolled out of the virtual list and back keeps its state.
 */
import { memo, type ReactNode } from 'react';
import type { EventData, EventType, TilthEvent } from '../../../../shared/events.ts';
import { describeEvent, eventKind, eventName, headLine, isProblem, roleWords } from '../../../../shared/event-text.ts';
import { mutationSentence, SurvivorList } from '../../components/survivor-list.tsx';
import { argFields, caseView, lineCount, reasoningText, whereOf, type CaseView } from './card-text.ts';
import { Marked } from './marked-text.tsx';
import { formatInt, formatTime, formatUsd } from '../../../../shared/format.ts';
import { ScrollRegion } from '../../components/scroll-region.tsx';

export type CardPanel = 'raw' | 'reasoning' | 'prompt';

interface EventCardProps {
  event: TilthEvent;
  open: ReadonlySet<CardPanel> | undefined;
  highlighted: boolean;
  onToggle: (seq: number, panel: CardPanel) => void;
}

export const EventCard = memo(function EventCard({ event, open, highlighted, onToggle }: EventCardProps) {
  const isOpen = (panel: CardPanel) => open?.has(panel) === true;
  const toggle = (panel: CardPanel) => () => onToggle(event.seq, panel);
  const where = whereOf(event);
  const problem = isProblem(event);
  const body = cardBody(event, { isOpen, toggle });
  return (
    <article
      className={`ev-card ev-kind-${eventKind(event)}${problem ? ' ev-problem' : ''}${highlighted ? ' ev-highlight' : ''}`}
      data-testid="event-card"
      data-seq={event.seq}
      data-type={event.type}
      aria-label={`Event ${event.seq}: ${eventName(event)}`}
    >
      <header className="ev-head">
        <span className="ev-seq mono">#{event.seq}</span>
        <time className="ev-time mono" dateTime={event.ts}>
          {formatTime(event.ts)}
        </time>
        <span className={`ev-type ev-type-${event.type}`} title={`${event.type} in the log`}>
          {eventName(event)}
        </span>
        {where !== '' && <span className="ev-where">{where}</span>}
        <span className="ev-line" title={describeEvent(event)}>
          <Marked text={headLine(event)} />
        </span>
        <button type="button" className="ev-raw-toggle" aria-pressed={isOpen('raw')} onClick={toggle('raw')} data-testid="event-raw-toggle">
          {isOpen('raw') ? 'hide raw' : 'raw'}
        </button>
      </header>
      {body !== null && <div className="ev-body">{body}</div>}
      {isOpen('raw') && (
        <ScrollRegion as="pre" label={`Event ${event.seq} as logged`} className="ev-raw mono" testId="event-raw">
          <Marked text={JSON.stringify(event, null, 2)} />
        </ScrollRegion>
      )}
    </article>
  );
});

function Block({ label, children, testId, className }: { label: string; children: string; testId?: string; className?: string }) {
  return (
    <ScrollRegion as="pre" label={label} className={`ev-block mono${className ? ` ${className}` : ''}`} testId={testId}>
      <Marked text={children} />
    </ScrollRegion>
  );
}

function Fields({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="ev-fields">
      {items.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Disclosure(props: { open: boolean; onToggle: () => void; label: string; testId: string }) {
  return (
    <button type="button" className="ev-disclosure" aria-expanded={props.open} onClick={props.onToggle} data-testid={props.testId}>
      <span aria-hidden="true">{props.open ? '▾' : '▸'}</span> {props.label}
    </button>
  );
}

function CaseBody({ view }: { view: CaseView }) {
  return (
    <div className="ev-case" data-testid="case-body">
      <p>
        <Marked text={view.summary} />
      </p>
      {view.coverage.length > 0 && (
        <ul className="ev-evidence">
          {view.coverage.map((c, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a logged event never changes; the position in its list is the identity
            <li key={i}>
              <Marked text={c.criterion} /> — <span className="ev-note">addressed by</span>{' '}
              <code>
                <Marked text={c.addressedBy} />
              </code>
              {c.evidence !== null && (
                <span className="ev-note">
                  {' '}
                  · <Marked text={c.evidence} />
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      {view.workArounds.length > 0 && <p className="ev-facts">Work-arounds: {view.workArounds.join('; ')}</p>}
      {view.uncertainties.length > 0 && <p className="ev-facts">Uncertain: {view.uncertainties.join('; ')}</p>}
    </div>
  );
}

interface Panels {
  isOpen: (panel: CardPanel) => boolean;
  toggle: (panel: CardPanel) => () => void;
}

interface CardRendering<T extends EventType> {
  /** The card's body under its head, or null: the head says it all. */
  body: ((data: EventData<T>, panels: Panels) => ReactNode) | null;
  /** A first guess at the closed body's height (px), before the card is measured. */
  height: number | ((data: EventData<T>) => number);
}

function PreviewBody({ data, refused }: { data: EventData<'tool_result' | 'pre_tool_block'>; refused: boolean }) {
  return (
    <>
      <Block label="Tool result">{data.result_preview}</Block>
      {data.result_chars > data.result_preview.length && (
        <p className="ev-note">
          preview of {formatInt(data.result_chars)} chars{refused ? ' — the guard refused this call' : ''}
        </p>
      )}
    </>
  );
}

function ParseErrorBody({ data }: { data: EventData<'case_parse_error' | 'evaluator_parse_error'> }) {
  return (
    <>
      <p className="ev-facts">
        <Marked text={data.error} />
      </p>
      {data.raw_tool_calls.map((c, i) => (
        // The raw calls never change or reorder once logged, and two can be identical.
        // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list; the index is its identity
        <Block key={i} label={`Tool call ${c.name}`}>{`${c.name}(${c.arguments})`}</Block>
      ))}
    </>
  );
}

const facts = (text: string | undefined) =>
  text ? (
    <p className="ev-facts">
      <Marked text={text} />
    </p>
  ) : null;
const previewHeight = (d: EventData<'tool_result' | 'pre_tool_block'>) => Math.min(200, 24 + 18 * lineCount(d.result_preview));

/** Every event type's card body and first height guess: a new type does not compile until it has one. */
const CARDS: { [T in EventType]: CardRendering<T> } = {
  log_opened: { body: null, height: 10 },
  session_start: {
    body: (d) => {
      const { models, caps, sandbox } = d;
      const items: [string, ReactNode][] = [
        ['phase', d.phase],
        ['branch', d.branch],
      ];
      if (models) items.push(['models', `worker ${models.worker}, evaluator ${models.evaluator}`]);
      if (d.runner) items.push(['runs on', d.runner]);
      if (caps) {
        const off = (n: number, text: string) => (n > 0 ? text : 'off');
        items.push([
          'caps',
          `${caps.max_iterations_per_task} iterations/task · ${off(caps.max_evaluator_calls_per_task, `${caps.max_evaluator_calls_per_task} evaluator calls/task`)} · ${off(caps.max_dollars, formatUsd(caps.max_dollars))} · ${off(caps.max_tokens, `${formatInt(caps.max_tokens)} tokens`)} · ${off(caps.max_wall_clock_minutes, `${caps.max_wall_clock_minutes} min`)}`,
        ]);
      }
      if (sandbox)
        items.push(['shell', sandbox.available ? `sandboxed, ${sandbox.network ? 'network allowed' : 'no network'}` : `NOT sandboxed: ${sandbox.detail}`]);
      return <Fields items={items} />;
    },
    height: 80,
  },
  status_changed: { body: null, height: 10 },
  session_prepared: { body: null, height: 10 },
  seed_committed: { body: null, height: 10 },
  seed_written: { body: null, height: 10 },
  seed_edited: { body: null, height: 10 },
  task_sent_back: { body: null, height: 10 },
  task_added: { body: null, height: 10 },
  add_task_started: { body: null, height: 10 },
  add_task_failed: { body: null, height: 10 },
  question_asked: {
    body: (d) =>
      d.options && d.options.length > 0 ? (
        <ul className="ev-evidence">
          {d.options.map((o) => (
            <li key={o}>{o}</li>
          ))}
        </ul>
      ) : null,
    height: 10,
  },
  question_answered: { body: null, height: 10 },
  session_resume: { body: (d) => facts(d.plan), height: 10 },
  rewound: {
    body: (d) => (
      <p className="ev-facts">
        Moved {d.from_sha.slice(0, 12)} → {d.to_sha.slice(0, 12)}; the old tip is kept as <code>{d.backup_ref}</code>. Earlier attempts are in archive rewind{' '}
        {d.rewind}.
      </p>
    ),
    height: 10,
  },
  context_reset: { body: null, height: 10 },
  memory_load: { body: (d) => <p className="ev-facts">channels: {Object.keys(d.channels).join(', ') || 'none'}</p>, height: 10 },
  prompt_assembled: {
    body: (d, { isOpen, toggle }) => (
      <>
        <Disclosure
          open={isOpen('prompt')}
          onToggle={toggle('prompt')}
          label={`${roleWords(d.role)} prompt: ${formatInt(d.chars)} characters${d.truncated ? ' (shown truncated)' : ''}`}
          testId="prompt-toggle"
        />
        {isOpen('prompt') && <Block label={`${d.role} prompt`}>{d.content}</Block>}
      </>
    ),
    height: 80,
  },
  model_call: {
    body: (d, { isOpen, toggle }) => {
      const reasoning = reasoningText(d);
      const tokens = [`${formatInt(d.prompt_tokens)} prompt`, `${formatInt(d.eval_tokens)} completion`];
      if (d.cached_tokens) tokens.push(`${formatInt(d.cached_tokens)} cached`);
      if (d.reasoning_tokens) tokens.push(`${formatInt(d.reasoning_tokens)} reasoning`);
      const facts = [tokens.join(' · ')];
      if (d.duration_ms !== undefined) facts.push(`${(d.duration_ms / 1000).toFixed(1)} s`);
      if (d.health !== undefined && d.health !== 'ok') facts.push(`health: ${d.health}`);
      if (d.finish_reason) facts.push(`finish: ${d.finish_reason.replaceAll('_', ' ')}`);
      return (
        <>
          <p className="ev-facts">{facts.join(' · ')}</p>
          {reasoning !== '' && (
            <>
              <Disclosure
                open={isOpen('reasoning')}
                onToggle={toggle('reasoning')}
                label={`Reasoning (${plural(lineCount(reasoning), 'line')})`}
                testId="reasoning-toggle"
              />
              {isOpen('reasoning') && (
                <Block label="Reasoning" testId="reasoning" className="ev-reasoning">
                  {reasoning}
                </Block>
              )}
            </>
          )}
        </>
      );
    },
    height: 48,
  },
  model_retry: { body: null, height: 10 },
  context_elided: { body: null, height: 10 },
  provider_notice: { body: null, height: 10 },
  empty_model_response: { body: null, height: 10 },
  tool_call: {
    body: (d) => {
      const theCase = d.tool === 'submit_case' ? caseView(d.args) : null;
      if (theCase !== null) return <CaseBody view={theCase} />;
      const fields = argFields(d.args);
      if (fields.length === 0) return null;
      return (
        <div className="ev-args">
          {fields.map((f) =>
            f.block ? (
              <div key={f.name} className="ev-arg-block">
                <span className="ev-arg-name">{f.name}</span>
                <Block label={f.name}>{f.value}</Block>
              </div>
            ) : (
              <span key={f.name} className="ev-arg">
                <span className="ev-arg-name">{f.name}</span>{' '}
                <code>
                  <Marked text={f.value} />
                </code>
              </span>
            ),
          )}
        </div>
      );
    },
    height: (d) => (argFields(d.args).some((f) => f.block) ? 140 : 30),
  },
  hook_run: { body: (d) => facts(d.reason), height: 10 },
  tool_result: { body: (d) => <PreviewBody data={d} refused={false} />, height: previewHeight },
  pre_tool_block: { body: (d) => <PreviewBody data={d} refused={true} />, height: previewHeight },
  case_parse_error: { body: (d) => <ParseErrorBody data={d} />, height: 10 },
  mutation_probe_started: { body: null, height: 10 },
  mutation_probe_planned: { body: null, height: 10 },
  mutation_probe: {
    body: (d) => (
      <>
        <p className="ev-facts">{mutationSentence(d)}</p>
        <SurvivorList survivors={d.survivors} className="ev-missing" />
      </>
    ),
    height: (d) => 40 + 20 * d.survivors.length,
  },
  revision_unchanged: {
    body: (d) => (
      <p className="ev-facts">
        The case for revision {d.revision} changes nothing since the reviewer sent the task back; the worker was told to do what the reviewer asked before
        presenting it again.
      </p>
    ),
    height: () => 40,
  },
  coverage_gap: {
    body: (d) => (
      <>
        <p className="ev-facts">
          The case leaves {d.missing.length} of {d.criteria} criteria uncovered; the worker was told at once, without running the checks or the evaluator.
        </p>
        <ul className="ev-missing" data-testid="coverage-gap">
          {d.missing.map((criterion) => (
            <li key={criterion}>{criterion}</li>
          ))}
        </ul>
      </>
    ),
    height: (d) => 40 + 20 * d.missing.length,
  },
  validator_run: {
    body: (d) => (
      <ul className="ev-checks">
        {d.results.map((r, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a logged event never changes; the position in its list is the identity
          <li key={`${r.name}-${i}`} className={r.passed ? 'ev-check-pass' : 'ev-check-fail'} data-testid="check-result" data-passed={String(r.passed)}>
            <p className="ev-check-head">
              <span className={`ev-check-mark ${r.passed ? 'pass' : 'fail'}`}>{r.passed ? 'PASS' : 'FAIL'}</span> <span className="mono">{r.name}</span>
              {r.exit_code !== undefined && r.exit_code !== null && <span className="ev-note"> · exit {r.exit_code}</span>}
              {r.duration_ms !== undefined && <span className="ev-note"> · {(r.duration_ms / 1000).toFixed(1)} s</span>}
              {r.output_chars !== undefined && r.output !== undefined && r.output_chars > r.output.length && (
                <span className="ev-note">
                  {' '}
                  · output cut to {formatInt(r.output.length)} of {formatInt(r.output_chars)} chars
                </span>
              )}
            </p>
            {r.output !== undefined && r.output !== '' && (
              <Block label={`Output of ${r.name}`} testId="check-output" className="check-output">
                {r.output}
              </Block>
            )}
          </li>
        ))}
      </ul>
    ),
    height: (d) => d.results.reduce((n, r) => n + 36 + Math.min(320, 18 * lineCount(r.output ?? '')), 0),
  },
  evaluator_parse_error: { body: (d) => <ParseErrorBody data={d} />, height: 10 },
  evaluator_verdict: {
    body: (d) => (
      <div className={`ev-verdict ev-verdict-${d.verdict}`}>
        <p>
          <span className={`badge verdict-${d.verdict}`}>{d.verdict}</span>
          {d.rejection_category && <span className="badge verdict-category">{d.rejection_category.replace(/_/g, ' ')}</span>}
          {d.parse_failed === true && <span className="badge verdict-category">evaluator reply unreadable</span>}
        </p>
        {d.concern !== '' && (
          <p className="ev-concern">
            <Marked text={d.concern} />
          </p>
        )}
        {d.evidence.length > 0 && (
          <ul className="ev-evidence">
            {d.evidence.map((e, i) => (
              // The evidence list of a logged verdict never changes, and two lines can read the same.
              // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list; the index is its identity
              <li key={i}>
                <Marked text={e} />
              </li>
            ))}
          </ul>
        )}
        {d.next_step && (
          <p className="ev-next">
            <strong>Next step:</strong> <Marked text={d.next_step} />
          </p>
        )}
      </div>
    ),
    height: (d) => 110 + 20 * d.evidence.length,
  },
  ledger_appended: { body: null, height: 10 },
  task_done: { body: (d) => facts(d.summary), height: 10 },
  task_failed: { body: null, height: 10 },
  proposed_learnings: { body: (d) => (d.entry ? <Block label="Proposed learning">{d.entry}</Block> : null), height: 10 },
  commit: { body: null, height: 10 },
  steering_note: {
    body: (d) => (
      <blockquote className="ev-note-text">
        <Marked text={d.text} />
      </blockquote>
    ),
    height: 10,
  },
  merge: { body: null, height: 10 },
  push: { body: null, height: 10 },
  pr: { body: null, height: 10 },
  cleanse: { body: null, height: 10 },
  env_prepared: { body: null, height: 10 },
  setup_started: { body: null, height: 10 },
  setup_output: { body: (d) => <Block label="Setup output">{d.text}</Block>, height: 10 },
  setup_finished: { body: (d) => (d.problem ? <Block label="Setup problem">{d.problem}</Block> : null), height: 10 },
  stop: { body: (d) => facts(d.error), height: 10 },
};

/** The card entry for an event's type (one cast: TypeScript cannot correlate `CARDS[event.type]` with `event.data`). */
function card(event: TilthEvent): CardRendering<EventType> {
  return CARDS[event.type] as CardRendering<EventType>;
}

function cardBody(event: TilthEvent, panels: Panels): ReactNode {
  const { body } = card(event);
  return body === null ? null : body(event.data, panels);
}

function plural(n: number, word: string): string {
  return `${formatInt(n)} ${word}${n === 1 ? '' : 's'}`;
}

const estimates = new WeakMap<TilthEvent, number>();

/**
 * A first guess at a card's height (px) before it is measured, so the scrollbar starts close.
 * The virtualizer asks for every unmeasured row whenever the row count changes (each frame of a
 * live run), so the closed card's guess is worked out once per event.
 */
export function estimateCardHeight(event: TilthEvent, open: ReadonlySet<CardPanel> | undefined): number {
  let closed = estimates.get(event);
  if (closed === undefined) {
    closed = closedCardHeight(event);
    estimates.set(event, closed);
  }
  if (open === undefined) return closed;
  let extra = 0;
  if (open.has('raw')) extra += 300;
  if (open.has('reasoning') || open.has('prompt')) extra += 240;
  return closed + extra;
}

function closedCardHeight(event: TilthEvent): number {
  const { height } = card(event);
  return 34 + (typeof height === 'number' ? height : height(event.data));
}
