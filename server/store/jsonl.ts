/**
 * Small append-only JSONL files (ledgers, steering notes): one JSON object per line, appended
 * whole. Like the event log, a reader skips a torn last line (a crash mid-append) and reports any
 * other bad line as corruption naming the file and line.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { CorruptFileError, describeZodError } from '../errors/app-error.ts';
import { writeAll, type Tree } from '../fs/tree.ts';

export function readJsonl<S extends z.ZodType>(file: string, schema: S): z.infer<S>[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const lines = text.split('\n');
  lines.pop(); // what follows the last newline: nothing, or a line torn by a crash
  return lines.map((line, i) => {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      throw new CorruptFileError(file, `line ${i + 1} is not valid JSON`);
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw new CorruptFileError(file, `line ${i + 1}: ${describeZodError(parsed.error)}`);
    return parsed.data;
  });
}

/** Appends one validated line; a torn tail left by a crash is cut first so lines stay whole. */
export function appendJsonl<S extends z.ZodType>(tree: Tree, file: string, schema: S, value: z.infer<S>): void {
  const line = `${JSON.stringify(schema.parse(value))}\n`;
  tree.mkdir(path.dirname(file), { recursive: true });
  const fd = tree.openAppend(file, { readable: true });
  try {
    const size = fs.fstatSync(fd).size;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty file has no tail to look at; the block finds nothing to cut there anyway
    if (size > 0) {
      const tail = Buffer.alloc(Math.min(size, 64 * 1024));
      fs.readSync(fd, tail, 0, tail.length, size - tail.length);
      const lastNewline = tail.lastIndexOf(0x0a);
      // Stryker disable next-line ConditionalExpression,ArithmeticOperator: cutting a whole file at its own end changes nothing; the test only saves the call
      if (lastNewline !== tail.length - 1) fs.ftruncateSync(fd, size - tail.length + lastNewline + 1);
    }
    // Stryker disable next-line StringLiteral: utf8 is Buffer.from's default encoding
    writeAll(fd, Buffer.from(line, 'utf8'));
  } finally {
    fs.closeSync(fd);
  }
}

/** Replaces the whole file atomically (for small files whose lines change, e.g. consumed notes). */
export function rewriteJsonl<S extends z.ZodType>(tree: Tree, file: string, schema: S, values: z.infer<S>[]): void {
  tree.writeFileAtomic(file, values.map((v) => `${JSON.stringify(schema.parse(v))}\n`).join(''));
}
