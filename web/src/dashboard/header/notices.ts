/**
 * Which browser notifications a batch of live events, or a change in the meters, calls for:
 * a question waiting, a run that ended or stopped, a cap past 90%. Pure; the hook in
 * `use-notifications.ts` shows them, if the user opted in.
 */
import type { TilthEvent } from '../../../../shared/events.ts';
import type { Meter, MeterKey, MeterLevel } from './meters.ts';

export interface Notice {
  /** Same tag, same notification: a stop and its status change replace each other. */
  tag: string;
  title: string;
  body: string;
}

const END_WORDS: Record<string, string> = {
  all_done: 'The run finished: all tasks done.',
  stopped: 'The run stopped.',
  failed: 'The session failed.',
};

/** Notices for live events, in order; one per tag (the last wins). */
export function eventNotices(events: readonly TilthEvent[], label: string): Notice[] {
  const byTag = new Map<string, Notice>();
  for (const event of events) {
    if (event.type === 'question_asked') {
      byTag.set(`question:${event.data.question_id}`, {
        tag: `question:${event.data.question_id}`,
        title: `${label}: a question is waiting`,
        body: event.data.text,
      });
    } else if (event.type === 'stop') {
      const done = event.data.reason === 'all_done';
      const what = event.data.phase === 'interview' ? 'interview' : 'run';
      const body = done ? END_WORDS.all_done! : `Stopped: ${event.data.reason.replace(/_/g, ' ')}${event.data.error ? ` — ${event.data.error}` : ''}.`;
      byTag.set('end', { tag: 'end', title: `${label}: ${done ? `${what} finished` : `${what} stopped`}`, body });
    } else if (event.type === 'status_changed' && event.data.reason === undefined && END_WORDS[event.data.to] !== undefined && !byTag.has('end')) {
      // A status change that comes with a reason follows a `stop` (already told, perhaps in the
      // previous batch); only one without is news.
      byTag.set('end', {
        tag: 'end',
        title: `${label}: ${event.data.to === 'all_done' ? 'run finished' : `run ${event.data.to}`}`,
        body: END_WORDS[event.data.to]!,
      });
    }
  }
  return [...byTag.values()];
}

export type MeterLevels = Partial<Record<MeterKey, MeterLevel>>;

export function meterLevels(meters: readonly Meter[]): MeterLevels {
  return Object.fromEntries(meters.map((m) => [m.key, m.level]));
}

/** A notice for each meter that has just turned red (crossed 90% of its cap). */
export function capNotices(before: MeterLevels, meters: readonly Meter[], label: string): Notice[] {
  return meters
    .filter((m) => m.level === 'red' && before[m.key] !== undefined && before[m.key] !== 'red')
    .map((m) => ({ tag: `cap:${m.key}`, title: `${label}: ${m.label} past 90% of its cap`, body: m.text }));
}
