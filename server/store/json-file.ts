/** Reading a JSON file through its zod schema; anything wrong names the file. */
import fs from 'node:fs';
import type { z } from 'zod';
import { CorruptFileError, describeZodError } from '../errors/app-error.ts';

/** Returns the parsed file, `null` if it does not exist, or throws CorruptFileError. */
export function readJsonFile<S extends z.ZodType>(file: string, schema: S): z.infer<S> | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new CorruptFileError(file, `not valid JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new CorruptFileError(file, describeZodError(parsed.error));
  return parsed.data;
}
