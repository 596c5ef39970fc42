/**
 * summary.json as of now: the file the run last wrote (or an empty summary), with every event
 * logged after it folded in. Reads only the events since the file's `last_seq`, so it stays cheap
 * on a 100k-event session.
 */
import { addToSummary, emptySummary, SummarySchema, type Summary } from '../../shared/summary.ts';
import { writeJsonAtomic } from './atomic.ts';
import { readJsonFile } from './json-file.ts';
import { FILES, type SessionStore } from './session-store.ts';

const PAGE = 2_000;

export function catchUp(store: SessionStore, id: string, summary: Summary): Summary {
  const log = store.log(id);
  for (let page = log.readAfter(summary.last_seq, PAGE); page.length > 0; page = log.readAfter(summary.last_seq, PAGE)) {
    for (const event of page) addToSummary(summary, event);
  }
  return summary;
}

export function currentSummary(store: SessionStore, id: string): Summary {
  let stored: Summary | null = null;
  try {
    stored = readJsonFile(store.file(id, FILES.summary), SummarySchema);
  } catch {
    // A summary from an older version, or damaged: it is derived, so rebuild it from the log.
    stored = null;
  }
  return catchUp(store, id, stored ?? emptySummary(id));
}

/** Derived and rebuildable: written atomically but not fsynced. */
export function saveSummary(store: SessionStore, id: string, summary: Summary): void {
  writeJsonAtomic(store.file(id, FILES.summary), summary, { durable: false });
}
