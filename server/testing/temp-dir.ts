/** A fresh folder under the system temp dir; the caller removes it. Its own module so unit tests need not load the app. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function tempDir(prefix = 'tilth-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
