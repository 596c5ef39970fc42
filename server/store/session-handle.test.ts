import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempStore } from '../testing/test-app.ts';

const temp = useTempStore();

const task = (id: string) => ({ id, title: `Task ${id}`, description: 'd', acceptance_criteria: ['works'], status: 'pending' as const });

function newSession() {
  const id = temp.store.create({ source: '/repo', brief: 'b', baseBranch: 'main', baseSha: 'abc', status: 'prepared' }).session_id;
  return temp.store.session(id);
}

describe('the session handle', () => {
  it('counts the temp files of interrupted writes it removes, in its folder and the per-task ones', () => {
    const session = newSession();
    const dir = temp.store.session(session.id).dir;
    fs.mkdirSync(path.join(dir, 'ledger'));
    for (const t of ['.prd.json.0123456789ab.tmp', '.checkpoint.json.0123456789ac.tmp', 'ledger/.T-001.jsonl.0123456789ad.tmp'])
      fs.writeFileSync(path.join(dir, t), 'x');
    expect(session.removeStaleTemps()).toBe(3);
    expect(session.removeStaleTemps()).toBe(0);
  });

  it('reads an empty task list before the seed and sets one task status at a time after it', () => {
    const session = newSession();
    expect(session.prd.read()).toBeNull();
    expect(session.prd.tasks()).toEqual([]);
    expect(() => session.prd.setTaskStatus('T-001', 'done')).toThrow(expect.objectContaining({ code: 'no_seed' }));
    session.prd.write([task('T-001'), task('T-002')]);
    expect(session.prd.setTaskStatus('T-002', 'done').map((t) => t.status)).toEqual(['pending', 'done']);
    expect(session.prd.tasks().map((t) => t.status)).toEqual(['pending', 'done']);
  });

  it('has a seed only once both seed files are written, and names the missing one', () => {
    const session = newSession();
    session.prd.write([task('T-001')]);
    expect(session.hasSeed()).toBe(false);
    expect(() => session.readSeed()).toThrow(/seed-meta\.json is missing/);
  });

  it('keeps progress lines and finds a written outcome by its start', () => {
    const session = newSession();
    expect(session.progress.has('T-001\tdone\t')).toBe(false);
    session.progress.append('T-001', 'done', 'Double   it\n');
    session.progress.append('T-002', 'failed:iter_cap', 'Halve');
    expect(session.progress.has('T-001\tdone\t')).toBe(true);
    expect(session.progress.tail()).toBe('T-001\tdone\tDouble it\nT-002\tfailed:iter_cap\tHalve');
  });

  it('collects learnings under their task, with a header that says nothing applies them', () => {
    const session = newSession();
    expect(session.learnings.read()).toBeNull();
    session.learnings.append({ id: 'T-001', title: 'Double' }, '  Keep one function per file.  ');
    session.learnings.append({ id: 'T-002', title: 'Halve' }, 'Name tests after the task.');
    const text = session.learnings.read() ?? '';
    expect(text).toMatch(/^# Proposed learnings — session /);
    expect(text).toContain('Nothing applies them');
    expect(text).toContain('## From T-001 — Double\n\n- Keep one function per file.\n');
    expect(text.indexOf('T-001')).toBeLessThan(text.indexOf('T-002'));
  });

  it('closes a run request once, only under its own id, and a newer request replaces an older one', () => {
    const session = newSession();
    expect(session.runRequest.read()).toBeNull();
    expect(session.runRequest.close('r-0000000000000000')).toBe(false);
    const first = session.runRequest.open();
    expect(first.request_id).toMatch(/^r-[0-9a-f]{16}$/);
    const second = session.runRequest.open();
    expect(session.runRequest.close(first.request_id)).toBe(false);
    expect(session.runRequest.read()).toEqual(second);
    expect(session.runRequest.close(second.request_id)).toBe(true);
    expect(session.runRequest.close(second.request_id)).toBe(false);
    expect(session.runRequest.read()).toBeNull();
    expect(fs.readdirSync(temp.store.session(session.id).dir).filter((f) => f.includes('run-request'))).toEqual([]);
  });

  it("keeps the last add-task's state, checked against its schema on the way in and out", () => {
    const session = newSession();
    expect(session.addTask.read()).toBeNull();
    session.addTask.write({ state: 'running', title: 'Count', started_at: '2026-12-07T10:00:00.000Z' });
    expect(session.addTask.read()).toEqual({ state: 'running', title: 'Count', started_at: '2026-12-07T10:00:00.000Z' });
    const added = { state: 'added', title: 'Count', started_at: 'a', ended_at: 'b', task_id: 'T-003', test_file: 'tests/t003_count.test.js', red: 2 } as const;
    session.addTask.write(added);
    expect(session.addTask.read()).toEqual(added);
    expect(() => session.addTask.write({ state: 'added', title: 'Count' } as never)).toThrow();
    expect(session.addTask.read()).toEqual(added);
    fs.writeFileSync(path.join(temp.store.session(session.id).dir, 'add-task.json'), '{"state": "lost"}');
    expect(() => session.addTask.read()).toThrow(/add-task\.json/);
  });

  it('hands steering notes to the worker once', () => {
    const session = newSession();
    const note = session.steering.add('  use the helper  ');
    expect(note.text).toBe('use the helper');
    expect(session.steering.takePending().map((n) => n.note_id)).toEqual([note.note_id]);
    expect(session.steering.takePending()).toEqual([]);
    expect(session.steering.read()[0]?.consumed_at).not.toBeNull();
  });

  it('refuses a session another live process runs, and takes over a lock left by a dead one', () => {
    const session = newSession();
    const lockFile = path.join(temp.store.session(session.id).dir, 'run.lock');
    fs.writeFileSync(lockFile, JSON.stringify({ kind: 'cli', pid: process.ppid }));
    expect(session.runLock.heldElsewhere()).toBe(true);
    expect(() => session.runLock.assertFree()).toThrow(/being run by a headless `tilth run` \(pid \d+\)/);
    expect(() => session.runLock.acquire('serve')).toThrow(expect.objectContaining({ code: 'session_locked' }));

    const dead = spawnSync('true').pid;
    fs.writeFileSync(lockFile, JSON.stringify({ kind: 'cli', pid: dead }));
    expect(session.runLock.heldElsewhere()).toBe(false);
    const release = session.runLock.acquire('serve');
    expect(JSON.parse(fs.readFileSync(lockFile, 'utf8'))).toMatchObject({ kind: 'serve', pid: process.pid });
    release();
    expect(fs.existsSync(lockFile)).toBe(false);
  });

  it('removes the whole folder and tells the list', () => {
    const session = newSession();
    let changes = 0;
    const off = temp.store.bus.onSessionsChanged(() => changes++);
    session.remove();
    off();
    expect(fs.existsSync(temp.store.session(session.id).dir)).toBe(false);
    expect(session.exists()).toBe(false);
    expect(temp.store.ids()).not.toContain(session.id);
    expect(changes).toBeGreaterThan(0);
  });
});
