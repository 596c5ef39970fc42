/**
 * A valid event log of any length written straight to disk (fast), the way a long run leaves
 * one: `log_opened`, then answered questions with dense seqs. For the log-at-scale tests.
 */
import fs from 'node:fs';
import { LOG_VERSION } from '../../shared/events.ts';

export function writeBigLog(file: string, sessionId: string, count: number, answer = (seq: number) => `answer ${seq}`): void {
  const ts = '2026-01-01T00:00:00.000Z';
  const lines = [JSON.stringify({ seq: 1, ts, type: 'log_opened', data: { log_version: LOG_VERSION, session_id: sessionId } })];
  for (let seq = 2; seq <= count; seq++) {
    lines.push(JSON.stringify({ seq, ts, type: 'question_answered', data: { question_id: `q${seq}`, answer: answer(seq) } }));
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}
