import { describe, expect, it } from 'vitest';
import { sessionStopLine } from './session-stop.ts';

describe('sessionStopLine', () => {
  it("says a failed interview's provider failure with the provider's words beneath", () => {
    const error = 'the interviewer model failed: The prep model "m" at http://127.0.0.1:9/v1 failed: HTTP 429: You exceeded your current quota';
    expect(sessionStopLine({ status: 'failed', last_stop: 'provider_failure', last_error: error })).toEqual({
      text: 'interview stopped: the model provider failed',
      detail: error,
    });
    expect(sessionStopLine({ status: 'failed', last_stop: 'error', last_error: 'the interviewer stopped without writing the seed' })).toEqual({
      text: 'interview failed',
      detail: 'the interviewer stopped without writing the seed',
    });
  });

  it("says a run's stop as the dashboard does", () => {
    expect(sessionStopLine({ status: 'stopped', last_stop: 'dollar_cap', last_error: null })).toEqual({ text: 'stopped: dollar cap reached', detail: null });
    expect(sessionStopLine({ status: 'stopped', last_stop: 'provider_failure', last_error: 'HTTP 503: upstream down' })).toEqual({
      text: 'stopped: the model provider kept failing during a task',
      detail: 'HTTP 503: upstream down',
    });
  });

  it('says nothing while the session is going, or when it never stopped', () => {
    expect(sessionStopLine({ status: 'interviewing', last_stop: 'provider_failure', last_error: 'x' })).toBeNull();
    expect(sessionStopLine({ status: 'running', last_stop: 'interrupted', last_error: null })).toBeNull();
    expect(sessionStopLine({ status: 'prepared', last_stop: null, last_error: null })).toBeNull();
  });
});
