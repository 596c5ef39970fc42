import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emptySummary, type Summary } from '../../shared/summary.ts';
import { EventLog } from './event-log.ts';
import { Tree } from '../fs/tree.ts';
import { viewTimeline } from '../../shared/timeline-view.ts';
import { catchUpAsync, currentSummary, saveSummary, storedSummaryAsync, storedWholeView, summaryText } from './summary-file.ts';

const dirs: string[] = [];

/** What the server reads: the file a slice at a time (or rebuilt when unusable), brought up to the log's end. */
const currentSummaryAsync = async (log: EventLog, file: string, id: string) => catchUpAsync(log, (await storedSummaryAsync(file)) ?? emptySummary(id));
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A session folder with a log of `events` worker calls (no summary.json yet). */
function session(events = 0): { file: string; log: EventLog } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-summary-'));
  dirs.push(dir);
  const log = new EventLog(path.join(dir, 'events.jsonl'), 's1');
  for (let i = 1; i <= events; i++) {
    log.append({ type: 'model_call', data: { task_id: 'T-001', iter: i, prompt_tokens: 100 + i, eval_tokens: 5, tokens_used_total: 105 * i, role: 'worker' } });
  }
  return { file: path.join(dir, 'summary.json'), log };
}

/** A summary as a long run leaves it: `rows` worker calls, a few verdicts, an empty series. */
function longSummary(rows: number): Summary {
  const s = emptySummary('s1');
  s.last_seq = rows;
  s.tasks['T-001'] = {
    status: 'done',
    iterations: rows,
    evaluator_calls: 1,
    accepts: 1,
    rejects: 0,
    rejection_categories: {},
    tool_calls: { bash: 2 },
    guard_blocks: 0,
    prompt_tokens: 10,
    completion_tokens: 1,
    cost_usd: 0,
    duration_ms: 5,
    last_verdict: { verdict: 'accept', rejection_category: null, concern: 'a "quoted"\nconcern' },
    failure_reason: null,
    commit: 'abc',
  };
  s.timeline.attempts.push(['T-001', 1, 1000, 2000, 'done']);
  for (let i = 1; i <= rows; i++) s.timeline.iterations.push([i, 1000 + i, 'T-001', i, 100 + (i % 7)]);
  s.timeline.verdicts.push([rows, 2000, 'T-001', 'accept', null]);
  s.timeline.windows.push([1, 'worker', 128_000]);
  return s;
}

describe('summary.json', () => {
  it('is plain JSON, one line of aggregates then the timeline in lines of rows', () => {
    const summary = longSummary(10_000);
    const text = summaryText(summary);
    // Read whole, it is the summary with one more key: the whole run's thinned timeline.
    expect(JSON.parse(text)).toEqual({ ...summary, whole_view: viewTimeline(summary.timeline) });
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\{"version":2,.*"timeline":\{$/);
    expect(lines).toContain('"iterations":[');
    expect(lines).toContain('"other_calls":[');
    expect(lines.at(-1)).toBe(']}}');
    // 10,000 rows in lines of 4,096: three lines, every one far below the file's size.
    const rowLines = lines.filter((l) => l.startsWith('[10') || l.startsWith('[4097') || l.startsWith('[8193'));
    expect(rowLines.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(text.length / 2);
    // An empty series has no row line, and a series of exactly one line's rows ends without a comma.
    expect(text).not.toContain('\n\n');
    const exact = longSummary(4_096);
    expect(JSON.parse(summaryText(exact)).timeline).toEqual(exact.timeline);
  });

  it('reads back the same summary by lines, whole, and from an older one-line file', async () => {
    const { file, log } = session();
    const summary = longSummary(9_000);
    saveSummary(Tree.at(path.dirname(file)), file, summary);
    expect(await currentSummaryAsync(log, file, 's1')).toEqual(summary);
    expect(currentSummary(log, file, 's1')).toEqual(summary);
    fs.writeFileSync(file, JSON.stringify(summary));
    expect(await currentSummaryAsync(log, file, 's1')).toEqual(summary);
  });

  it('is read in pieces with other work let in between, never parsed in one go', async () => {
    const { file, log } = session();
    saveSummary(Tree.at(path.dirname(file)), file, longSummary(300_000));
    const size = fs.statSync(file).size;
    const parsed: number[] = [];
    const parse = JSON.parse;
    const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver) => {
      parsed.push(text.length);
      return parse(text, reviver);
    });
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    try {
      const read = await currentSummaryAsync(log, file, 's1');
      expect(read.timeline.iterations).toHaveLength(300_000);
    } finally {
      clearInterval(ticker);
      spy.mockRestore();
    }
    expect(Math.max(...parsed)).toBeLessThan(size / 20);
    expect(turns).toBeGreaterThan(1);
  });

  it('is rebuilt from the log when a row or the aggregates are damaged, or the file is cut short', async () => {
    const { file, log } = session(3);
    const fromLog = currentSummary(log, path.join(path.dirname(file), 'absent.json'), 's1');
    expect(fromLog.timeline.iterations).toHaveLength(3);

    const good = summaryText(longSummary(3));
    const variants = [
      // The row and its copy in the first line's view (three rows are not thinned).
      good.replaceAll('[1,1001,"T-001",1,101]', '[1,1001,"T-001",-1,101]'),
      good.replace('"version":2', '"version":"two"'),
      good.slice(0, good.length - 10),
      good.replace('"iterations":[', '"iterations":[\n{"not":"json"'),
    ];
    for (const text of variants) {
      fs.writeFileSync(file, text);
      expect(await currentSummaryAsync(log, file, 's1')).toEqual(fromLog);
      expect(currentSummary(log, file, 's1')).toEqual(fromLog);
    }
  });

  it('folds in the events logged after it was written', async () => {
    const { file, log } = session(5);
    const early = currentSummary(session(2).log, path.join(os.tmpdir(), 'none.json'), 's1');
    saveSummary(Tree.at(path.dirname(file)), file, early);
    const caught = await currentSummaryAsync(log, file, 's1');
    expect(caught.last_seq).toBe(log.lastSeq);
    expect(caught.timeline.iterations.map((r) => r[3])).toEqual([1, 2, 3, 4, 5]);
  });

  it('answers the whole run from its first line alone: the aggregates and the stored thinned timeline', async () => {
    const { file } = session();
    const summary = longSummary(300_000);
    saveSummary(Tree.at(path.dirname(file)), file, summary);
    const firstLine = fs.readFileSync(file, 'utf8').split('\n')[0]!;
    const parsed: number[] = [];
    const parse = JSON.parse;
    const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver) => {
      parsed.push(text.length);
      return parse(text, reviver);
    });
    let stored: Awaited<ReturnType<typeof storedWholeView>>;
    try {
      stored = await storedWholeView(file);
    } finally {
      spy.mockRestore();
    }
    const { timeline, ...head } = summary;
    expect(stored).toEqual({ head, view: viewTimeline(timeline) });
    expect(stored!.view.thinned).toBe(true);
    // One parse, of the first line: none of the rows.
    expect(parsed).toEqual([firstLine.length - ',"timeline":{'.length + 1]);
    expect(firstLine.length).toBeLessThan(fs.statSync(file).size / 20);
  });

  it('has no stored view in an older file, a damaged first line, or a first line past its bound', async () => {
    const { file } = session();
    const summary = longSummary(3);
    const absent = path.join(path.dirname(file), 'absent.json');
    expect(await storedWholeView(absent)).toBeNull();
    fs.writeFileSync(file, JSON.stringify(summary));
    expect(await storedWholeView(file)).toBeNull();
    const good = summaryText(summary);
    const variants = [
      good.replace('"version":2', '"version":"two"'),
      good.replace('"thinned":false', '"thinned":"no"'),
      good.replace('"whole_view":', '"other_view":'),
      good.replace(',"timeline":{\n', ',"timeline":{ \n'),
      good.replace('"session_id"', '"session_id\u0000'),
      `${'x'.repeat(5 * 1024 * 1024)}\n`,
      '',
    ];
    for (const text of variants) {
      fs.writeFileSync(file, text);
      expect(await storedWholeView(file), text.slice(0, 80)).toBeNull();
    }
    fs.writeFileSync(file, good);
    expect(await storedWholeView(file)).not.toBeNull();
    fs.writeFileSync(file, good.split('\n')[0]!);
    expect(await storedWholeView(file), 'a first line without its end').toBeNull();
  });

  it('reads a first line longer than one read, up to its bound', async () => {
    const { file } = session();
    const summary = longSummary(3);
    // A thousand tasks: a first line of about 600 KB, read in three pieces.
    for (let i = 2; i <= 1_000; i++) summary.tasks[`T-${String(i).padStart(4, '0')}`] = { ...summary.tasks['T-001']!, commit: 'x'.repeat(200) };
    saveSummary(Tree.at(path.dirname(file)), file, summary);
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]!.length).toBeGreaterThan(512 * 1024);
    const stored = await storedWholeView(file);
    expect(Object.keys(stored?.head.tasks ?? {})).toHaveLength(1_000);
    expect(stored?.head.last_seq).toBe(3);
    // Past 4 MB it is not a line this module wrote for reading alone: the summary is read instead.
    for (let i = 1_001; i <= 8_000; i++) summary.tasks[`T-${String(i).padStart(4, '0')}`] = { ...summary.tasks['T-001']!, commit: 'x'.repeat(200) };
    saveSummary(Tree.at(path.dirname(file)), file, summary);
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]!.length).toBeGreaterThan(4 * 1024 * 1024);
    expect(await storedWholeView(file)).toBeNull();
  });
});
