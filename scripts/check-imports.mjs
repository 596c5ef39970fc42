#!/usr/bin/env node
// `npm run check:imports`, and a step of `npm test`: the import graph keeps one direction.
//
//  1. No module imports itself back, directly or through a chain. Type-only imports count: a type
//     cycle ties two modules together as firmly as a value cycle, it only fails later.
//  2. No room imports a room that imports it back. A room is a folder (`server/engine/`,
//     `web/src/review/`); a file at the top of a side (`server/http/app.ts`, `web/src/router.tsx`) is a
//     room of its own, since the top of a side holds both its entry points and a few low modules.
//     Test files are left out of this graph: nothing imports them, and from beside their module
//     they reach into the test room.
//  3. Sides, for code that ships (tests may cross, e.g. to drive the web's stream client against
//     the server): `shared/` imports only `shared/`; the web never imports the server or the
//     server the web; nothing imports the test room (`server/testing/`) or a test file.
//  4. A session folder's files belong to `store/`: the modules that know their names and formats
//     (`STORE_PRIVATE`) are imported only from `server/store/`; every other room goes through the
//     session handle (`store.session(id)`).
//  5. Every room imports only the rooms written beside it in `scripts/rooms.json` (issue 31): a new
//     direction is a decision, made in that file with a reason in the commit, not by an import that
//     slips in. A listed direction no longer used is reported, to be deleted. `--write-rooms`
//     writes the file from the imports as they are (for a move that renames rooms).
//
// The graph comes from the TypeScript compiler's import scanner (`ts.preProcessFile`): every
// `import`, `import type`, `export … from` and `import()` with a relative specifier. Package imports
// are outside the graph. The README's architecture section says which room may import which.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where sources live; a file directly in one of these is a room of its own (rule 2). */
const SIDES = ['server', 'shared', 'web/src', 'web/e2e', 'bench', 'scripts'];
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const TEST_FILE = /\.test\.tsx?$/;

/**
 * Cycles allowed for now, each to be deleted by the change that removes it. A cycle is allowed
 * when every module in it lies in the named rooms.
 */
const TEMPORARY_EXCEPTIONS = [];

const toPosix = (file) => file.split(path.sep).join('/');

function listSources() {
  const files = fs.readdirSync(root).filter((name) => SOURCE.test(name) && fs.statSync(path.join(root, name)).isFile());
  for (const side of SIDES) {
    for (const name of fs.readdirSync(path.join(root, side), { recursive: true, encoding: 'utf8' })) {
      if (SOURCE.test(name) && !name.split(path.sep).includes('node_modules')) files.push(toPosix(path.join(side, name)));
    }
  }
  return files.sort();
}

/** file → the files it imports (relative specifiers only, resolved to existing files). */
function importGraph(files) {
  const graph = new Map();
  const unresolved = [];
  for (const file of files) {
    const imports = new Set();
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = toPosix(path.normalize(path.join(path.dirname(file), fileName)));
      if (fs.existsSync(path.join(root, target))) imports.add(target);
      else unresolved.push(`${file} imports ${fileName}, which does not exist`);
    }
    graph.set(file, imports);
  }
  return { graph, unresolved };
}

/** Strongly connected components with more than one member (Tarjan), each a set of nodes on a cycle. */
function cycles(nodes, next) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of next(node)) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node), index.get(to)));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return found;
}

/** One loop through a component, start → … → start, found breadth first. */
function loopThrough(component, next) {
  const members = new Set(component);
  const start = component[0];
  const cameFrom = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const to of next(node)) {
      if (to === start) {
        const loop = [];
        for (let at = node; at !== null; at = cameFrom.get(at)) loop.unshift(at);
        return [...loop, start];
      }
      if (members.has(to) && !cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return component;
}

function roomOf(file) {
  const folder = path.posix.dirname(file);
  return SIDES.includes(folder) || folder === '.' ? file : folder;
}

const inRooms = (rooms, file) => rooms.some((room) => file === room || file.startsWith(`${room}/`));
const exceptionFor = (members) => TEMPORARY_EXCEPTIONS.find((exception) => members.every((member) => inRooms(exception.rooms, member)));

/** Modules that know the session folder's names; only `server/store/` imports them (rule 4). */
const STORE_PRIVATE = ['session-files', 'run-files', 'run-lock', 'summary-file'].map((name) => `server/store/${name}.ts`);

const ships = (file) =>
  (file.startsWith('server/') || file.startsWith('shared/') || file.startsWith('web/src/')) && !TEST_FILE.test(file) && !file.startsWith('server/testing/');

/** Rule 3: which side may import which. Returns why `from` must not import `to`, or null. */
function sideRule(from, to) {
  if (!ships(from)) return null;
  if (from.startsWith('shared/') && !to.startsWith('shared/')) return 'shared/ imports only shared/';
  if (from.startsWith('web/') && to.startsWith('server/')) return 'the web never imports the server';
  if (from.startsWith('server/') && to.startsWith('web/')) return 'the server never imports the web';
  if (to.startsWith('server/testing/') || TEST_FILE.test(to)) return 'code that ships never imports the test room or a test file';
  if (STORE_PRIVATE.includes(to) && !from.startsWith('server/store/')) return "the session folder's files are reached through the session handle";
  return null;
}

const { graph, unresolved } = importGraph(listSources());
const problems = [...unresolved];
const notes = [];
const used = new Set();

for (const [from, imports] of graph) {
  for (const to of imports) {
    const rule = sideRule(from, to);
    if (rule) problems.push(`${from} imports ${to}: ${rule}`);
  }
}

const next = (file) => graph.get(file) ?? [];
for (const component of cycles([...graph.keys()], next)) {
  const loop = loopThrough(component, next).join(' → ');
  const exception = exceptionFor(component);
  if (exception) {
    used.add(exception.name);
    notes.push(`allowed for now (${exception.name}): ${loop}`);
  } else {
    problems.push(`modules import each other: ${loop}${component.length > 2 ? ` (${component.length} modules in the cycle)` : ''}`);
  }
}

/** room → room → the first import that makes the edge, to name in a report. */
const roomEdges = new Map();
for (const [from, imports] of graph) {
  if (TEST_FILE.test(from)) continue;
  for (const to of imports) {
    const [a, b] = [roomOf(from), roomOf(to)];
    if (a === b) continue;
    if (!roomEdges.has(a)) roomEdges.set(a, new Map());
    if (!roomEdges.get(a).has(b)) roomEdges.get(a).set(b, `${from} → ${to}`);
  }
}
const nextRoom = (room) => roomEdges.get(room)?.keys() ?? [];
for (const component of cycles([...roomEdges.keys()], nextRoom)) {
  const exception = exceptionFor(component);
  if (exception) {
    used.add(exception.name);
    notes.push(`allowed for now (${exception.name}): rooms ${loopThrough(component, nextRoom).join(' → ')}`);
    continue;
  }
  const because = [];
  for (const from of component) {
    for (const [to, example] of roomEdges.get(from)) if (component.includes(to)) because.push(`    ${from} → ${to}: ${example}`);
  }
  problems.push(`rooms import each other: ${component.join(', ')}; the imports between them:\n${because.join('\n')}`);
}

// Rule 5: the written directions.
// `--rooms=<file>` reads another table (the script's own test uses it).
const roomsArg = process.argv.find((a) => a.startsWith('--rooms='));
const ROOMS_FILE = roomsArg ? path.resolve(roomsArg.slice('--rooms='.length)) : path.join(root, 'scripts', 'rooms.json');
const current = Object.fromEntries([...roomEdges.keys()].sort().map((room) => [room, [...roomEdges.get(room).keys()].sort()]));
if (process.argv.includes('--write-rooms')) {
  // As the formatter lays it out (biome.jsonc: 160 columns): a room per line, wrapped when longer.
  const line = ([room, targets]) => {
    const flat = `  ${JSON.stringify(room)}: ${JSON.stringify(targets).replaceAll('","', '", "')},`;
    return flat.length <= 160 ? flat : [`  ${JSON.stringify(room)}: [`, targets.map((t) => `    ${JSON.stringify(t)}`).join(',\n'), '  ],'].join('\n');
  };
  const body = Object.entries(current).map(line).join('\n').replace(/,$/, '');
  fs.writeFileSync(ROOMS_FILE, `{\n${body}\n}\n`);
  console.log(`wrote ${path.relative(root, ROOMS_FILE)}: ${Object.keys(current).length} rooms`);
}
const allowed = JSON.parse(fs.readFileSync(ROOMS_FILE, 'utf8'));
for (const [from, targets] of roomEdges) {
  for (const [to, example] of targets) {
    if ((allowed[from] ?? []).includes(to)) continue;
    problems.push(
      `${from} may not import ${to} (${example}). If it should, add "${to}" to "${from}" in scripts/rooms.json and say why in the commit; otherwise move the code to a room it may use.`,
    );
  }
}
for (const [from, targets] of Object.entries(allowed)) {
  for (const to of targets) {
    if (!roomEdges.get(from)?.has(to)) notes.push(`scripts/rooms.json lets ${from} import ${to}, and nothing does now: delete it there`);
  }
}

for (const exception of TEMPORARY_EXCEPTIONS) {
  if (!used.has(exception.name)) notes.push(`the exception ${exception.name} is no longer needed: delete it from scripts/check-imports.mjs`);
}
for (const note of notes) console.log(`note: ${note}`);
if (problems.length > 0) {
  for (const problem of problems) console.error(`✗ ${problem}`);
  console.error(`\n${problems.length} import problem(s); the rules are at the top of scripts/check-imports.mjs.`);
  process.exit(1);
}
console.log(`Imports keep one direction: ${graph.size} modules, ${roomEdges.size} rooms that import another.`);
