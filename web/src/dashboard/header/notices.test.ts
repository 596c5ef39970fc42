import { describe, expect, it } from 'vitest';
import { eventLog } from '../../../../shared/test-events.ts';
import { capNotices, eventNotices, meterLevels } from './notices.ts';
import type { Meter } from './meters.ts';

describe('eventNotices', () => {
  it('tells about a waiting question, and once about the end of a run', () => {
    const events = eventLog(
      { type: 'question_asked', data: { question_id: 'q1', text: 'Which database?' } },
      { type: 'stop', data: { reason: 'dollar_cap', phase: 'run' } },
      { type: 'status_changed', data: { from: 'running', to: 'stopped', reason: 'dollar_cap' } },
    );
    expect(eventNotices(events, 'Dark mode')).toEqual([
      { tag: 'question:q1', title: 'Dark mode: a question is waiting', body: 'Which database?' },
      { tag: 'end', title: 'Dark mode: run stopped', body: 'Stopped: dollar cap.' },
    ]);
    expect(eventNotices(eventLog({ type: 'status_changed', data: { from: 'running', to: 'all_done' } }), 'X')[0]!.title).toBe('X: run finished');
    // The status change that follows a stop, arriving in the next batch, is not told again.
    expect(eventNotices(eventLog({ type: 'status_changed', data: { from: 'running', to: 'stopped', reason: 'interrupted' } }), 'X')).toEqual([]);
    expect(eventNotices(eventLog({ type: 'stop', data: { reason: 'error', phase: 'interview', error: 'no seed' } }), 'X')[0]).toMatchObject({
      title: 'X: interview stopped',
      body: 'Stopped: error — no seed.',
    });
    expect(eventNotices(eventLog({ type: 'status_changed', data: { from: 'prepared', to: 'running' } }), 'X')).toEqual([]);
  });
});

describe('capNotices', () => {
  const meter = (level: Meter['level']): Meter => ({ key: 'cost', label: 'Cost', value: 9.2, cap: 10, level, fraction: 0.92, text: '$9.20 of $10.00' });

  it('tells when a meter crosses into red, not when it opens red or stays red', () => {
    expect(capNotices({ cost: 'amber' }, [meter('red')], 'S')).toEqual([{ tag: 'cap:cost', title: 'S: Cost past 90% of its cap', body: '$9.20 of $10.00' }]);
    expect(capNotices({}, [meter('red')], 'S')).toEqual([]);
    expect(capNotices(meterLevels([meter('red')]), [meter('red')], 'S')).toEqual([]);
  });
});
