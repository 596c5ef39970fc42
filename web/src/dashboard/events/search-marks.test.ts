import { describe, expect, it } from 'vitest';
import { markSegments, panelsWithMatches } from './search-marks.ts';
import { RunLog } from '../test-run.ts';

describe('markSegments', () => {
  it('marks every occurrence of each word, whatever its case', () => {
    expect(markSegments('Negative numbers: negative two', ['negative'])).toEqual([
      { text: 'Negative', hit: true },
      { text: ' numbers: ', hit: false },
      { text: 'negative', hit: true },
      { text: ' two', hit: false },
    ]);
  });

  it('merges overlapping matches and leaves a text without a match whole', () => {
    expect(markSegments('doubled', ['doub', 'ubled'])).toEqual([{ text: 'doubled', hit: true }]);
    expect(markSegments('nothing here', ['absent'])).toEqual([{ text: 'nothing here', hit: false }]);
    expect(markSegments('anything', [])).toEqual([{ text: 'anything', hit: false }]);
  });
});

describe('panelsWithMatches', () => {
  it('names the closed panel that holds a match: the reasoning of a call, the text of a prompt', () => {
    const log = new RunLog().start().task('T-001').workerCall('T-001', 1);
    const call = log.events.at(-1)!;
    expect(panelsWithMatches(call, ['step 1'])).toEqual(['reasoning']);
    expect(panelsWithMatches(call, ['elsewhere'])).toEqual([]);
    const prompt = log.add({
      type: 'prompt_assembled',
      data: {
        task_id: 'T-001',
        trace_id: 'a'.repeat(32),
        span_id: 'b'.repeat(16),
        iter: 0,
        role: 'worker',
        content: 'Write double(n).',
        chars: 16,
        truncated: false,
      },
    });
    expect(panelsWithMatches(prompt, ['double('])).toEqual(['prompt']);
    expect(panelsWithMatches(prompt, [])).toEqual([]);
  });
});
