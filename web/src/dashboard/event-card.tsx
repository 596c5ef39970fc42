/**
 * One event as a readable card: a head line (seq, time, type, where, and the one-line summary
 * from `event-line.ts`) and a body written for its type. The raw JSON is one click away; long
 * text (reasoning, prompts) opens on demand. Which parts are open is kept by the list, so a card
 * scrolled out of the virtual list and back keeps its state.
 */
import { memo, type ReactNode } from 'react';
import type { TilthEvent } from '../../../shared/events.ts';
import { describeEvent } from '../event-line.ts';
import { argFields, caseView, lineCount, reasoningText, whereOf, type CaseView } from './card-text.ts';
import { eventKind, isProblem } from './event-filter.ts';
import { formatCount, formatInt, formatTime, formatUsd } from '../../../shared/format.ts';

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
  const body = cardBody(event, isOpen, toggle);
  return (
    <article
      className={`ev-card ev-kind-${eventKind(event)}${problem ? ' ev-problem' : ''}${highlighted ? ' ev-highlight' : ''}`}
      data-testid="event-card"
      data-seq={event.seq}
      data-type={event.type}
      aria-label={`Event ${event.seq}: ${event.type}`}
    >
      <header className="ev-head">
        <span className="ev-seq mono">#{event.seq}</span>
        <time className="ev-time mono" dateTime={event.ts}>
          {formatTime(event.ts)}
        </time>
        <span className={`ev-type mono ev-type-${event.type}`}>{event.type}</span>
        {where !== '' && <span className="ev-where">{where}</span>}
        <span className="ev-line" title={describeEvent(event)}>
          {headLine(event)}
        </span>
        <button type="button" className="ev-raw-toggle" aria-pressed={isOpen('raw')} onClick={toggle('raw')} data-testid="event-raw-toggle">
          {isOpen('raw') ? 'hide raw' : 'raw'}
        </button>
      </header>
      {body !== null && <div className="ev-body">{body}</div>}
      {isOpen('raw') && (
        <pre className="ev-raw mono" data-testid="event-raw">
          {JSON.stringify(event, null, 2)}
        </pre>
      )}
    </article>
  );
});

/** The head's summary: the shared one-liner, minus what the head already shows (task, iteration). */
function headLine(event: TilthEvent): string {
  switch (event.type) {
    case 'tool_call':
    case 'tool_result':
    case 'hook_run':
    case 'pre_tool_block':
      return event.type === 'tool_call'
        ? event.data.tool
        : event.type === 'hook_run'
          ? `${event.data.tool} · ${event.data.hook} ${event.data.outcome}`
          : `${event.data.tool} →`;
    case 'model_call': {
      const d = event.data;
      const cost = d.cost_usd === null || d.cost_usd === undefined ? '' : ` · ${formatUsd(d.cost_usd)}`;
      return `${d.model ?? 'model'} · ${formatCount(d.prompt_tokens)} in / ${formatCount(d.eval_tokens)} out${cost}`;
    }
    case 'validator_run':
      return event.data.passed
        ? 'checks passed'
        : `checks FAILED: ${event.data.results
            .filter((r) => !r.passed)
            .map((r) => r.name)
            .join(', ')}`;
    case 'evaluator_verdict':
      return event.data.verdict === 'accept'
        ? 'accepted'
        : `rejected${event.data.rejection_category ? ` · ${event.data.rejection_category.replace(/_/g, ' ')}` : ''}`;
    default:
      return describeEvent(event);
  }
}

function Block({ children, testId, className }: { children: string; testId?: string; className?: string }) {
  return (
    <pre className={`ev-block mono${className ? ` ${className}` : ''}`} data-testid={testId}>
      {children}
    </pre>
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
      <p>{view.summary}</p>
      {view.coverage.length > 0 && (
        <ul className="ev-evidence">
          {view.coverage.map((c, i) => (
            <li key={i}>
              {c.criterion} — <span className="ev-note">addressed by</span> <code>{c.addressedBy}</code>
              {c.evidence !== null && <span className="ev-note"> · {c.evidence}</span>}
            </li>
          ))}
        </ul>
      )}
      {view.workArounds.length > 0 && <p className="ev-facts">Work-arounds: {view.workArounds.join('; ')}</p>}
      {view.uncertainties.length > 0 && <p className="ev-facts">Uncertain: {view.uncertainties.join('; ')}</p>}
    </div>
  );
}

function cardBody(event: TilthEvent, isOpen: (p: CardPanel) => boolean, toggle: (p: CardPanel) => () => void): ReactNode {
  switch (event.type) {
    case 'session_start': {
      const { models, caps, sandbox } = event.data;
      const items: [string, ReactNode][] = [
        ['phase', event.data.phase],
        ['branch', event.data.branch],
      ];
      if (models) items.push(['models', `worker ${models.worker}, evaluator ${models.evaluator}`]);
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
    }
    case 'model_call': {
      const d = event.data;
      const reasoning = reasoningText(d);
      const tokens = [`${formatInt(d.prompt_tokens)} prompt`, `${formatInt(d.eval_tokens)} completion`];
      if (d.cached_tokens) tokens.push(`${formatInt(d.cached_tokens)} cached`);
      if (d.reasoning_tokens) tokens.push(`${formatInt(d.reasoning_tokens)} reasoning`);
      const facts = [tokens.join(' · ')];
      if (d.duration_ms !== undefined) facts.push(`${(d.duration_ms / 1000).toFixed(1)} s`);
      if (d.health !== undefined && d.health !== 'ok') facts.push(`health: ${d.health}`);
      if (d.finish_reason) facts.push(`finish: ${d.finish_reason}`);
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
                <Block testId="reasoning" className="ev-reasoning">
                  {reasoning}
                </Block>
              )}
            </>
          )}
        </>
      );
    }
    case 'prompt_assembled':
      return (
        <>
          <Disclosure
            open={isOpen('prompt')}
            onToggle={toggle('prompt')}
            label={`${event.data.role} prompt: ${formatInt(event.data.chars)} chars${event.data.truncated ? ' (shown truncated)' : ''}`}
            testId="prompt-toggle"
          />
          {isOpen('prompt') && <Block>{event.data.content}</Block>}
        </>
      );
    case 'tool_call': {
      const theCase = event.data.tool === 'submit_case' ? caseView(event.data.args) : null;
      if (theCase !== null) return <CaseBody view={theCase} />;
      const fields = argFields(event.data.args);
      if (fields.length === 0) return null;
      return (
        <div className="ev-args">
          {fields.map((f) =>
            f.block ? (
              <div key={f.name} className="ev-arg-block">
                <span className="ev-arg-name">{f.name}</span>
                <Block>{f.value}</Block>
              </div>
            ) : (
              <span key={f.name} className="ev-arg">
                <span className="ev-arg-name">{f.name}</span> <code>{f.value}</code>
              </span>
            ),
          )}
        </div>
      );
    }
    case 'tool_result':
    case 'pre_tool_block':
      return (
        <>
          <Block>{event.data.result_preview}</Block>
          {event.data.result_chars > event.data.result_preview.length && (
            <p className="ev-note">
              preview of {formatInt(event.data.result_chars)} chars{event.type === 'pre_tool_block' ? ' — the guard refused this call' : ''}
            </p>
          )}
        </>
      );
    case 'hook_run':
      return event.data.reason ? <p className="ev-facts">{event.data.reason}</p> : null;
    case 'validator_run':
      return (
        <ul className="ev-checks">
          {event.data.results.map((r, i) => (
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
                <Block testId="check-output" className="check-output">
                  {r.output}
                </Block>
              )}
            </li>
          ))}
        </ul>
      );
    case 'evaluator_verdict': {
      const d = event.data;
      return (
        <div className={`ev-verdict ev-verdict-${d.verdict}`}>
          <p>
            <span className={`badge verdict-${d.verdict}`}>{d.verdict}</span>
            {d.rejection_category && <span className="badge verdict-category">{d.rejection_category.replace(/_/g, ' ')}</span>}
            {d.parse_failed === true && <span className="badge verdict-category">evaluator reply unreadable</span>}
          </p>
          {d.concern !== '' && <p className="ev-concern">{d.concern}</p>}
          {d.evidence.length > 0 && (
            <ul className="ev-evidence">
              {d.evidence.map((e, i) => (
                <li key={i}>{e}</li>
              ))}
            </ul>
          )}
          {d.next_step && (
            <p className="ev-next">
              <strong>Next step:</strong> {d.next_step}
            </p>
          )}
        </div>
      );
    }
    case 'case_parse_error':
    case 'evaluator_parse_error':
      return (
        <>
          <p className="ev-facts">{event.data.error}</p>
          {event.data.raw_tool_calls.map((c, i) => (
            <Block key={i}>{`${c.name}(${c.arguments})`}</Block>
          ))}
        </>
      );
    case 'task_done':
      return event.data.summary !== '' ? <p className="ev-facts">{event.data.summary}</p> : null;
    case 'session_resume':
      return <p className="ev-facts">{event.data.plan}</p>;
    case 'proposed_learnings':
      return event.data.entry ? <Block>{event.data.entry}</Block> : null;
    case 'steering_note':
      return <blockquote className="ev-note-text">{event.data.text}</blockquote>;
    case 'question_asked':
      return event.data.options && event.data.options.length > 0 ? (
        <ul className="ev-evidence">
          {event.data.options.map((o) => (
            <li key={o}>{o}</li>
          ))}
        </ul>
      ) : null;
    case 'memory_load':
      return <p className="ev-facts">channels: {Object.keys(event.data.channels).join(', ') || 'none'}</p>;
    case 'stop':
      return event.data.error ? <p className="ev-facts">{event.data.error}</p> : null;
    case 'setup_output':
      return <Block>{event.data.text}</Block>;
    case 'setup_finished':
      return event.data.problem ? <Block>{event.data.problem}</Block> : null;
    default:
      return null;
  }
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
  const head = 34;
  let body = 0;
  switch (event.type) {
    case 'model_call':
      body = 48;
      break;
    case 'tool_call':
      body = argFields(event.data.args).some((f) => f.block) ? 140 : 30;
      break;
    case 'tool_result':
    case 'pre_tool_block':
      body = Math.min(200, 24 + 18 * lineCount(event.data.result_preview));
      break;
    case 'validator_run':
      body = event.data.results.reduce((n, r) => n + 36 + Math.min(320, 18 * lineCount(r.output ?? '')), 0);
      break;
    case 'evaluator_verdict':
      body = 110 + 20 * event.data.evidence.length;
      break;
    case 'prompt_assembled':
    case 'session_start':
      body = 80;
      break;
    default:
      body = 10;
  }
  return head + body;
}
