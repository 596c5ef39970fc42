#!/usr/bin/env node
// `npm run check:size`, and a step of `npm test` (issue 31): a size budget for the code that ships.
//
// A file of `server/`, `shared/` or `web/src/` over 400 lines, or a named function over 120 lines
// (a function or method declaration, or an arrow or function expression given to a variable or a
// property; an anonymous callback counts toward the function it is written in), fails the check
// unless `scripts/size-exceptions.json` lists it with a one-line reason. A listed entry that is
// back within the budget, or gone, fails too, so the list only shrinks. Tests are outside the
// budget: a long table of cases reads better whole.
//
// `--write` rewrites the list from the tree, keeping the reasons already written and marking new
// entries with "TODO: say why" (which the check refuses), for a change that renames or moves code.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FILE_LINES = 400;
export const FUNCTION_LINES = 120;
const SIDES = ['server', 'shared', 'web/src'];
const TODO = 'TODO: say why';

const args = process.argv.slice(2);
const listArg = args.find((a) => a.startsWith('--list='));
const listFile = listArg ? path.resolve(listArg.slice('--list='.length)) : path.join(root, 'scripts', 'size-exceptions.json');

function sources() {
  const files = [];
  for (const side of SIDES) {
    for (const name of fs.readdirSync(path.join(root, side), { recursive: true, encoding: 'utf8' })) {
      const file = path.join(side, name).split(path.sep).join('/');
      if (!/\.(ts|tsx)$/.test(file) || /\.test\.tsx?$/.test(file) || /\.d\.ts$/.test(file) || file.includes('node_modules')) continue;
      if (file.startsWith('server/testing/')) continue;
      files.push(file);
    }
  }
  return files.sort();
}

/** The name a function goes by, or null for an anonymous one. */
function nameOf(node) {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) && node.name) {
    return node.name.getText();
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    const parent = node.parent;
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  }
  return null;
}

/** Every named function of a file with its line count: `Class.method`, `outer.inner` when nested. */
export function measure(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const lines = (node) => source.getLineAndCharacterOfPosition(node.getEnd()).line - source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const functions = [];
  const visit = (node, scope) => {
    let inner = scope;
    if (ts.isClassDeclaration(node) && node.name) inner = [...scope, node.name.text];
    const name = ts.isFunctionLike(node) ? nameOf(node) : null;
    if (name !== null && 'body' in node && node.body) {
      inner = [...scope, name];
      functions.push({ name: inner.join('.'), lines: lines(node) });
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, []);
  const fileLines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  return { lines: fileLines, functions };
}

/** What is over the budget now: `{ files: {path: lines}, functions: {"path#name": lines} }`. */
export function overBudget(files = sources(), read = (f) => fs.readFileSync(path.join(root, f), 'utf8')) {
  const over = { files: {}, functions: {} };
  for (const file of files) {
    const m = measure(file, read(file));
    if (m.lines > FILE_LINES) over.files[file] = m.lines;
    for (const f of m.functions)
      if (f.lines > FUNCTION_LINES) over.functions[`${file}#${f.name}`] = Math.max(over.functions[`${file}#${f.name}`] ?? 0, f.lines);
  }
  return over;
}

/** The problems of the tree against the list, each a sentence. */
export function problems(over, listed) {
  const found = [];
  for (const kind of ['files', 'functions']) {
    const limit = kind === 'files' ? `${FILE_LINES} lines` : `${FUNCTION_LINES} lines`;
    for (const [key, n] of Object.entries(over[kind])) {
      const reason = listed[kind]?.[key];
      if (reason === undefined) {
        found.push(
          `${key} has ${n} lines, over the budget of ${limit}: split it, or list it in scripts/size-exceptions.json under "${kind}" with a one-line reason`,
        );
      } else if (typeof reason !== 'string' || reason.trim() === '' || reason.startsWith('TODO')) {
        found.push(`${key} is listed in scripts/size-exceptions.json without a reason: write one line saying why it stays ${n} lines long`);
      }
    }
    for (const key of Object.keys(listed[kind] ?? {})) {
      if (!(key in over[kind])) found.push(`${key} is listed in scripts/size-exceptions.json but is within the budget now (or gone): delete the entry`);
    }
  }
  return found;
}

function main() {
  const over = overBudget();
  const listed = fs.existsSync(listFile) ? JSON.parse(fs.readFileSync(listFile, 'utf8')) : { files: {}, functions: {} };
  if (args.includes('--write')) {
    const next = { files: {}, functions: {} };
    for (const kind of ['files', 'functions']) for (const key of Object.keys(over[kind]).sort()) next[kind][key] = listed[kind]?.[key] ?? TODO;
    fs.writeFileSync(listFile, `${JSON.stringify(next, null, 2)}\n`);
    console.log(`wrote ${path.relative(root, listFile)}: ${Object.keys(next.files).length} files, ${Object.keys(next.functions).length} functions`);
    return;
  }
  const found = problems(over, listed);
  if (found.length > 0) {
    for (const p of found) console.error(`✗ ${p}`);
    console.error(`\n${found.length} size problem(s); the budget is at the top of scripts/check-size.mjs.`);
    process.exit(1);
  }
  console.log(
    `Within the size budget: ${Object.keys(over.files).length} files and ${Object.keys(over.functions).length} functions over it, each listed with its reason.`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
