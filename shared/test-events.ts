/** For unit tests: a session log from event inputs, with seq from 1 and a fixed clock. */
import type { EventInput, TilthEvent } from './events.ts';

export function eventLog(...inputs: EventInput[]): TilthEvent[] {
  return inputs.map((input, i) => ({ ...input, seq: i + 1, ts: new Date(Date.UTC(2026, 4, 25, 10, 0, i)).toISOString() }) as TilthEvent);
}

const TRACE = 'a'.repeat(32);

export const interviewCall = (tool: string, args: unknown): EventInput => ({ type: 'tool_call', data: { phase: 'interview', trace_id: TRACE, tool, args } });
export const interviewResult = (tool: string, preview: string): EventInput => ({
  type: 'tool_result',
  data: { phase: 'interview', trace_id: TRACE, tool, result_preview: preview, result_chars: preview.length },
});
export const asked = (question_id: string, text: string, options?: string[]): EventInput => ({
  type: 'question_asked',
  data: { question_id, text, ...(options ? { options } : {}) },
});
export const answered = (question_id: string, answer: string): EventInput => ({ type: 'question_answered', data: { question_id, answer } });
