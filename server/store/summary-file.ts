/**
 * summary.json as of now: the file the run last wrote (or an empty summary), with every event
 * logged after it folded in. Reads only the events since the file's `last_seq`, so it stays cheap
 * on a 100k-event session. Reached through the session handle.
 *
 * A long run's summary.json is megabytes of timeline rows (9 MB at a million events), and one
 * JSON.parse of it holds the event loop for 60–130 ms. So the file is plain JSON laid out in
 * lines a reader can take one at a time: the aggregates on the first line, then each timeline
 * series as a header line and its rows in lines of ROWS_PER_LINE. The server reads it line by
 * line with a turn of the event loop between slices; any JSON reader still reads it whole, and
 * a file in another layout (older, or edited by hand) is read whole.
 */
import fs from 'node:fs';
import {
  addToSummary,
  badTimelineRow,
  emptySummary,
  StoredViewSchema,
  SummaryFileSchema,
  SummaryHeadSchema,
  TIMELINE_SERIES,
  type Summary,
  type Timeline,
} from '../../shared/summary.ts';
import { viewTimeline, type TimelineView } from '../../shared/timeline-view.ts';
import type { Tree } from '../fs/tree.ts';
import type { EventLog } from './event-log.ts';

const PAGE = 2_000;
const ROWS_PER_LINE = 4_096;
const TIMELINE_OPEN = ',"timeline":{';

type SummaryHead = Omit<Summary, 'timeline'>;
/** How long the async reader works before it yields a turn of the event loop. */
const SLICE_MS = 8;

export function catchUp(log: EventLog, summary: Summary): Summary {
  for (let page = log.readAfter(summary.last_seq, PAGE); page.length > 0; page = log.readAfter(summary.last_seq, PAGE)) {
    for (const event of page) addToSummary(summary, event);
  }
  return summary;
}

/** catchUp with a turn of the event loop between pages (a summary rebuilt from a long log). */
export async function catchUpAsync(log: EventLog, summary: Summary): Promise<Summary> {
  for (let page = log.readAfter(summary.last_seq, PAGE); page.length > 0; page = log.readAfter(summary.last_seq, PAGE)) {
    for (const event of page) addToSummary(summary, event);
    await turn();
  }
  return summary;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * summary.json's text: valid JSON, in the line layout described above. The first line also
 * carries the whole run's thinned timeline (`whole_view`, about 100 KB at a million events), so
 * the dashboard's first request for a finished run is answered from that line alone
 * (`storedWholeView`), never parsing the rows: thinning a million rows once per write is 15–20
 * ms; parsing them on a first read was most of a second.
 */
export function summaryText(summary: Summary): string {
  const { timeline, ...head } = summary;
  const lines = [`${JSON.stringify({ ...head, whole_view: viewTimeline(timeline) }).slice(0, -1)}${TIMELINE_OPEN}`];
  TIMELINE_SERIES.forEach((series, i) => {
    lines.push(`${JSON.stringify(series)}:[`);
    const rows: unknown[] = timeline[series];
    for (let at = 0; at < rows.length; at += ROWS_PER_LINE) {
      const more = at + ROWS_PER_LINE < rows.length;
      lines.push(`${JSON.stringify(rows.slice(at, at + ROWS_PER_LINE)).slice(1, -1)}${more ? ',' : ''}`);
    }
    lines.push(i === TIMELINE_SERIES.length - 1 ? ']}}' : '],');
  });
  return `${lines.join('\n')}\n`;
}

/** A summary from summary.json's text read whole, or null when it is not a valid one. */
function wholeSummary(text: string): Summary | null {
  try {
    const parsed = SummaryFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const SERIES_LINE = /^"([a-z_]+)":\[$/;

/**
 * A summary from text in the line layout, yielding between slices of lines; `undefined` when
 * the text is not in that layout (read it whole), null when it is but a part is not valid.
 */
async function summaryByLines(text: string): Promise<Summary | null | undefined> {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const first = lines[0];
  if (first === undefined || !first.endsWith(TIMELINE_OPEN)) return undefined;
  const timeline: Partial<Timeline> = {};
  let series: keyof Timeline | null = null;
  let rows: unknown[] = [];
  let sliceStart = performance.now();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (series === null) {
      const name = SERIES_LINE.exec(line)?.[1];
      if (!name || !(TIMELINE_SERIES as string[]).includes(name) || name in timeline) return undefined;
      series = name as keyof Timeline;
      rows = [];
    } else if (line === '],' || line === ']}}') {
      (timeline as Record<string, unknown[]>)[series] = rows;
      series = null;
      if (line === ']}}' && i !== lines.length - 1) return undefined;
    } else {
      let chunk: unknown;
      try {
        chunk = JSON.parse(`[${line.endsWith(',') ? line.slice(0, -1) : line}]`);
      } catch {
        return undefined;
      }
      if (!Array.isArray(chunk) || badTimelineRow(series, chunk) !== -1) return null;
      for (const row of chunk) rows.push(row);
    }
    if (performance.now() - sliceStart > SLICE_MS) {
      await turn();
      sliceStart = performance.now();
    }
  }
  if (series !== null || lines.at(-1) !== ']}}') return undefined;
  const head = firstLineJson(first);
  if (head === undefined) return undefined;
  const parsed = SummaryHeadSchema.safeParse(head);
  if (!parsed.success) return null;
  return { ...parsed.data, timeline: { attempts: [], iterations: [], other_calls: [], verdicts: [], windows: [], ...timeline } };
}

/** The first line's object (the aggregates, and the stored view when written with one), closed; undefined when it does not parse. */
function firstLineJson(first: string): unknown {
  try {
    return JSON.parse(`${first.slice(0, -TIMELINE_OPEN.length)}}`);
  } catch {
    return undefined;
  }
}

/** A summary's aggregates with the whole run's thinned timeline: what the summary route answers. */
export interface WholeView {
  head: SummaryHead;
  view: TimelineView;
}

/** The bytes within which the first line ends, or it is not one this module wrote (the view is ~100 KB at 1M events). */
const FIRST_LINE_CAP = 4 * 1024 * 1024;
const READ_CHUNK = 256 * 1024;

/**
 * summary.json's first line only: its aggregates and the whole run's thinned timeline, read off
 * the event loop; null when the file is missing, has no stored view (an older layout), or a part
 * of it is not valid.
 */
export async function storedWholeView(file: string): Promise<WholeView | null> {
  const first = await firstLine(file);
  if (first === null || !first.endsWith(TIMELINE_OPEN)) return null;
  const parsed = firstLineJson(first);
  if (parsed === undefined) return null;
  const head = SummaryHeadSchema.safeParse(parsed);
  const view = StoredViewSchema.safeParse((parsed as { whole_view?: unknown }).whole_view);
  return head.success && view.success ? { head: head.data, view: view.data } : null;
}

async function firstLine(file: string): Promise<string | null> {
  let handle: fs.promises.FileHandle | null = null;
  try {
    handle = await fs.promises.open(file, 'r');
    const chunks: Buffer[] = [];
    for (let size = 0; size < FIRST_LINE_CAP; ) {
      const { bytesRead, buffer } = await handle.read(Buffer.alloc(READ_CHUNK), 0, READ_CHUNK, size);
      const read = buffer.subarray(0, bytesRead);
      const end = read.indexOf(0x0a);
      if (end !== -1) return Buffer.concat([...chunks, read.subarray(0, end)]).toString('utf8');
      if (bytesRead === 0) return null;
      chunks.push(read);
      size += bytesRead;
    }
    return null;
  } catch {
    return null;
  } finally {
    await handle?.close();
  }
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * summary.json's summary brought up to the log's end; when the file is missing, from an older
 * version or damaged, it is derived, so it is rebuilt from the log.
 */
export function currentSummary(log: EventLog, file: string, sessionId: string): Summary {
  const text = readText(file);
  return catchUp(log, (text !== null && wholeSummary(text)) || emptySummary(sessionId));
}

/** summary.json read off the event loop and parsed in slices; null when missing, older or damaged. */
export async function storedSummaryAsync(file: string): Promise<Summary | null> {
  const text = await fs.promises.readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  const byLines = await summaryByLines(text);
  return byLines === undefined ? wholeSummary(text) : byLines;
}

/** Derived and rebuildable: written atomically but not fsynced. */
export function saveSummary(tree: Tree, file: string, summary: Summary): void {
  tree.writeFileAtomic(file, summaryText(summary), { durable: false });
}
