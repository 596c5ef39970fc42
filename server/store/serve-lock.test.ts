import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/test-app.ts';
import { acquirePidLock } from './pid-lock.ts';
import { acquireServeLock, liveServeOrigin, LOCK_FILE, recordServeOrigin, ServeLockError } from './serve-lock.ts';

let root: string;
beforeEach(() => {
  root = tempDir();
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('serve lock', () => {
  it('records where its server answers, with the real port, only while the lock is its own', () => {
    const file = path.join(root, LOCK_FILE);
    recordServeOrigin(root, 'http://127.0.0.1:4100'); // no lock: nothing written
    expect(fs.existsSync(file)).toBe(false);
    const release = acquireServeLock(root, { port: 0 });
    recordServeOrigin(root, 'http://127.0.0.1:4100');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid, port: 4100, origin: 'http://127.0.0.1:4100' });
    release();
    // Another process's lock is left as it is.
    fs.writeFileSync(file, JSON.stringify({ pid: process.pid + 1_000_000, port: 7 }));
    recordServeOrigin(root, 'http://127.0.0.1:4200');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ pid: process.pid + 1_000_000, port: 7 });
    fs.writeFileSync(file, '{"pid": 1');
    recordServeOrigin(root, 'http://127.0.0.1:4200');
    expect(fs.readFileSync(file, 'utf8')).toBe('{"pid": 1');
  });

  it("reads a live server's origin from its lock; none for no lock, a dead owner or a lock that does not say", async () => {
    const file = path.join(root, LOCK_FILE);
    expect(liveServeOrigin(root)).toBeNull();
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)']);
    try {
      fs.writeFileSync(file, JSON.stringify({ pid: other.pid, port: 4300, origin: 'http://127.0.0.1:4300' }));
      expect(liveServeOrigin(root)).toBe('http://127.0.0.1:4300');
      fs.writeFileSync(file, JSON.stringify({ pid: other.pid, port: 4300 }));
      expect(liveServeOrigin(root)).toBeNull();
    } finally {
      other.kill();
    }
    await new Promise((r) => other.once('exit', r));
    fs.writeFileSync(file, JSON.stringify({ pid: other.pid, port: 4300, origin: 'http://127.0.0.1:4300' }));
    expect(liveServeOrigin(root)).toBeNull();
  });

  it('is taken once and released', () => {
    const release = acquireServeLock(root, { port: 1 });
    expect(JSON.parse(fs.readFileSync(path.join(root, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, port: 1 });
    release();
    expect(fs.existsSync(path.join(root, LOCK_FILE))).toBe(false);
  });

  it('refuses while another live process holds it, naming it', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)']);
    try {
      fs.writeFileSync(path.join(root, LOCK_FILE), JSON.stringify({ pid: other.pid, port: 4317 }));
      expect(() => acquireServeLock(root, { port: 2 })).toThrow(ServeLockError);
      expect(() => acquireServeLock(root, { port: 2 })).toThrow(`Another tilth serve (pid ${other.pid}, port 4317)`);
    } finally {
      other.kill();
    }
  });

  it('takes over a stale lock left by a dead process or a torn write', async () => {
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.once('exit', r));
    fs.writeFileSync(path.join(root, LOCK_FILE), JSON.stringify({ pid: dead.pid, port: 1 }));
    acquireServeLock(root, { port: 3 })();
    fs.writeFileSync(path.join(root, LOCK_FILE), '{"pid": 12');
    const release = acquireServeLock(root, { port: 4 });
    expect(JSON.parse(fs.readFileSync(path.join(root, LOCK_FILE), 'utf8')).port).toBe(4);
    release();
  });

  it('releases only a lock that is still its own', () => {
    const release = acquireServeLock(root, { port: 1 });
    const theirs = JSON.stringify({ pid: 999_999_999, port: 2 });
    fs.writeFileSync(path.join(root, LOCK_FILE), theirs);
    release();
    expect(fs.readFileSync(path.join(root, LOCK_FILE), 'utf8')).toBe(theirs);
  });

  it('says why it could not write the lock rather than taking it as held', () => {
    expect(() => acquireServeLock(path.join(root, 'missing'), { port: 1 })).toThrow(/ENOENT/);
    // A folder where nothing can be created (sysfs refuses even root): the lock's own error, not "held by another".
    expect(() =>
      acquirePidLock('/sys/tilth-test.lock', {}, () => {
        throw new Error('taken as held');
      }),
    ).toThrow(/EACCES/);
  });
});
