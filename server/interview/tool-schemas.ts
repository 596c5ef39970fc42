/**
 * The five interview tools as the model sees them. Names and parameters are the Python edition's
 * (reference §6.2), so prompts and logs carry over; the descriptions are ours.
 */
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { functionTool, readToolSchemas } from '../engine/tool-schema.ts';

const fn = functionTool;

export function interviewTools(testFilePattern: string): ChatCompletionTool[] {
  return [
    ...readToolSchemas(),
    fn(
      'ask_user',
      'Ask the user ONE question and wait for the answer. For a decision give 2-4 short, substantive options; for a clarification give none. Never add an "Other" option: the form always offers one. Returns the answer verbatim.',
      {
        type: 'object',
        properties: { question: { type: 'string' }, options: { type: 'array', items: { type: 'string' } } },
        required: ['question'],
      },
    ),
    fn(
      'write_seed',
      `TERMINAL CALL. Write the whole seed at once: every task and exactly one acceptance test file per task, named ${testFilePattern}. If it is rejected you get every reason at once; fix them all and call again.`,
      {
        type: 'object',
        properties: {
          prd_entries: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string', description: 'T-NNN, three or more zero-padded digits.' },
                title: { type: 'string', description: 'Short and verb-first.' },
                description: { type: 'string', description: 'Concrete: real paths and symbols.' },
                acceptance_criteria: { type: 'array', items: { type: 'string' }, description: '2-4 checkable statements, one assertion each.' },
              },
              required: ['id', 'title', 'description', 'acceptance_criteria'],
            },
          },
          test_files: {
            type: 'object',
            additionalProperties: { type: 'string' },
            description: `Path (${testFilePattern}) → file content.`,
          },
          tldr: { type: 'string', description: 'Markdown bullets: - **T-NNN:** title — outcome' },
          open_questions: { type: 'array', items: { type: 'string' } },
          blockers: { type: 'array', items: { type: 'string' } },
          scope_notes: { type: 'string' },
        },
        required: ['prd_entries', 'test_files', 'tldr'],
      },
    ),
  ];
}
