/** Session ids: `YYYYMMDD-HHMMSS-<6 hex>` in local time, so folder names sort chronologically. */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { SESSION_ID_PATTERN } from '../../shared/files.ts';
import { ValidationError } from '../errors/app-error.ts';

export function newSessionId(now: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export function isSessionId(value: string): boolean {
  return SESSION_ID_PATTERN.test(value);
}

/**
 * The only way to turn an id into a path: the id is checked against the pattern first, so
 * `../x`, absolute paths and NUL bytes never reach the filesystem.
 */
export function sessionDir(root: string, id: string): string {
  if (!isSessionId(id)) {
    throw new ValidationError(`"${id.slice(0, 80)}" is not a session id; ids look like 20260525-103149-3800ea`);
  }
  return path.join(root, id);
}
