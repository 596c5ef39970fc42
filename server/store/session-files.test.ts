import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../config/package-root.ts';
import { LAYOUT_NAMES } from './session-files.ts';

/** The entries of the layout block in sessions/README.md: the first word of each line one level in. */
function documentedEntries(): string[] {
  const readme = fs.readFileSync(path.join(PACKAGE_ROOT, 'sessions', 'README.md'), 'utf8');
  const block = /```\n<sessions root>\/<id>\/[^\n]*\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('sessions/README.md has no layout block');
  return block
    .split('\n')
    .filter((line) => /^ {2}\S/.test(line))
    .map((line) => line.trim().split(/\s+/)[0]!);
}

describe('sessions/README.md', () => {
  it('documents exactly the files the store writes in a session folder', () => {
    expect(documentedEntries().sort()).toEqual([...LAYOUT_NAMES].sort());
  });
});
