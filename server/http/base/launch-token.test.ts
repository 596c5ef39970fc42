import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchToken, rotateToken, TOKEN_FILE } from './launch-token.ts';
import { tempDir } from '../../testing/test-app.ts';

describe('the kept token', () => {
  it('is minted once, kept for the next launch, readable by the user alone, and rotated on request', () => {
    const home = path.join(tempDir(), 'home');
    const first = launchToken(home);
    expect(first.minted).toBe(true);
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const file = path.join(home, TOKEN_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(launchToken(home)).toEqual({ token: first.token, minted: false });

    const rotated = rotateToken(home);
    expect(rotated).not.toBe(first.token);
    expect(launchToken(home).token).toBe(rotated);
  });

  it('narrows a widened file back to the user, and replaces content that is no token', () => {
    const home = tempDir();
    const { token } = launchToken(home);
    const file = path.join(home, TOKEN_FILE);
    fs.chmodSync(file, 0o644);
    expect(launchToken(home).token).toBe(token);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    fs.writeFileSync(file, 'not a token\n');
    const replaced = launchToken(home);
    expect(replaced.minted).toBe(true);
    expect(replaced.token).not.toBe(token);
  });
});
