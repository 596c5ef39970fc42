import { describe, expect, it } from 'vitest';
import { progressLine } from './cli-headless.ts';

describe('progressLine', () => {
  it("shows a model retry with the next attempt, the wait and the provider's words", () => {
    const line = progressLine({
      seq: 7,
      ts: '2026-01-01T00:00:00.000Z',
      type: 'model_retry',
      data: {
        role: 'worker',
        model: 'qwen3:8b',
        attempt: 1,
        max_attempts: 6,
        wait_ms: 2_400,
        reason: 'HTTP 429: Provider returned error (Venice: rate-limited upstream)',
        status: 429,
      },
    });
    expect(line).toBe('  worker model call failed, retrying in 2 s (attempt 2 of 6): HTTP 429: Provider returned error (Venice: rate-limited upstream)');
  });
});
