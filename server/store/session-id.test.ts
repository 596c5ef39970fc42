import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/app-error.ts';
import { isSessionId, newSessionId, sessionDir } from './session-id.ts';

describe('session ids', () => {
  it('are local time plus six hex characters and sort chronologically', () => {
    const a = newSessionId(new Date(2026, 4, 25, 10, 31, 49));
    const b = newSessionId(new Date(2026, 4, 25, 10, 31, 50));
    expect(a).toMatch(/^20260525-103149-[0-9a-f]{6}$/);
    expect([b, a].sort()).toEqual([a, b]);
    expect(isSessionId(a)).toBe(true);
  });

  it.each(['../etc', '20260525-103149-3800EA', '20260525-103149-3800ea/..', '/abs', '', '20260525-103149-3800e\u0000'])(
    'rejects %j before it touches the filesystem',
    (bad) => {
      expect(isSessionId(bad)).toBe(false);
      expect(() => sessionDir('/root', bad)).toThrow(ValidationError);
    },
  );
});
