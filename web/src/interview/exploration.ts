/**
 * The interviewer's exploration as compact lines ("read src/todo.js", "glob tests/**\/*.py",
 * "grep 'due' in src/**"), folded from its `tool_call` and `tool_result` events. Pure, so the
 * wording is tested without a browser.
 */
import type { EventData, TilthEvent } from '../../../shared/events.ts';

export interface ExplorationLine {
  /** The tool_call's seq: a stable React key. */
  seq: number;
  tool: string;
  text: string;
  /** The tool answered with an error (a missing file, a path outside the repo, bad arguments). */
  error: boolean;
  /** The start of the tool's answer, once it came; for a tooltip. */
  preview: string | null;
}

/** Tools whose calls are shown elsewhere: questions in the Q&A history. */
const HIDDEN_TOOLS = new Set(['ask_user']);

const MAX_ARG_CHARS = 80;

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_ARG_CHARS ? `${oneLine.slice(0, MAX_ARG_CHARS - 1)}…` : oneLine;
}

function stringArg(args: unknown, key: string): string | null {
  if (typeof args !== 'object' || args === null) return null;
  const value = (args as Record<string, unknown>)[key];
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** One tool call in words. Arguments come from the model, so every field may be missing. */
export function formatToolCall(data: Pick<EventData<'tool_call'>, 'tool' | 'args'>): string {
  const { tool, args } = data;
  if (typeof args === 'string') return `${tool} (${clip(args)})`;
  switch (tool) {
    case 'read_file': {
      const path = stringArg(args, 'path');
      return path === null ? 'read (no path given)' : `read ${clip(path)}`;
    }
    case 'glob': {
      const pattern = stringArg(args, 'pattern');
      return pattern === null ? 'glob (no pattern given)' : `glob ${clip(pattern)}`;
    }
    case 'grep': {
      const pattern = stringArg(args, 'pattern');
      const where = stringArg(args, 'path_glob') ?? stringArg(args, 'path') ?? stringArg(args, 'glob');
      if (pattern === null) return 'grep (no pattern given)';
      return where === null ? `grep '${clip(pattern)}'` : `grep '${clip(pattern)}' in ${clip(where)}`;
    }
    case 'write_seed':
      return 'write the seed';
    default: {
      let json: string;
      try {
        json = JSON.stringify(args) ?? '';
      } catch {
        json = '';
      }
      return json === '' || json === '{}' ? tool : `${tool} ${clip(json)}`;
    }
  }
}

/**
 * The interview's tool calls, oldest first. Each result is matched to the oldest call of the
 * same tool still waiting for one: the engine runs a turn's calls in order, one at a time.
 */
export function explorationLines(events: readonly TilthEvent[]): ExplorationLine[] {
  const lines: ExplorationLine[] = [];
  const waiting: ExplorationLine[] = [];
  for (const event of events) {
    if (event.type === 'tool_call' && event.data.phase === 'interview') {
      const line: ExplorationLine = { seq: event.seq, tool: event.data.tool, text: formatToolCall(event.data), error: false, preview: null };
      waiting.push(line);
      if (!HIDDEN_TOOLS.has(line.tool)) lines.push(line);
    } else if (event.type === 'tool_result' && event.data.phase === 'interview') {
      const index = waiting.findIndex((l) => l.tool === event.data.tool);
      if (index === -1) continue;
      const [line] = waiting.splice(index, 1);
      if (line === undefined) continue;
      line.preview = event.data.result_preview;
      line.error = /^ERROR\b/.test(event.data.result_preview);
    }
  }
  return lines;
}
