/**
 * The worker's tools in the run (reference §7.4): `bash`, `read_file`, `write_file`, `edit_file`,
 * `glob`, `grep`, plus the `submit_case` schema (the loop handles that call). Names, parameters
 * and messages are the Python edition's; the fixes are ours:
 * - `bash` is a real `/bin/bash -c` (the Python edition ran `/bin/sh`), run as untrusted code
 *   (proc/untrusted.ts): in the sandbox when bwrap works here, with a process cap and a timeout,
 *   killed whole on abort, and never with the server's secrets in its environment.
 * - Every file tool is confined to the worktree by real path: `..`, absolute paths and symlinks
 *   that lead out are refused, for writes too, and `.git` is never read or written.
 * - Arguments that are not a JSON object are an error message for the model, never a throw.
 *
 * Each tool is declared with what it does; the pre-tool guard (guard.ts) runs before every call
 * (`guarded`), and a block is returned as `blocked`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { LinkRefusedError, Tree } from '../fs/tree.ts';
import { processCapNote, runUntrusted, type Command, type UntrustedScope } from '../proc/untrusted.ts';
import type { MachineryWriteLock } from '../proof/test-machinery.ts';
import { checkToolCall } from './guard.ts';
import { ConfinedRoot, readHead } from './read-tools.ts';
import { GLOB_TOOL, GREP_TOOL, READ_FILE_TOOL, type ReadToolContext } from './tool-schema.ts';
import { SUBMIT_CASE_TOOL } from './submit-case.ts';
import { defineTool, runToolCall, ToolError, type ToolAnswer, type ToolSpec } from '../agent/tools.ts';
import { z } from 'zod';

export const MAX_WRITE_CHARS = 200_000;
/**
 * The largest file edit_file reads: the edit needs the whole text in server memory, so a model
 * pointing it at a huge file would stall the server. Larger files are edited with bash (sed).
 */
export const MAX_EDIT_BYTES = 1024 * 1024;
/** bash output kept for the model (reference `MAX_OUTPUT_CHARS`). */
export const MAX_BASH_OUTPUT_CHARS = 8_000;
export const DEFAULT_BASH_TIMEOUT_MS = 120_000;

export interface WorkerToolContext extends ReadToolContext {
  /** Where `bash` runs (the file tools are confined to `scope.worktree`). */
  scope: UntrustedScope;
  signal?: AbortSignal | undefined;
  bashTimeoutMs?: number | undefined;
  /** Refuses writes to the test machinery (proof/test-machinery.ts); absent, none is refused. */
  machinery?: MachineryWriteLock | undefined;
}

/**
 * The worker's tool context over its scope. The confined root is resolved again at every call, as
 * the worktree's real path is what each call is held to.
 */
export function workerContext(options: Omit<WorkerToolContext, 'root'>): WorkerToolContext {
  return {
    ...options,
    get root() {
      return new ConfinedRoot(options.scope.worktree);
    },
  };
}

/**
 * Runs one worker tool by its name on arguments already parsed from JSON, as the agent runtime
 * would (tests and tools outside a model turn; the run's loop goes through `Agent.dispatch`).
 */
export async function runWorkerTool(tool: string, args: Record<string, unknown>, options: Omit<WorkerToolContext, 'root'>): Promise<ToolAnswer> {
  const spec = WORKER_TOOLS.find((t) => t.name === tool);
  if (!spec)
    return {
      output: `ERROR: unknown tool '${tool}'. Available: [${WORKER_TOOLS.map((t) => t.name)
        .sort()
        .join(', ')}]`,
    };
  if (!spec.run) return { output: `ERROR: ${tool} is not run as a tool here; it ends the turn.` };
  return runToolCall(spec, args, workerContext(options));
}

/** The pre-tool guard before a tool's own run: a veto is the answer, with its reason as `blocked`. */
function guarded<A>(tool: ToolSpec<A, WorkerToolContext>): ToolSpec<A, WorkerToolContext> {
  const run = tool.run!;
  return {
    ...tool,
    run: (args, ctx) => {
      const decision = checkToolCall(tool.name, args as Record<string, unknown>, { worktree: ctx.scope.worktree });
      if (!decision.allow) return { output: `BLOCKED by the pre-tool guard: ${decision.reason}`, blocked: decision.reason };
      return run(args, ctx);
    },
  };
}

function requirePath(p: unknown): string {
  if (typeof p !== 'string' || p.trim() === '') throw new ToolError("'path' must be a non-empty string");
  return p;
}

// ---------------------------------------------------------------------------------------------
// bash

async function bashTool(command: unknown, ctx: WorkerToolContext): Promise<string> {
  const root = ctx.root;
  if (typeof command !== 'string' || command.trim() === '') return "ERROR: 'command' must be a non-empty string.";
  const timeoutMs = ctx.bashTimeoutMs ?? DEFAULT_BASH_TIMEOUT_MS;
  const bash: Command = { kind: 'argv', command: '/bin/bash', args: ['-c', command], env: {} };
  const run = await runUntrusted(
    bash,
    { ...ctx.scope, worktree: root.real },
    {
      timeoutMs,
      // No pager or credential prompt may wait for input that never comes.
      env: { PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', EDITOR: 'true' },
      signal: ctx.signal,
    },
  );
  if (run.spawnError !== null) return `ERROR: could not start ${run.sandboxed ? 'bwrap' : '/bin/bash'}: ${run.spawnError}`;
  const output = capOutput(run.output);
  const capped = processCapNote(run);
  if (capped) return `ERROR: ${capped}.\n$ ${command}${output ? `\n${output}` : ''}`;
  if (run.timedOut) {
    const secs = Math.round(timeoutMs / 100) / 10;
    return `ERROR: command timed out after ${secs}s; it and everything it started were stopped.\n$ ${command}${output ? `\n${output}` : ''}`;
  }
  if (ctx.signal?.aborted) return `ERROR: command interrupted because the run is stopping.\n$ ${command}${output ? `\n${output}` : ''}`;
  const status = run.exitCode === null ? '[killed before it exited (output limit reached or a signal)]' : `[exit ${run.exitCode}]`;
  return `${output}\n${status}`;
}

function capOutput(text: string): string {
  if (text.length <= MAX_BASH_OUTPUT_CHARS) return text;
  return `${text.slice(0, MAX_BASH_OUTPUT_CHARS)}\n... [truncated, total ${text.length} chars]`;
}

// ---------------------------------------------------------------------------------------------
// write_file and edit_file

/**
 * Where a write to `rel` lands, confined like ConfinedRoot.resolve but for a path that may not
 * exist yet: the nearest existing ancestor must be inside the root by real path, an existing
 * target that is a symlink must lead inside (a dangling one is refused), and `.git` is off limits.
 * Returns the real path to write (a symlink inside is written through, not replaced).
 */
export function resolveForWrite(root: ConfinedRoot, rel: string): string {
  requirePath(rel);
  if (rel.includes('\0')) throw new ToolError('path must not contain NUL bytes');
  if (path.isAbsolute(rel)) throw new ToolError(`path must be relative to the repository root, not absolute: ${rel}`);
  const joined = path.resolve(root.real, rel);
  if (!root.contains(joined) || joined === root.real) throw new ToolError(`path is outside the repository: ${rel}`);
  // Stryker disable next-line ConditionalExpression,StringLiteral: the check on the real path below refuses these with the same words; this one answers before touching the disk
  if (root.relative(joined).split('/').includes('.git')) throw new ToolError(`the .git folder is not writable: ${rel}`);

  let target = joined;
  let lstat: fs.Stats | undefined;
  try {
    lstat = fs.lstatSync(joined);
  } catch {
    // Nothing there yet: a new file.
  }
  if (lstat?.isSymbolicLink()) {
    try {
      target = fs.realpathSync(joined);
    } catch {
      throw new ToolError(`path is a symlink to nothing; refusing to write through it: ${rel}`);
    }
    // Stryker disable next-line ConditionalExpression: the same check on the same real path below says the same; here it says it first
    if (!root.contains(target)) throw new ToolError(`path leads outside the repository (through a symlink): ${rel}`);
  }
  // The nearest existing ancestor, by real path, decides where new folders and the file land.
  let existing = path.dirname(target);
  const tail = [path.basename(target)];
  for (;;) {
    try {
      const real = fs.realpathSync(existing);
      target = path.join(real, ...tail);
      break;
    } catch {
      tail.unshift(path.basename(existing));
      existing = path.dirname(existing);
    }
  }
  if (!root.contains(target)) throw new ToolError(`path leads outside the repository (through a symlink): ${rel}`);
  if (root.relative(target).split('/').includes('.git')) throw new ToolError(`the .git folder is not writable: ${rel}`);
  return target;
}

function writeConfined(root: ConfinedRoot, target: string, content: string): void {
  let mode: number | undefined;
  try {
    const stat = fs.statSync(target);
    if (stat.isDirectory()) throw new ToolError('path is a folder, not a file');
    if (!stat.isFile()) throw new ToolError('path is not a regular file');
    mode = stat.mode & 0o7777;
  } catch (err) {
    if (err instanceof ToolError) throw err;
  }
  // Through the tree as well: a folder on the way swapped for a link since the checks above is refused, not followed.
  const tree = Tree.at(root.real);
  try {
    tree.mkdir(path.dirname(target), { recursive: true });
    // Not fsynced: the worktree is rebuilt from git after a crash, and writes are frequent.
    tree.writeFileAtomic(target, content, { durable: false, ...(mode !== undefined ? { mode } : {}) });
  } catch (err) {
    if (err instanceof LinkRefusedError) throw new ToolError(err.message);
    throw err;
  }
}

/** The lock's refusal of writing `next` to `target`, as the tool's answer; null when allowed. */
function machineryRefusal(lock: MachineryWriteLock | undefined, root: ConfinedRoot, target: string, next: string): string | null {
  if (!lock) return null;
  const stat = fs.lstatSync(target, { throwIfNoEntry: false });
  const refusal = lock.refusal(root.relative(target), stat?.isFile() ? fs.readFileSync(target) : null, next);
  return refusal === null ? null : `ERROR: ${refusal}`;
}

function writeFileTool(root: ConfinedRoot, args: Record<string, unknown>, lock?: MachineryWriteLock): string {
  if (!('content' in args) || args.content === undefined || args.content === null) {
    return "ERROR: 'content' is required (pass an empty string for an empty file)";
  }
  if (typeof args.content !== 'string') return "ERROR: 'content' must be a string";
  if (args.content.length > MAX_WRITE_CHARS) return `ERROR: content exceeds ${MAX_WRITE_CHARS} chars; split the work.`;
  const rel = requirePath(args.path);
  const target = resolveForWrite(root, rel);
  const refused = machineryRefusal(lock, root, target, args.content);
  if (refused) return refused;
  writeConfined(root, target, args.content);
  return `wrote ${args.content.length} chars to ${rel}`;
}

function editFileTool(root: ConfinedRoot, args: Record<string, unknown>, lock?: MachineryWriteLock): string {
  const oldString = args.old_string ?? '';
  const newString = args.new_string ?? '';
  if (typeof oldString !== 'string' || typeof newString !== 'string') return "ERROR: 'old_string' and 'new_string' must be strings";
  if (oldString === '') return "ERROR: 'old_string' must be a non-empty string; use write_file to create a file";
  if (oldString === newString) return 'ERROR: old_string and new_string are identical';
  const rel = requirePath(args.path);
  const target = resolveForWrite(root, rel);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(target);
  } catch {
    return `ERROR: not a file: ${rel}`;
  }
  if (!stat.isFile()) return `ERROR: not a file: ${rel}`;
  const tooLarge = (size: number) =>
    `ERROR: ${rel} is ${size} bytes; edit_file works on files up to ${MAX_EDIT_BYTES} bytes (1 MiB). For a large file use bash, e.g. sed -i 's/old/new/' ${rel}`;
  if (stat.size > MAX_EDIT_BYTES) return tooLarge(stat.size);
  const { head: buf, size, whole } = readHead(target, MAX_EDIT_BYTES);
  if (!whole) return tooLarge(size); // it grew past the limit since the stat
  if (buf.subarray(0, 8000).includes(0)) return `ERROR: ${rel} is a binary file; edit_file works on text`;
  const text = buf.toString('utf8');
  const first = text.indexOf(oldString);
  if (first < 0) return `ERROR: old_string not found in ${rel}`;
  let count = 0;
  for (let at = first; at >= 0; at = text.indexOf(oldString, at + oldString.length)) count++;
  if (count > 1) return `ERROR: old_string matches ${count} places in ${rel}; expand it to a unique anchor.`;
  const updated = text.slice(0, first) + newString + text.slice(first + oldString.length);
  if (updated.length > MAX_WRITE_CHARS) return `ERROR: the edited file would exceed ${MAX_WRITE_CHARS} chars; split the work.`;
  const refused = machineryRefusal(lock, root, target, updated);
  if (refused) return refused;
  writeConfined(root, target, updated);
  return `edited ${rel} (-${oldString.length} +${newString.length} chars)`;
}

// ---------------------------------------------------------------------------------------------
// Declarations

const relPath = z.string().min(1, 'must be a non-empty path relative to the repository root').describe('Path relative to the repository root.');

export const BASH_TOOL = defineTool(
  'bash',
  'Run a bash command in the repository root and get its output (stdout and stderr) and exit code. Output past 8,000 characters is cut (8KB); the command is stopped after 120s, with everything it started. A safety hook refuses destructive commands (pushing, switching branches, deleting outside the repository, writing into .git).',
  z.object({ command: z.string().min(1, 'must be a non-empty command line').describe('The bash command line.') }),
  { run: async (args, ctx: WorkerToolContext) => ({ output: await bashTool(args.command, ctx) }) },
);
export const WRITE_FILE_TOOL = defineTool(
  'write_file',
  'Create or overwrite a file with the given content (at most 200,000 characters). Missing folders are created.',
  z.object({ path: relPath, content: z.string().describe('The whole new content of the file.') }),
  { run: (args, ctx: WorkerToolContext) => ({ output: writeFileTool(ctx.root, args, ctx.machinery) }) },
);
export const EDIT_FILE_TOOL = defineTool(
  'edit_file',
  'Replace exactly one occurrence of old_string with new_string in a file. old_string must match exactly one place; include enough surrounding lines to make it unique. Works on files up to 1 MiB; edit larger ones with bash (sed).',
  z.object({
    path: relPath,
    old_string: z.string().min(1, 'must be non-empty; use write_file to create a file').describe('The exact text to replace; must occur exactly once.'),
    new_string: z.string().describe('The replacement text.'),
  }),
  { run: (args, ctx: WorkerToolContext) => ({ output: editFileTool(ctx.root, args, ctx.machinery) }) },
);
/** The worker's tools as the model sees them, in the reference's registry order, submit_case last. */
export const WORKER_TOOLS: readonly ToolSpec<unknown, WorkerToolContext>[] = [
  guarded(BASH_TOOL),
  guarded(READ_FILE_TOOL),
  guarded(WRITE_FILE_TOOL),
  guarded(EDIT_FILE_TOOL),
  guarded(GLOB_TOOL),
  guarded(GREP_TOOL),
  SUBMIT_CASE_TOOL,
];

export function workerToolSchemas(): ChatCompletionTool[] {
  return WORKER_TOOLS.map((t) => t.schema);
}
