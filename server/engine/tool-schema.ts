/** OpenAI function-tool schemas shared by the interview and the worker. */
import type { ChatCompletionTool } from 'openai/resources/chat/completions';

export const functionTool = (name: string, description: string, parameters: Record<string, unknown>): ChatCompletionTool => ({
  type: 'function',
  function: { name, description, parameters },
});

/** read_file, glob and grep: the same tools, with the same words, wherever they are offered. */
export function readToolSchemas(): ChatCompletionTool[] {
  return [
    functionTool('read_file', 'Read a text file of the repository (path relative to its root). Long files are cut at 50,000 characters.', {
      type: 'object',
      properties: { path: { type: 'string', description: 'Path relative to the repository root.' } },
      required: ['path'],
    }),
    functionTool('glob', 'List the files of the repository matching a glob such as "src/**/*.ts" (at most 200).', {
      type: 'object',
      properties: { pattern: { type: 'string', description: 'A glob relative to the repository root.' } },
      required: ['pattern'],
    }),
    functionTool('grep', 'Search file contents with a regular expression; answers path:line: text (at most 200 matches).', {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'A JavaScript regular expression.' },
        path_glob: { type: 'string', description: 'Which files to search (default: **/*).' },
      },
      required: ['pattern'],
    }),
  ];
}
