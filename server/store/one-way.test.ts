/**
 * One way to a session (issue 31): outside `store/`, code reaches a session only through its
 * handle, `store.session(id)`. The store's by-id operations are private to it; this test keeps
 * them so, and counts the calls that would go around the handle.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../config/package-root.ts';

const STORE_FILE = path.join(PACKAGE_ROOT, 'server', 'store', 'session-store.ts');
/** What the store does with one session, by its id: the handle's business everywhere else. */
const BY_ID = [
  'dir',
  'exists',
  'readCheckpoint',
  'updateCheckpoint',
  'setStatus',
  'guardWrites',
  'emit',
  'log',
  'openLog',
  'summaryOf',
  'publishAppendedElsewhere',
  'listItem',
  'state',
  'forget',
];

/** The public members of SessionStore that take a session id (a parameter named `id`), besides `session(id)` itself. */
function publicByIdMembers(): string[] {
  const source = ts.createSourceFile(STORE_FILE, fs.readFileSync(STORE_FILE, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  source.forEachChild((node) => {
    if (!ts.isClassDeclaration(node) || node.name?.text !== 'SessionStore') return;
    for (const member of node.members) {
      if (!ts.isMethodDeclaration(member) || !ts.isIdentifier(member.name)) continue;
      const isPrivate = member.modifiers?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword) ?? false;
      const takesId = member.parameters.some((p) => ts.isIdentifier(p.name) && p.name.text === 'id');
      if (takesId && !isPrivate && member.name.text !== 'session') found.push(member.name.text);
    }
  });
  return found;
}

/** Calls like `store.readCheckpoint(id)` or `this.store.emit(id, …)` in the given file. */
function byIdCalls(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const call = new RegExp(`\\b\\w*(?:store|Store)\\s*\\.\\s*(${BY_ID.join('|')})\\(`, 'g');
  return [...text.matchAll(call)].map((m) => `${path.relative(PACKAGE_ROOT, file)}: ${m[0]}`);
}

function sourcesOutsideStore(): string[] {
  const roots = ['server', 'bench', 'web/e2e', 'scripts'].map((r) => path.join(PACKAGE_ROOT, r));
  const files: string[] = [];
  for (const root of roots) {
    for (const name of fs.readdirSync(root, { recursive: true, encoding: 'utf8' })) {
      const file = path.join(root, name);
      if (/\.tsx?$/.test(name) && !file.startsWith(path.join(PACKAGE_ROOT, 'server', 'store') + path.sep) && !name.includes('node_modules')) files.push(file);
    }
  }
  return files;
}

describe('one way to a session', () => {
  it('the store keeps every operation on one session private: each goes through the handle', () => {
    expect(publicByIdMembers()).toEqual([]);
  });

  it('finds the members it is about: the store still has them, privately', () => {
    // A renamed operation would make the first test pass for the wrong reason.
    const text = fs.readFileSync(STORE_FILE, 'utf8');
    for (const name of BY_ID) expect(text).toMatch(new RegExp(`\\n  private (async )?${name}(<T>)?\\(`));
  });

  it('no code outside store/ calls a by-id operation on a store: zero calls', () => {
    const files = sourcesOutsideStore();
    expect(files.length).toBeGreaterThan(300);
    expect(files.flatMap(byIdCalls)).toEqual([]);
  });

  it('would count a call that goes around the handle', () => {
    const dir = fs.mkdtempSync(path.join(PACKAGE_ROOT, 'node_modules', '.one-way-'));
    try {
      const file = path.join(dir, 'x.ts');
      fs.writeFileSync(file, 'store.readCheckpoint(id);\nthis.opts.store.emit(id, e);\nstore.session(id).emit(e);\n');
      expect(byIdCalls(file).map((c) => c.split(': ')[1])).toEqual(['store.readCheckpoint(', 'store.emit(']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
