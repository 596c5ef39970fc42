import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { argsFit, checkArgs, defineTool } from './tools.ts';

const READ = defineTool(
  'read_file',
  'Read a file.',
  z.object({ path: z.string().min(1, 'must be a non-empty path').describe('Relative path.'), limit: z.number().int().optional() }),
);

describe('a tool declared once', () => {
  it('gives the model a JSON schema generated from its zod arguments', () => {
    expect(READ.schema).toEqual({
      type: 'function',
      function: {
        name: 'read_file',
        description: 'Read a file.',
        parameters: {
          type: 'object',
          properties: {
            path: { type: 'string', minLength: 1, description: 'Relative path.' },
            limit: { type: 'integer', minimum: expect.any(Number), maximum: expect.any(Number) },
          },
          required: ['path'],
        },
      },
    });
    expect(READ.schema.function.parameters).not.toHaveProperty('$schema');
  });

  it('checks arguments with the same schema, and says every problem with its path', () => {
    expect(checkArgs(READ, '{"path": "a.ts", "limit": 3}')).toEqual({ ok: true, args: { path: 'a.ts', limit: 3 } });
    expect(checkArgs(READ, '{"path": "", "limit": 1.5}')).toEqual({
      ok: false,
      message:
        "ERROR: the arguments of read_file do not fit its parameters — 'path': must be a non-empty path; 'limit': Invalid input: expected int, received number. Call it again with arguments that fit.",
    });
  });

  it('answers JSON that is broken or not an object, and takes empty arguments as {}', () => {
    expect(checkArgs(READ, '{not json')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^ERROR: the arguments of read_file are not valid JSON \(/),
    });
    expect(checkArgs(READ, '[1,2]')).toEqual({
      ok: false,
      message: 'ERROR: the arguments of read_file must be a JSON object with the named parameters; got a list.',
    });
    expect(checkArgs(READ, '42')).toMatchObject({ ok: false, message: expect.stringContaining('got number') });
    expect(checkArgs(defineTool('noop', 'x', z.object({})), '')).toEqual({ ok: true, args: {} });
  });

  it('can check with a looser schema than it shows, for tools whose own checks say more', () => {
    const seed = defineTool('write_seed', 'x', z.object({ tldr: z.string() }), { checkWith: z.record(z.string(), z.unknown()) });
    expect(seed.schema.function.parameters).toMatchObject({ required: ['tldr'] });
    expect(checkArgs(seed, '{"other": 1}')).toEqual({ ok: true, args: { other: 1 } });
    expect(argsFit([READ], 'read_file', { path: 'x' })).toBe(true);
    expect(argsFit([READ], 'read_file', { nope: 1 })).toBe(false);
    expect(argsFit([READ], 'glob', { path: 'x' })).toBe(false);
  });
});
