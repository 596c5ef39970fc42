import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../testing/test-app.ts';
import { QUEUE_KEY_FILE, QueueKeyError, queueKey } from './queue-key.ts';

describe('the queue key', () => {
  it('is made on first use, readable by the user alone, and the same for every later process', () => {
    const home = path.join(tempDir(), 'home');
    const first = queueKey(home);
    expect(first.file).toBe(path.join(home, QUEUE_KEY_FILE));
    expect(first.key).toHaveLength(32);
    expect(fs.statSync(first.file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);
    expect(fs.readFileSync(first.file, 'utf8')).toBe(`${first.key.toString('hex')}\n`);
    expect(queueKey(home).key.equals(first.key)).toBe(true);
  });

  it('comes out the same in processes that start at the same moment', async () => {
    const home = tempDir();
    const script = `import { queueKey } from ${JSON.stringify(path.resolve(import.meta.dirname, 'queue-key.ts'))}; process.stdout.write(queueKey(${JSON.stringify(home)}).key.toString('hex'));`;
    const run = () => promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]).then((r) => r.stdout);
    const keys = await Promise.all([run(), run(), run()]);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toBe(fs.readFileSync(path.join(home, QUEUE_KEY_FILE), 'utf8').trim());
    expect(fs.readdirSync(home)).toEqual([QUEUE_KEY_FILE]);
  });

  it('is refused, saying what to do, when others can read it; the file is left as it was', () => {
    const home = tempDir();
    const { file } = queueKey(home);
    for (const mode of [0o640, 0o604, 0o620]) {
      fs.chmodSync(file, mode);
      expect(() => queueKey(home)).toThrow(QueueKeyError);
      expect(() => queueKey(home)).toThrow(
        new RegExp(`can be read by other users \\(mode ${mode.toString(8)}\\).*chmod 600 ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      );
      expect(fs.statSync(file).mode & 0o777).toBe(mode);
    }
  });

  it('is refused when the file holds no key, rather than replaced under running workers', () => {
    const home = tempDir();
    fs.writeFileSync(path.join(home, QUEUE_KEY_FILE), 'not a key\n', { mode: 0o600 });
    expect(() => queueKey(home)).toThrow(/is not a queue key \(64 hex digits\)\. Delete it/);
    expect(fs.readFileSync(path.join(home, QUEUE_KEY_FILE), 'utf8')).toBe('not a key\n');
  });
});
