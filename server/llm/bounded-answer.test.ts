import { describe, expect, it } from 'vitest';
import { AnswerTooLargeError, COMPLETION_MAX_BYTES, METADATA_MAX_BYTES, replyMaxBytes, requestLabel } from './bounded-answer.ts';

describe('replyMaxBytes', () => {
  it('allows 32 MiB for a reply when the model’s window is unknown', () => {
    expect(replyMaxBytes(null)).toBe(COMPLETION_MAX_BYTES);
    expect(replyMaxBytes(undefined)).toBe(32 * 1024 * 1024);
  });

  it('derives the bound from the window with generous slack, between 1 MiB and 32 MiB', () => {
    expect(replyMaxBytes(4_096)).toBe(METADATA_MAX_BYTES);
    expect(replyMaxBytes(32_768)).toBe(4 * 1024 * 1024);
    expect(replyMaxBytes(131_072)).toBe(16 * 1024 * 1024);
    expect(replyMaxBytes(1_048_576)).toBe(COMPLETION_MAX_BYTES);
  });
});

describe('the sentence', () => {
  it('names the request without its query or credentials, and the bound in MiB', () => {
    const request = requestLabel('get', 'https://user:secret@models.example/v1/models?api-key=sk-in-the-query');
    expect(request).toBe('GET https://models.example/v1/models');
    expect(new AnswerTooLargeError(request, 8 * 1024 * 1024, 200).message).toBe(
      "The provider's answer to GET https://models.example/v1/models passed 8 MiB; Tilth stopped reading it.",
    );
  });
});
