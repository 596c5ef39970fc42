/**
 * read_file, glob and grep: declared once with what they do, offered with the same words and run
 * the same way by the interview (on the source repository), add-task and the worker (on its
 * worktree). A failure is a ToolError with the message for the model.
 */
import { z } from 'zod';
import { defineTool, ToolError } from '../agent/tools.ts';
import { type ConfinedRoot, globTool, grepTool, readFile } from './read-tools.ts';

/** What a read tool runs on: the folder it is confined to, and how long a grep may search (tests shorten it). */
export interface ReadToolContext {
  readonly root: ConfinedRoot;
  readonly grepTimeoutMs?: number | undefined;
}

const relPath = z.string().min(1, 'must be a non-empty path relative to the repository root').describe('Path relative to the repository root.');

export const READ_FILE_TOOL = defineTool(
  'read_file',
  'Read a text file of the repository (path relative to its root). Long files are cut at 50,000 characters.',
  z.object({ path: relPath }),
  {
    run: (args, ctx: ReadToolContext) => {
      if (typeof args.path !== 'string' || args.path.trim() === '') throw new ToolError("'path' must be a non-empty string");
      return { output: readFile(ctx.root, args.path) };
    },
  },
);
export const GLOB_TOOL = defineTool(
  'glob',
  'List the files of the repository matching a glob such as "src/**/*.ts" (at most 200).',
  z.object({ pattern: z.string().min(1, 'must be a non-empty glob such as "src/**/*.ts"').describe('A glob relative to the repository root.') }),
  { run: async (args, ctx: ReadToolContext) => ({ output: await globTool(ctx.root, args.pattern) }) },
);
export const GREP_TOOL = defineTool(
  'grep',
  'Search file contents with a regular expression; answers path:line: text (at most 200 matches).',
  z.object({
    pattern: z.string().min(1, 'must be a non-empty regular expression').describe('A JavaScript regular expression.'),
    path_glob: z.string().nullish().describe('Which files to search (default: **/*).'),
  }),
  {
    run: async (args, ctx: ReadToolContext) => {
      const timeout = ctx.grepTimeoutMs !== undefined ? { timeoutMs: ctx.grepTimeoutMs } : {};
      const given: unknown = args.path_glob;
      if (given !== undefined && given !== null && typeof given !== 'string') throw new ToolError("'path_glob' must be a string");
      const pathGlob = typeof given === 'string' && given.trim() !== '' ? given : '**/*';
      return { output: await grepTool(ctx.root, args.pattern, pathGlob, timeout) };
    },
  },
);

export const READ_TOOLS = [READ_FILE_TOOL, GLOB_TOOL, GREP_TOOL] as const;
