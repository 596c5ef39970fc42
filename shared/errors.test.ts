import { describe, expect, it } from 'vitest';
import { CLIENT_ERRORS, ERROR_CODES, ERRORS } from './errors.ts';

describe('the error catalogue', () => {
  it('gives every code a snake_case name, a 4xx or 5xx status and a meaning', () => {
    for (const [code, entry] of Object.entries(ERRORS)) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(entry.status).toBeGreaterThanOrEqual(400);
      expect(entry.status).toBeLessThan(600);
      expect(entry.meaning.length).toBeGreaterThan(0);
    }
  });

  it('keeps the web client’s own codes apart from the server’s', () => {
    for (const code of Object.keys(CLIENT_ERRORS)) expect(Object.keys(ERRORS)).not.toContain(code);
  });

  it('names each code by itself in ERROR_CODES', () => {
    expect(ERROR_CODES.seed_invalid).toBe('seed_invalid');
    expect(ERROR_CODES.network_error).toBe('network_error');
    expect(Object.keys(ERROR_CODES)).toHaveLength(Object.keys(ERRORS).length + Object.keys(CLIENT_ERRORS).length);
  });
});
