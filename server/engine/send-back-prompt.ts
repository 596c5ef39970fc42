/**
 * A reviewer's send-back (issue 15) as the worker and the evaluator read it: the note, then each
 * comment with the lines it was written on, as they were when the task was sent back.
 */
import type { SendBack } from '../../shared/files.ts';

/** The send-back as the worker and the evaluator read it: the note, then each comment at its lines. */
export function formatSendBack(s: SendBack, audience: 'worker' | 'evaluator'): string {
  const head =
    audience === 'worker'
      ? `## Sent back by the reviewer (revision ${s.revision})\n\nThis task was accepted before, and a human reviewer sent it back. Your earlier work is committed; change it so that everything below holds, as well as the acceptance criteria. Their words are requirements.`
      : `## The reviewer's requirements for this revision (${s.revision})\n\nA human reviewer sent the accepted task back with these. Treat each as an acceptance criterion: accept only when the diff answers every one.`;
  const parts = [head];
  if (s.note) parts.push('', '### Note', '', s.note);
  s.comments.forEach((c, i) => {
    parts.push('', `### Comment ${i + 1} — ${c.file}:${c.line}${c.side === 'old' ? ' (a line the change removed)' : ''}`, '', c.text);
    if (c.excerpt) {
      parts.push('', '```');
      c.excerpt.lines.forEach((line, j) => {
        const n = c.excerpt!.start + j;
        parts.push(`${n === c.line ? '>' : ' '} ${String(n).padStart(4)} | ${line}`);
      });
      parts.push('```');
    }
  });
  if (audience === 'worker') {
    if (s.previous_case) parts.push('', '### Your case last time', '', s.previous_case.summary.trim());
    if (s.last_verdict) parts.push('', "### The evaluator's verdict last time", '', `${s.last_verdict.verdict}: ${s.last_verdict.concern}`);
  }
  return parts.join('\n');
}
