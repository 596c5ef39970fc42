import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CorruptFileError } from '../errors.ts';
import { tempDir } from '../testing/test-app.ts';
import { writeFileAtomic, writeJsonAtomic } from './atomic.ts';
import { readJsonFile } from './json-file.ts';

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('atomic writes', () => {
  it('replaces the whole file and leaves no temp files behind', () => {
    const file = path.join(dir, 'checkpoint.json');
    writeJsonAtomic(file, { a: 1 });
    writeJsonAtomic(file, { a: 2, b: 'x' });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ a: 2, b: 'x' });
    expect(fs.readdirSync(dir)).toEqual(['checkpoint.json']);
  });

  it('creates files with the requested mode', () => {
    const file = path.join(dir, 'config.json');
    writeFileAtomic(file, '{}', { mode: 0o600 });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('gives a replaced file the requested mode, whatever the old one had', () => {
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, '{"old": true}', { mode: 0o666 });
    fs.chmodSync(file, 0o666);
    writeFileAtomic(file, '{}', { mode: 0o600 });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('leaves the target and no temp file behind when the rename fails', () => {
    const target = path.join(dir, 'occupied');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'inside'), 'x');
    expect(() => writeJsonAtomic(target, { a: 1 })).toThrow();
    expect(fs.readdirSync(dir)).toEqual(['occupied']);
    expect(fs.readFileSync(path.join(target, 'inside'), 'utf8')).toBe('x');
  });

  it('fails without creating anything when the folder is missing', () => {
    expect(() => writeJsonAtomic(path.join(dir, 'missing', 'x.json'), { a: 1 })).toThrow(/ENOENT/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('readJsonFile', () => {
  const Schema = z.object({ n: z.number() });

  it('returns null for a missing file', () => {
    expect(readJsonFile(path.join(dir, 'none.json'), Schema)).toBeNull();
  });

  it('names the file when it is not JSON', () => {
    const file = path.join(dir, 'bad.json');
    fs.writeFileSync(file, '{oops');
    expect(() => readJsonFile(file, Schema)).toThrow(CorruptFileError);
    expect(() => readJsonFile(file, Schema)).toThrow(`${file} is corrupt: not valid JSON`);
  });

  it('names the field when the shape is wrong', () => {
    const file = path.join(dir, 'shape.json');
    fs.writeFileSync(file, '{"n":"seven"}');
    expect(() => readJsonFile(file, Schema)).toThrow(/shape\.json is corrupt: n: /);
  });
});
