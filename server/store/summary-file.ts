/**
 * summary.json as of now: the file the run last wrote (or an empty summary), with every event
 * logged after it folded in. Reads only the events since the file's `last_seq`, so it stays cheap
 * on a 100k-event session. Reached through the session handle.
 */
import fs from 'node:fs';
import { addToSummary, emptySummary, SummaryFileSchema, type Summary } from '../../shared/summary.ts';
import { writeFileAtomic } from './atomic.ts';
import type { EventLog } from './event-log.ts';

const PAGE = 2_000;

export function catchUp(log: EventLog, summary: Summary): Summary {
  for (let page = log.readAfter(summary.last_seq, PAGE); page.length > 0; page = log.readAfter(summary.last_seq, PAGE)) {
    for (const event of page) addToSummary(summary, event);
  }
  return summary;
}

/**
 * The summary stored in summary.json's text, or null when there is none, it is from an older
 * version or it is damaged: it is derived, so the caller rebuilds it from the log.
 */
function storedSummary(text: string | null): Summary | null {
  if (text === null) return null;
  try {
    const parsed = SummaryFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function currentSummary(log: EventLog, file: string, sessionId: string): Summary {
  let text: string | null = null;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    text = null;
  }
  return catchUp(log, storedSummary(text) ?? emptySummary(sessionId));
}

/** currentSummary with the file read off the event loop (a long run's summary.json is megabytes). */
export async function currentSummaryAsync(log: EventLog, file: string, sessionId: string): Promise<Summary> {
  const text = await fs.promises.readFile(file, 'utf8').catch(() => null);
  return catchUp(log, storedSummary(text) ?? emptySummary(sessionId));
}

/** Derived and rebuildable: written atomically but not fsynced, and compact (it can hold 200k-row series). */
export function saveSummary(file: string, summary: Summary): void {
  writeFileAtomic(file, `${JSON.stringify(summary)}\n`, { durable: false });
}
