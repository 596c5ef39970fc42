/**
 * The pre-tool guard: vetoes a worker tool call before it runs. A block becomes a `pre_tool_block`
 * event and a message to the model saying what is not allowed and what to do instead.
 *
 * Rules (first match wins):
 * - The Python edition's deny list (reference §7.4), matched on the raw command text: force push,
 *   `git reset --hard`, `git clean -f…`, `sudo`, piping curl or wget into a shell, the fork bomb.
 * - Ours, on the parsed command: any `git push`; switching branches (`git checkout <branch>`,
 *   `git checkout -b`, `git switch`) and deleting, renaming or forcing branches (`git branch -D` …);
 *   a recursive `rm` whose target resolves outside the worktree (or is the worktree itself, or
 *   cannot be resolved: `~`, `$VAR`); any write into `.git` — `write_file`/`edit_file` paths, shell
 *   redirections, and the path arguments of file-changing commands (tee, cp, mv, rm, touch, …).
 *
 * Limits, on purpose: a shell command is read with a simple tokeniser, not a shell parser. It
 * splits on `;`, `&&`, `||`, `|`, `&`, newlines, parentheses and backticks (so `$(…)` and
 * subshells are looked into, and a word a substitution stands in, as in `rm -rf $(pwd)`, cannot be
 * resolved), honours quotes and backslashes, follows `cd <literal dir>` from one segment to the
 * next, strips `VAR=x`, `env`, `command`, `exec`, `nohup`, `time`, `nice`, `timeout N` prefixes
 * (with their options' values: `nice -n 5`, `timeout -s KILL 30`), skips git's global options
 * (`-C dir`, `-c k=v`, `--no-pager`), and reads the script of `bash -c '…'` / `sh -c '…'`
 * recursively. It does not expand variables, globs, aliases or functions, does not look inside
 * `eval`, scripts the worker writes and then runs, `find -delete`, `xargs` or interpreters
 * (`python -c`, `node -e`). The guard steers an honest model away from damaging the run; the
 * sandbox (bash under bwrap) is the real boundary.
 *
 * History rewriting (`git commit --amend`, `git rebase`) is not blocked: the reference's deny list
 * does not name it.
 */
import fs from 'node:fs';
import path from 'node:path';

export type GuardDecision = { allow: true } | { allow: false; reason: string };

export interface GuardContext {
  worktree: string;
}

const ALLOW: GuardDecision = { allow: true };

/** The reference deny list (§7.4), in its order, each with advice for the model. */
const REFERENCE_DENY: { pattern: RegExp; label: string; advice: string }[] = [
  {
    pattern: /\bgit\s+push\b.*?(?:--force-with-lease|--force|(?<!\S)-f)\b/,
    label: 'force push',
    advice: 'Pushing is not part of the task: leave your changes in the worktree, and the run commits them when the task is accepted.',
  },
  {
    // Stryker disable next-line Regex: checkGit blocks every such command with the same words; loosened, it only adds text nobody types (`gitk-reset --hard`)
    pattern: /\bgit\s+reset\s+--hard\b/,
    label: 'git reset --hard',
    advice:
      'It throws away work and can move the branch. To undo your own change to a file, use `git checkout -- <file>` or `git restore <file>`, or edit it back.',
  },
  {
    // Stryker disable next-line Regex: as for reset above
    pattern: /\bgit\s+clean\s+-[fFdDxX]/,
    label: 'git clean (force)',
    advice: 'It deletes untracked files wholesale. Remove the specific files you created with `rm <path>` instead.',
  },
  {
    pattern: /^\s*sudo\b/,
    label: 'sudo (privilege escalation)',
    advice: 'Commands run as the current user only. Work inside the worktree, and install dependencies locally (e.g. `npm install`, a virtualenv).',
  },
  {
    // Stryker disable next-line Regex: its `^` is the rule above's case, which matches first
    pattern: /(^|;|\|\||&&|\|)\s*sudo\b/,
    label: 'sudo (privilege escalation, chained)',
    advice: 'Commands run as the current user only. Work inside the worktree, and install dependencies locally (e.g. `npm install`, a virtualenv).',
  },
  {
    pattern: /\bcurl\b[^|]*\|\s*(bash|sh|zsh)\b/,
    label: 'piping curl into a shell',
    advice: 'Do not run scripts from the network. Use the project’s package manager or write the code yourself.',
  },
  {
    pattern: /\bwget\b[^|]*\|\s*(bash|sh|zsh)\b/,
    label: 'piping wget into a shell',
    advice: 'Do not run scripts from the network. Use the project’s package manager or write the code yourself.',
  },
  {
    pattern: /:\(\)\s*\{\s*:\|:&\s*\}/,
    label: 'fork bomb pattern',
    advice: 'Run only commands the task needs.',
  },
];

const block = (label: string, advice: string): GuardDecision => ({ allow: false, reason: `${label} is not allowed. ${advice}` });

export function checkToolCall(tool: string, args: Record<string, unknown>, ctx: GuardContext): GuardDecision {
  const root = realOrResolved(ctx.worktree);
  if (tool === 'write_file' || tool === 'edit_file') {
    const p = args.path;
    if (typeof p === 'string' && inGitDir(root, path.resolve(root, p))) {
      return block(`Writing into .git (${p})`, 'The repository metadata belongs to the run. Change files of the project only; the run commits them for you.');
    }
    return ALLOW;
  }
  if (tool === 'bash') {
    const command = args.command;
    if (typeof command !== 'string') return ALLOW; // the tool itself answers with an error
    return checkCommand(command, root, 0);
  }
  return ALLOW;
}

function checkCommand(command: string, root: string, depth: number): GuardDecision {
  for (const rule of REFERENCE_DENY) {
    if (rule.pattern.test(command)) return block(rule.label, rule.advice);
  }
  let cwd = root;
  for (const segment of splitSegments(command)) {
    const words = stripPrefixes(segment.words);
    const decision = checkSegment(words, segment.redirects, cwd, root, depth);
    if (!decision.allow) return decision;
    // Follow `cd <literal dir>` so later segments resolve their paths where they will run.
    if (words[0] === 'cd') {
      const target = words[1];
      // Stryker disable next-line StringLiteral: any folder outside the worktree has the same effect; the name says why
      if (target === undefined || target === '~' || target.startsWith('~/')) cwd = '/nonexistent-home';
      else if (!target.includes('$')) cwd = path.resolve(cwd, target);
    }
  }
  return ALLOW;
}

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash']);
/** Commands that change the files named by their arguments. */
const FILE_CHANGERS = new Set([
  'tee',
  'cp',
  'mv',
  'rm',
  'rmdir',
  'touch',
  'mkdir',
  'ln',
  'truncate',
  'chmod',
  'chown',
  'install',
  'sed',
  'perl',
  'unlink',
  'shred',
]);
/** Of these, only the last argument (the destination) is written. */
const DESTINATION_ONLY = new Set(['cp', 'ln', 'install']);

function checkSegment(words: string[], redirects: string[], cwd: string, root: string, depth: number): GuardDecision {
  for (const target of redirects) {
    if (inGitDir(root, path.resolve(cwd, target))) {
      return block(`Redirecting output into .git (${target})`, 'The repository metadata belongs to the run. Write project files only.');
    }
  }
  const [cmd, ...rest] = words;
  if (cmd === undefined) return ALLOW;
  const name = path.basename(cmd);

  if (SHELLS.has(name)) {
    const c = rest.indexOf('-c');
    const script = c >= 0 ? rest[c + 1] : undefined;
    if (script !== undefined && depth < 3) return checkCommand(script, root, depth + 1);
    return ALLOW;
  }
  if (name === 'sudo') return block('sudo (privilege escalation)', REFERENCE_DENY[3]!.advice);
  if (name === 'git') return checkGit(rest, cwd);
  if (name === 'rm') {
    const decision = checkRm(rest, cwd, root);
    if (!decision.allow) return decision;
  }
  if (FILE_CHANGERS.has(name)) {
    const operands = rest.filter((w) => !w.startsWith('-'));
    const written = DESTINATION_ONLY.has(name) ? operands.slice(-1) : operands;
    for (const operand of written) {
      if (inGitDir(root, path.resolve(cwd, operand))) {
        return block(
          `Changing files inside .git (${name} ${operand})`,
          'The repository metadata belongs to the run. Change project files only; the run commits them for you.',
        );
      }
    }
  }
  return ALLOW;
}

/** git's global options that take a separate value. */
const GIT_OPTS_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env']);

function checkGit(args: string[], cwd: string): GuardDecision {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += GIT_OPTS_WITH_VALUE.has(args[i]!) ? 2 : 1;
  const sub = args[i];
  const rest = args.slice(i + 1);
  const stay = 'Stay on the current branch: the run owns the branches and commits your work when the task is accepted.';
  switch (sub) {
    case 'push':
      return block('git push', 'Nothing is published from a run: leave your changes in the worktree, and the run commits them when the task is accepted.');
    case 'reset':
      if (rest.includes('--hard')) return block('git reset --hard', REFERENCE_DENY[1]!.advice);
      return ALLOW;
    case 'clean':
      if (rest.some((w) => /^-[a-zA-Z]*[fFdDxX]/.test(w) || w === '--force')) return block('git clean (force)', REFERENCE_DENY[2]!.advice);
      return ALLOW;
    case 'switch':
      return block('Switching branches (git switch)', stay);
    // Accepted tasks are commits on this branch: rewriting history would change what was judged.
    case 'rebase':
      return block('Rewriting history (git rebase)', 'The branch holds accepted work; leave its commits as they are and make new changes in the worktree.');
    case 'commit':
      if (rest.includes('--amend')) {
        return block(
          'Rewriting history (git commit --amend)',
          'The branch holds accepted work; leave its commits as they are. The run commits your work when the task is accepted.',
        );
      }
      return ALLOW;
    case 'checkout': {
      const dash = rest.indexOf('--');
      if (dash >= 0) return ALLOW; // `git checkout [<rev>] -- <paths>` restores files
      // `-b` also in a cluster (`-qb new`) or with its value attached (`-bnew`); `--orphan=x` too.
      // Stryker disable next-line Regex: loosening the long options' anchors changes only the words: an operand like `x--orphan` is blocked below as a branch, `--detachx` git refuses
      if (rest.some((w) => /^-[a-zA-Z]*[bB]|^--orphan(=|$)|^--detach$/.test(w))) return block('Creating or switching branches (git checkout -b)', stay);
      // Every operand an existing path (or none): restoring files. Anything else names a branch or commit.
      const operands = rest.filter((w) => !w.startsWith('-'));
      if (operands.every((w) => exists(path.resolve(cwd, w)))) return ALLOW;
      return block(`Switching branches (git checkout ${operands.join(' ')})`, `${stay} To restore a file, use \`git checkout [<commit>] -- <file>\`.`);
    }
    case 'branch':
      if (rest.some((w) => /^-[a-zA-Z]*[dDmMcCf]/.test(w) || ['--delete', '--move', '--copy', '--force'].includes(w))) {
        return block('Deleting, renaming or forcing branches (git branch -D/-m/-f)', stay);
      }
      return ALLOW;
    default:
      return ALLOW;
  }
}

function checkRm(args: string[], cwd: string, root: string): GuardDecision {
  let recursive = false;
  const targets: string[] = [];
  let options = true;
  for (const w of args) {
    if (options && w === '--') options = false;
    else if (options && w.startsWith('--')) recursive ||= w === '--recursive';
    else if (options && w.startsWith('-') && w.length > 1) recursive ||= /[rR]/.test(w);
    else targets.push(w);
  }
  if (!recursive) return ALLOW;
  const advice = 'Delete only paths inside the worktree, written relative to it (e.g. `rm -rf build`).';
  for (const target of targets) {
    if (target.startsWith('~') || target.includes('$') || target.includes('`')) {
      return block(`rm -r of ${target} (a path the guard cannot resolve)`, advice);
    }
    const abs = realOrResolved(path.resolve(cwd, target));
    if (abs === root) return block(`rm -r of the whole worktree (${target})`, advice);
    if (!within(root, abs)) return block(`rm -r outside the worktree (${target})`, advice);
    if (inGitDir(root, abs)) return block(`rm -r inside .git (${target})`, advice);
  }
  return ALLOW;
}

interface Segment {
  words: string[];
  redirects: string[];
}

/**
 * Splits a command line into simple commands and tokenises each: quotes and backslashes honoured,
 * `;`, `&&`, `||`, `|`, `&`, newlines, `(`, `)` and backticks end a segment, and redirection
 * targets (`>f`, `>> f`, `2>f`, `&>f`, `>|f`) are collected apart from the words.
 */
export function splitSegments(command: string): Segment[] {
  const segments: Segment[] = [];
  let words: string[] = [];
  let redirects: string[] = [];
  let word = '';
  let inWord = false;
  let pendingRedirect = false;
  let inBackticks = false;
  const endWord = () => {
    if (!inWord) return;
    if (pendingRedirect) {
      redirects.push(word);
      pendingRedirect = false;
    } else words.push(word);
    word = '';
    inWord = false;
  };
  const endSegment = () => {
    endWord();
    pendingRedirect = false;
    if (words.length > 0 || redirects.length > 0) segments.push({ words, redirects });
    words = [];
    redirects = [];
  };
  let i = 0;
  while (i < command.length) {
    const ch = command[i]!;
    if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      // Stryker disable next-line EqualityOperator: indexOf from i + 1 is never 0
      word += end < 0 ? command.slice(i + 1) : command.slice(i + 1, end);
      inWord = true;
      // Stryker disable next-line EqualityOperator: as above
      i = end < 0 ? command.length : end + 1;
    } else if (ch === '"') {
      i++;
      while (i < command.length && command[i] !== '"') {
        if (command[i] === '\\' && i + 1 < command.length) i++;
        word += command[i];
        i++;
      }
      inWord = true;
      i++;
    } else if (ch === '\\') {
      if (i + 1 < command.length && command[i + 1] !== '\n') word += command[i + 1];
      inWord = true;
      i += 2;
    } else if (ch === ' ' || ch === '\t') {
      endWord();
      i++;
    } else if (';&|\n()`'.includes(ch)) {
      // `&>` and `>&` are redirections, not separators. (In `&>>` the second `>` is read as a
      // redirection of its own, to the same file.)
      if (ch === '&' && command[i + 1] === '>') {
        endWord();
        i += 2;
        pendingRedirect = true;
        continue;
      }
      // A command substitution's script is its own segment. Where it opens, the word it stands in
      // (`rm -rf $(pwd)`) keeps a `$(` or a backtick, so that word reads as unresolvable.
      if (ch === '(' && word.endsWith('$')) word += '(';
      else if (ch === '`') {
        if (!inBackticks) {
          word += '`';
          inWord = true;
        }
        inBackticks = !inBackticks;
      }
      endSegment();
      i++;
    } else if (ch === '>' || ch === '<') {
      // A file-descriptor number right before `>` belongs to the redirection, not to a word.
      if (/^\d+$/.test(word)) {
        word = '';
        inWord = false;
      }
      endWord();
      const isOutput = ch === '>';
      i++;
      if (command[i] === '|') i++; // `>|`; the second `>` of `>>` is read as a redirection of its own
      if (command[i] === '&') {
        // `>&2`: duplicating a descriptor, no file.
        i++;
        // Stryker disable next-line ConditionalExpression,EqualityOperator: past the end, command[i] is undefined and fails the test
        while (i < command.length && /\d|-/.test(command[i]!)) i++;
        continue;
      }
      if (isOutput) {
        pendingRedirect = true;
      } else {
        // An input file is read, not written: skip its name. A here-document's or here-string's
        // marker (`<<EOF`, `<<< word`) is skipped the same way, one `<` at a time; the body lines
        // of a here-document are then read as commands too: conservative, it can only block more.
        while (command[i] === ' ') i++;
        // Stryker disable next-line EqualityOperator: past the end, command[i] is undefined and the outer loop stops
        while (i < command.length && !/[\s;&|()<>`]/.test(command[i]!)) i++;
      }
    } else if (ch === '#' && !inWord) {
      // Stryker disable next-line EqualityOperator: past the end the outer loop stops all the same
      while (i < command.length && command[i] !== '\n') i++;
    } else {
      word += ch;
      inWord = true;
      i++;
    }
  }
  endSegment();
  return segments;
}

/** Wrappers that run the rest as a command, with their options that take a separate value. */
const WRAPPERS = new Map<string, Set<string>>([
  ['env', new Set(['-u', '--unset', '-C', '--chdir'])],
  ['nice', new Set(['-n', '--adjustment'])],
  ['timeout', new Set(['-s', '--signal', '-k', '--kill-after'])],
]);

/** Leading `VAR=value` assignments and wrappers that run the rest as a command. */
function stripPrefixes(words: string[]): string[] {
  let i = 0;
  for (;;) {
    const w = words[i];
    // Stryker disable next-line ConditionalExpression,ArrayDeclaration: past the end the slice below is [] too, and a
    // segment of only prefixes runs nothing, whatever word stands for it
    if (w === undefined) return [];
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) i++;
    else if (['command', 'builtin', 'exec', 'nohup', 'time', 'then', 'do', 'else', '!', '{'].includes(w)) i++;
    else if (WRAPPERS.has(w)) {
      const withValue = WRAPPERS.get(w)!;
      i++;
      while (words[i]?.startsWith('-')) i += withValue.has(words[i]!) ? 2 : 1;
      if (w === 'timeout') i++; // the duration
    } else return words.slice(i);
  }
}

function realOrResolved(p: string): string {
  // Resolve symlinks in the longest existing prefix; the rest does not exist yet.
  let existing = path.resolve(p);
  const tail: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(existing), ...tail);
    } catch {
      const parent = path.dirname(existing);
      // Stryker disable next-line ConditionalExpression: unreachable, "/" always exists
      if (parent === existing) return path.resolve(p);
      tail.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

function within(root: string, abs: string): boolean {
  // Stryker disable next-line ConditionalExpression: both callers treat the root itself apart (rm: "the whole worktree"; .git: no .git in "")
  return abs === root || abs.startsWith(root + path.sep);
}

/** True when `abs` (lexically, and through symlinks of its existing part) is in the worktree's `.git`. */
function inGitDir(root: string, abs: string): boolean {
  for (const candidate of [path.resolve(abs), realOrResolved(abs)]) {
    if (!within(root, candidate)) continue;
    if (path.relative(root, candidate).split(path.sep).includes('.git')) return true;
  }
  return false;
}

function exists(p: string): boolean {
  return fs.existsSync(p);
}
