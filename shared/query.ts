/**
 * Query-string values: they arrive as text, so a number is parsed here, with a default when the
 * parameter is absent or empty and a message naming the parameter when it is not a whole number
 * in range. Every paged list (events, comments) takes its `limit` this way.
 */
import { z } from 'zod';

export const intFromQuery = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      if (!/^\d+$/.test(v)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a whole number` });
        return z.NEVER;
      }
      const n = Number(v);
      if (n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be between ${min} and ${max}` });
        return z.NEVER;
      }
      return n;
    });
