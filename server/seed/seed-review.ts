/**
 * Seed review (SPEC §5): the seed as the browser shows it, with the contract check, and the
 * user's edits — re-validated by the sink and recorded as one `seed: edited` commit.
 */
import type { Checkpoint, PrdEntry, SeedMeta } from '../../shared/files.ts';
import {
  proofsOfCriterion,
  worstProof,
  type CaseProof,
  type ContractWarning,
  type SeedCriterion,
  type SeedEdit,
  type SeedProof,
  type SeedSaved,
  type SeedView,
} from '../../shared/seed.ts';
import { AppError, ConflictError, NotFoundError } from '../errors/app-error.ts';
import { prepareSessionEnvironment, sessionScope } from '../env/session-env.ts';
import { Tree } from '../fs/tree.ts';
import { commitAll, worktreeRefOf } from '../git/worktree-git.ts';
import { sessionState, type SessionHandle } from '../store/session-handle.ts';
import { blocksRun, checkContract, isBlocking, type ContractCheckInput } from '../proof/contract-check.ts';
import { proveCases } from '../proof/red-proof.ts';
import type { StoredSeed } from '../store/seed-input.ts';
import { validateSeedBundle, writeSeed } from './sink.ts';

/**
 * Contract checks run the tests, so they are remembered until the seed changes — except a result
 * with an environment problem, which the user fixes outside Tilth (installing the dependencies,
 * say): that one is run again on request (seed review's "Check again") and before a run starts.
 */
const CONTRACT = sessionState('seed contract check', (): { last: ContractEntry | null } => ({ last: null }));

interface ContractEntry {
  /** The seed the check ran on (seedKey). */
  key: string;
  warnings: Promise<ContractWarning[]>;
  blocking: boolean;
}

/** `repeats`: runs of each named case in the red proof (TILTH_PROOF_REPEATS); the proof's default when absent. */
export async function seedView(session: SessionHandle, options: { recheck?: boolean; repeats?: number | undefined } = {}): Promise<SeedView> {
  if (!session.hasSeed()) throw new NotFoundError('no_seed', 'This session has no seed yet: the interview writes it.');
  const checkpoint = session.checkpoint.read();
  const { prd, meta, testFiles } = session.readSeed();
  // Once the run has started the work is in the worktree, so the tests would no longer fail for
  // want of it: the contract check and the red proof stand as they were proven before the run.
  const contract =
    checkpoint.status === 'prepared' ? await contractOf(session, checkpoint, { prd, meta, testFiles }, options.recheck === true, options.repeats) : [];
  return { prd, meta, test_files: testFiles, contract, criteria: criteriaRows(prd, session.seedProof.read(), seedKey(prd, meta)) };
}

/** Per task, one row per criterion with the worst red proof of its tests (null when not proven for this seed). */
function criteriaRows(prd: PrdEntry[], proof: SeedProof | null, key: string): Record<string, SeedCriterion[]> {
  const current = proof?.key === key ? proof : null;
  const rows: Record<string, SeedCriterion[]> = {};
  for (const task of prd) {
    const proofs = current?.tasks[task.id] ?? [];
    rows[task.id] = task.acceptance_criteria.map((criterion, i) => {
      const worst = worstProof(proofsOfCriterion(task, i, proofs));
      return { criterion, tests: task.criteria_tests?.[i] ?? [], red: worst?.result ?? null, red_detail: worst ? `${worst.test}: ${worst.detail}` : null };
    });
  }
  return rows;
}

/**
 * What the contract check and the red proof depend on: when it changes, they run again. The
 * tasks' words count too: the check tells "not built yet" from "not there" by the names a task
 * mentions, and a user who edited a criterion expects it checked again.
 */
export function seedKey(prd: PrdEntry[], meta: SeedMeta): string {
  return JSON.stringify([
    meta.locked_tests,
    prd.map((t) => [t.title, t.description, t.acceptance_criteria, t.criteria_tests ?? null]),
    meta.checks_preset,
    meta.custom_checks ?? null,
    meta.setup_command ?? null,
  ]);
}

/** Contract warnings from the red proof: a case that errs blocks the run; one that passes already is a warning. */
function redWarnings(prd: PrdEntry[], proofs: Record<string, CaseProof[]>, fileWarnings: ContractWarning[]): ContractWarning[] {
  const out: ContractWarning[] = [];
  for (const task of prd) {
    const filePasses = fileWarnings.some((w) => w.task_id === task.id && w.kind === 'already_passes');
    for (const proof of proofs[task.id] ?? []) {
      if (proof.result === 'error' || proof.result === 'not_run' || proof.result === 'flaky') {
        const how = proof.result === 'error' ? 'does not fail the way a test of missing work should' : proof.result === 'not_run' ? 'did not run' : 'is flaky';
        out.push({
          task_id: task.id,
          file: null,
          kind: 'case_error',
          message: `The test case "${proof.test}" of ${task.id} ${how}: ${proof.detail}.`,
        });
      } else if (proof.result === 'passed' && !filePasses) {
        out.push({
          task_id: task.id,
          file: null,
          kind: 'already_passes',
          message: `The test case "${proof.test}" of ${task.id} already passes before any work, so it cannot tell whether its criterion was met.`,
        });
      }
    }
  }
  return out;
}

/**
 * Refuses to start the first run of a session whose acceptance tests cannot run in its
 * environment (a runner or dependency not installed, a file the runner cannot load): every
 * task's checks would fail whatever the worker did, and the run would spend the budget finding
 * out. Uses the contract check seed review showed, or runs it now.
 */
export async function assertRunnable(session: SessionHandle, repeats?: number): Promise<void> {
  if (!session.hasSeed()) return;
  const checkpoint = session.checkpoint.read();
  const warnings = await contractOf(session, checkpoint, session.readSeed(), true, repeats);
  const blocking = warnings.filter(isBlocking);
  const [first] = blocking;
  if (!first) return;
  const more = blocking.length > 1 ? ` (and ${blocking.length - 1} more in the contract check)` : '';
  const output = first.output ? `\n\n${first.output.split('\n').slice(0, 20).join('\n')}` : '';
  throw new ConflictError(
    'environment_problem',
    first.kind === 'case_error'
      ? `The acceptance tests cannot prove the work: ${first.message}${more} Fix the test or the criterion's test cases in seed review, then run again.${output}`
      : `The acceptance tests cannot run in this environment, so every task would fail its checks: ${first.message}${more} Fix the environment (or the test in seed review), then run again.${output}`,
  );
}

/**
 * The contract check of a seed, remembered; `recheck` runs it again if what is remembered blocks
 * the run. The tests run in the environment the worker will have: a setup command set in seed
 * review runs first (its output streamed as `setup_*` events, once per command), and a failing
 * one is the environment problem the check reports.
 */
function contractOf(
  session: SessionHandle,
  checkpoint: Checkpoint,
  { prd, meta, testFiles }: StoredSeed,
  recheck = false,
  repeats?: number,
): Promise<ContractWarning[]> {
  const key = seedKey(prd, meta);
  const held = session.state(CONTRACT);
  let cached = held.last;
  if (!cached || cached.key !== key || (recheck && cached.blocking)) {
    // A session from before the git dirs were recorded, whose worktree is gone: no git to show.
    const warnings = worktreeRefOf(checkpoint)
      .catch(() => null)
      .then(async (ref): Promise<ContractWarning[]> => {
        const env = await prepareSessionEnvironment(
          { session, emit: (e) => session.emit(e) },
          { reason: 'prep', git: ref, setupCommand: meta.setup_command ?? null },
        );
        if (!env.ok) return [{ task_id: null, file: null, kind: 'environment', message: env.problem }];
        const input: ContractCheckInput = {
          prd,
          testFiles,
          preset: meta.checks_preset,
          project: meta.project_env ?? null,
          ...(meta.custom_checks ? { customChecks: meta.custom_checks } : {}),
          scope: sessionScope(session.sandbox, session.checkpoint.read(), checkpoint.worktree, ref),
          ...(repeats ? { repeats } : {}),
        };
        const fileWarnings = await checkContract(input);
        if (blocksRun(fileWarnings)) return fileWarnings;
        const proofs = await proveCases(input, prd);
        session.seedProof.write({ key, at: new Date().toISOString(), tasks: proofs });
        return [...fileWarnings, ...redWarnings(prd, proofs, fileWarnings)];
      });
    const entry = { key, warnings, blocking: false };
    cached = entry;
    held.last = entry;
    warnings.then(
      (ws) => {
        entry.blocking = blocksRun(ws);
      },
      () => {
        if (held.last === entry) held.last = null;
      },
    );
  }
  return cached.warnings;
}

/** Edits of one session run one at a time: two saves must not interleave their writes and commits. */
const EDITS = sessionState('seed edits', (): { last: Promise<unknown> } => ({ last: Promise.resolve() }));

export function editSeed(session: SessionHandle, edit: SeedEdit, repeats?: number): Promise<SeedSaved> {
  const queue = session.state(EDITS);
  const next = queue.last.catch(() => {}).then(() => applyEdit(session, edit, repeats));
  queue.last = next;
  return next;
}

async function applyEdit(session: SessionHandle, edit: SeedEdit, repeats?: number): Promise<SeedSaved> {
  const checkpoint = session.checkpoint.read();
  if (!session.hasSeed()) throw new NotFoundError('no_seed', 'This session has no seed to edit yet.');
  if (checkpoint.status !== 'prepared') {
    throw new ConflictError('seed_locked', `The seed can be edited only before the run starts; this session is ${checkpoint.status}.`);
  }
  const before = session.readSeed();
  const preset = edit.checks_preset ?? before.meta.checks_preset;
  const customChecks = edit.custom_checks ?? before.meta.custom_checks;
  // Ids stay stable: a kept task keeps its id, a removed one is retired for good, and a new task
  // takes an id above every id the session has used, so events and commits never name two tasks.
  const keptIds = before.prd.map((t) => t.id);
  const editedIds = new Set(edit.prd_entries.map((t) => t.id));
  const removedIds = [...(before.meta.removed_task_ids ?? []), ...keptIds.filter((id) => !editedIds.has(id))];
  const checked = validateSeedBundle(
    {
      prd_entries: edit.prd_entries,
      test_files: edit.test_files,
      tldr: before.meta.tldr,
      open_questions: before.meta.open_questions,
      blockers: before.meta.blockers,
      scope_notes: before.meta.scope_notes,
    },
    { preset, env: before.meta.project_env ?? null, ...(customChecks ? { customChecks } : {}), existingIds: [...keptIds, ...removedIds], keptIds },
  );
  if (!checked.ok) throw new AppError('seed_invalid', checked.problems.join('\n'));

  // undefined keeps the command, null removes it; it runs before the worker (session-env.ts).
  const setupCommand = edit.setup_command === undefined ? before.meta.setup_command : (edit.setup_command ?? undefined);
  const { locked_tests: _old, setup_command: _setup, removed_task_ids: _removed, ...meta } = before.meta;
  writeSeed(checked.seed, {
    session,
    meta: {
      ...meta,
      ...(removedIds.length > 0 ? { removed_task_ids: removedIds } : {}),
      checks_preset: preset,
      ...(customChecks ? { custom_checks: customChecks } : {}),
      ...(setupCommand ? { setup_command: setupCommand } : {}),
    },
  });
  // A test file the edit renamed away, or whose task it removed, is deleted, so the worktree holds exactly the seed's tests.
  const gone = Object.keys(before.testFiles).filter((old) => !(old in checked.seed.testFiles));
  if (gone.length > 0) {
    const worktree = Tree.at(checkpoint.worktree);
    for (const old of gone) worktree.remove(old);
  }
  const changed = describeChanges(before, checked.seed);
  if (preset !== before.meta.checks_preset) changed.unshift(`checks: ${preset}`);
  else if (JSON.stringify(customChecks ?? null) !== JSON.stringify(before.meta.custom_checks ?? null)) changed.unshift('custom checks');
  if ((setupCommand ?? null) !== (before.meta.setup_command ?? null)) changed.unshift('setup command');
  if (changed.length === 0) return { ...(await seedView(session, { repeats })), saved: { sha: null, changed } }; // nothing to record
  // Task text lives in the session folder, so the commit may hold no file: it still records the edit.
  const seedPaths = [...new Set([...Object.keys(before.testFiles), ...Object.keys(checked.seed.testFiles)])];
  const sha = await commitAll(await worktreeRefOf(checkpoint), 'seed: edited', `Changed in seed review: ${changed.join(', ')}`, {
    allowEmpty: true,
    paths: seedPaths,
  });
  session.emit({ type: 'seed_edited', data: { sha: sha ? sha.slice(0, 12) : null, changed } });
  if (preset !== checkpoint.checks_preset) session.checkpoint.update(() => ({ checks_preset: preset }));
  return { ...(await seedView(session, { repeats })), saved: { sha, changed } };
}

function describeChanges(
  before: { prd: PrdEntry[]; testFiles: Record<string, string> },
  after: { prd: PrdEntry[]; testFiles: Record<string, string> },
): string[] {
  const changed: string[] = [];
  const old = new Map(before.prd.map((t) => [t.id, t]));
  for (const task of after.prd) {
    const prev = old.get(task.id);
    if (!prev) changed.push(`${task.id} added`);
    else if (
      prev.title !== task.title ||
      prev.description !== task.description ||
      JSON.stringify(prev.acceptance_criteria) !== JSON.stringify(task.acceptance_criteria) ||
      JSON.stringify(prev.criteria_tests ?? null) !== JSON.stringify(task.criteria_tests ?? null) ||
      JSON.stringify(prev.may_change_test_setup ?? []) !== JSON.stringify(task.may_change_test_setup ?? [])
    ) {
      changed.push(task.id);
    }
  }
  for (const id of old.keys()) if (!after.prd.some((t) => t.id === id)) changed.push(`${id} removed`);
  // The tasks run in their order. Removing a task or adding one at the end leaves the rest in
  // place; anything else — a task moved, a new one put before others — is a change of order.
  const unmoved = [...before.prd.filter((t) => after.prd.some((a) => a.id === t.id)), ...after.prd.filter((t) => !old.has(t.id))];
  if (unmoved.map((t) => t.id).join() !== after.prd.map((t) => t.id).join()) changed.push('order');
  for (const [file, content] of Object.entries(after.testFiles)) if (before.testFiles[file] !== content) changed.push(file);
  for (const file of Object.keys(before.testFiles)) if (!(file in after.testFiles)) changed.push(`${file} removed`);
  return changed;
}
