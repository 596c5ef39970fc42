import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CorruptFileError } from '../errors/app-error.ts';
import { tempDir } from '../testing/test-app.ts';
import { readJsonFile } from './json-file.ts';

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

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
