import { describe, expect, it } from 'vitest';
import { ModelClient, displayUrl, isOpenRouter } from './client.ts';

describe('isOpenRouter', () => {
  it('matches the openrouter.ai host and its subdomains only', () => {
    expect(isOpenRouter('https://openrouter.ai/api/v1')).toBe(true);
    expect(isOpenRouter('https://eu.OpenRouter.ai/api/v1')).toBe(true);
    expect(isOpenRouter('https://api.openai.com/v1')).toBe(false);
    expect(isOpenRouter('http://127.0.0.1:8080/openrouter.ai/v1')).toBe(false);
    expect(isOpenRouter('https://notopenrouter.ai/v1')).toBe(false);
    expect(isOpenRouter('not a url')).toBe(false);
  });
});

describe('displayUrl', () => {
  it('drops credentials, query and trailing slashes', () => {
    expect(displayUrl('https://me:secret@example.com:8443/api/v1/?key=abc')).toBe('https://example.com:8443/api/v1');
    expect(displayUrl('::')).toBe('(invalid URL)');
  });
});

describe('ModelClient options', () => {
  it('refuses a retry policy without at least one attempt', () => {
    expect(() => new ModelClient({ endpoints: {}, retry: { maxAttempts: 0 } })).toThrow(/maxAttempts/);
  });
});
