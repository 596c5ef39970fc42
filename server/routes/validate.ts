/** Parses request parts with shared zod schemas; a failure is a 400 saying what to fix. */
import type { z } from 'zod';
import { describeZodError, ValidationError } from '../errors.ts';

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params' | 'frame'): z.infer<S> {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw new ValidationError(`Invalid ${where}: ${describeZodError(parsed.error)}`);
  return parsed.data;
}
