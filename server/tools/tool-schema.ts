/** read_file, glob and grep: declared once, offered with the same words by the interview and the worker. */
import { z } from 'zod';
import { defineTool } from '../agent/tools.ts';

const relPath = z.string().min(1, 'must be a non-empty path relative to the repository root').describe('Path relative to the repository root.');

export const READ_FILE_TOOL = defineTool(
  'read_file',
  'Read a text file of the repository (path relative to its root). Long files are cut at 50,000 characters.',
  z.object({ path: relPath }),
);
export const GLOB_TOOL = defineTool(
  'glob',
  'List the files of the repository matching a glob such as "src/**/*.ts" (at most 200).',
  z.object({ pattern: z.string().min(1, 'must be a non-empty glob such as "src/**/*.ts"').describe('A glob relative to the repository root.') }),
);
export const GREP_TOOL = defineTool(
  'grep',
  'Search file contents with a regular expression; answers path:line: text (at most 200 matches).',
  z.object({
    pattern: z.string().min(1, 'must be a non-empty regular expression').describe('A JavaScript regular expression.'),
    path_glob: z.string().nullish().describe('Which files to search (default: **/*).'),
  }),
);

export const READ_TOOLS = [READ_FILE_TOOL, GLOB_TOOL, GREP_TOOL] as const;
