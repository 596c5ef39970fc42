/**
 * The import check's written directions (scripts/rooms.json, issue 31): an import between rooms
 * the table does not list is refused, with where to write it; a listed direction nothing uses is
 * named for deletion. Run against the real source tree with a changed copy of the table.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../server/config/package-root.ts';
import { tempDir } from '../server/testing/test-app.ts';

const SCRIPT = path.join(PACKAGE_ROOT, 'scripts', 'check-imports.mjs');
const rooms = (): Record<string, string[]> => JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'scripts', 'rooms.json'), 'utf8'));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function check(table: Record<string, string[]>) {
  const dir = tempDir('tilth-rooms-');
  dirs.push(dir);
  const file = path.join(dir, 'rooms.json');
  fs.writeFileSync(file, JSON.stringify(table));
  return spawnSync(process.execPath, [SCRIPT, `--rooms=${file}`], { encoding: 'utf8', timeout: 60_000 });
}

describe('the written room directions', () => {
  it('pass as written', () => {
    const run = check(rooms());
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('nothing does now');
  });

  it('refuse an import the table does not list, saying where to write it', () => {
    const table = rooms();
    table['server/engine'] = table['server/engine']!.filter((room) => room !== 'server/agent');
    const run = check(table);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /server\/engine may not import server\/agent \(server\/engine\/\S+ → server\/agent\/\S+\)\. If it should, add "server\/agent" to "server\/engine" in scripts\/rooms\.json/,
    );
  });

  it('name a listed direction nothing uses, for deletion', () => {
    const table = rooms();
    table['server/engine'] = [...table['server/engine']!, 'server/demo'];
    const run = check(table);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('scripts/rooms.json lets server/engine import server/demo, and nothing does now: delete it there');
  });
});
