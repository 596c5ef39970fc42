/**
 * The five interview tools as the model sees them. Names and parameters are the Python edition's
 * (reference §6.2), so prompts and logs carry over; the descriptions are ours. write_seed's
 * arguments are declared loosely on purpose: the sink (sink.ts) checks the whole bundle and lists
 * every problem at once, in words the interviewer can act on, which a schema error could not.
 */
import { z } from 'zod';
import { defineTool, type ToolSpec } from '../agent/tools.ts';
import { READ_TOOLS, type ReadToolContext } from './tool-schema.ts';

export const ASK_USER_TOOL = defineTool(
  'ask_user',
  'Ask the user ONE question and wait for the answer. For a decision give 2-4 short, substantive options; for a clarification give none. Never add an "Other" option: the form always offers one. Returns the answer verbatim.',
  z.object({
    question: z.string().trim().min(1, 'must be a non-empty question'),
    options: z.array(z.string().trim().min(1, 'options must be non-empty strings')).nullish(),
  }),
);

function writeSeedTool(testFilePattern: string) {
  return defineTool(
    'write_seed',
    `TERMINAL CALL. Write the whole seed at once: every task and exactly one acceptance test file per task, named ${testFilePattern}. If it is rejected you get every reason at once; fix them all and call again.`,
    z.object({
      prd_entries: z.array(
        z.object({
          id: z.string().describe('T-NNN, three or more zero-padded digits.'),
          title: z.string().describe('Short and verb-first.'),
          description: z.string().describe('Concrete: real paths and symbols.'),
          acceptance_criteria: z.array(z.string()).describe('2-4 checkable statements, one assertion each.'),
          criteria_tests: z
            .array(z.array(z.string()))
            .describe(
              "Per criterion, same order: the names of the test cases in this task's test file that check it (pytest function names; it/test titles for JavaScript).",
            ),
        }),
      ),
      test_files: z.record(z.string(), z.string()).describe(`Path (${testFilePattern}) → file content.`),
      tldr: z.string().describe('Markdown bullets: - **T-NNN:** title — outcome'),
      open_questions: z.array(z.string()).optional(),
      blockers: z.array(z.string()).optional(),
      scope_notes: z.string().optional(),
    }),
    { checkWith: z.record(z.string(), z.unknown()) },
  );
}

export function interviewTools(testFilePattern: string): ToolSpec<unknown, ReadToolContext>[] {
  return [...READ_TOOLS, ASK_USER_TOOL, writeSeedTool(testFilePattern)];
}
