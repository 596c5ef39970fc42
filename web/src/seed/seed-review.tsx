import { useEffect, useRef } from 'react';
import { testFileRule, type SeedView } from '../../../shared/seed.ts';
import { addTask, moveTask, pairTestFiles, removeTask, renameTestFile, type SeedDraft } from './seed-edit.ts';
import { ContractWarnings } from './contract-warnings.tsx';
import { SeedSummary } from './seed-summary.tsx';
import { SeedTaskCard, SeedTaskEditor, TestFileEditor } from './seed-task-card.tsx';
import { ChecksEditor } from './checks-editor.tsx';
import { SeedToolbar } from './seed-toolbar.tsx';
import { CodeView } from '../components/code-view.tsx';
import { shortSha } from '../review/review-format.ts';
import './seed.css';

export interface SeedReviewProps {
  seed: SeedView;
  /** Null while reading; the working copy while editing. */
  draft: SeedDraft | null;
  /** What the draft changes, in words; Save needs at least one. */
  changes: readonly string[];
  /** Saving commits the edit, then runs the contract check on it again. */
  saving: boolean;
  /** The last save: the commit that recorded it (null when there was nothing to commit). */
  saved: { sha: string | null } | null;
  /** The server's problems with the last save, one per line. */
  problems: readonly string[];
  onEdit: () => void;
  onCancel: () => void;
  onSave: () => void;
  onDraftChange: (draft: SeedDraft) => void;
  /** Starts the run; the page then switches to the run view. */
  onRun: () => void;
  starting: boolean;
  /** The server's message when the run was refused. */
  runError: string | null;
  /** Runs the contract check again (after the user fixed the environment, say). */
  onRecheck: () => void;
  rechecking: boolean;
}

export function SeedReview(props: SeedReviewProps) {
  const { seed, draft } = props;
  const { byTask, unpaired } = pairTestFiles(seed);
  const editing = draft !== null;
  // The server refuses the run too (409 environment_problem); the button says so first.
  const blocked = seed.contract.some((w) => w.kind === 'environment');
  const setFile = (path: string, content: string) => {
    if (draft !== null) props.onDraftChange({ ...draft, files: { ...draft.files, [path]: content } });
  };

  return (
    <div className="seed-review" data-testid="seed-review" data-editing={editing}>
      <SeedToolbar
        seed={seed}
        // While editing, the tasks on screen are the draft's.
        taskCount={draft?.tasks.length ?? seed.prd.length}
        editing={editing}
        blocked={blocked}
        changes={props.changes}
        saving={props.saving}
        onEdit={props.onEdit}
        onCancel={props.onCancel}
        onSave={props.onSave}
        onRun={props.onRun}
        starting={props.starting}
      />

      {props.saved !== null && !editing && <SavedNote sha={props.saved.sha} />}

      {props.runError !== null && <RunError message={props.runError} />}

      {blocked && !editing && <RunBlocked rechecking={props.rechecking} onRecheck={props.onRecheck} />}

      <SaveProblems problems={props.problems} />

      {editing && <ChecksEditor checks={draft.checks} env={seed.meta.project_env ?? null} onChange={(checks) => props.onDraftChange({ ...draft, checks })} />}
      <SeedSummary meta={seed.meta} tasks={seed.prd} />
      <ContractWarnings warnings={seed.contract} checking={props.saving || props.rechecking} preset={seed.meta.checks_preset} />

      <section className="seed-tasks" aria-label="Tasks">
        <h2>Tasks</h2>
        {editing ? (
          <DraftTaskList seed={seed} draft={draft} onDraftChange={props.onDraftChange} onTestChange={setFile} />
        ) : (
          seed.prd.map((task) => <SeedTaskCard key={task.id} task={task} test={testFile(seed, draft, byTask.get(task.id))} criteria={seed.criteria[task.id]} />)
        )}
      </section>

      {unpaired.length > 0 && <UnpairedTestFiles seed={seed} draft={draft} paths={unpaired} onTestChange={setFile} />}
    </div>
  );
}

/** A test file's path and text: the draft's while editing, else the seed's. */
function testFile(seed: SeedView, draft: SeedDraft | null, path: string | undefined) {
  return path === undefined ? null : { path, content: draft?.files[path] ?? seed.test_files[path] ?? '' };
}

/** Edit mode's tasks: each editable in run order, then Add task. */
function DraftTaskList({
  seed,
  draft,
  onDraftChange,
  onTestChange,
}: {
  seed: SeedView;
  draft: SeedDraft;
  onDraftChange: (draft: SeedDraft) => void;
  onTestChange: (path: string, content: string) => void;
}) {
  return (
    <>
      {draft.tasks.map((task, i) => (
        <SeedTaskEditor
          key={task.id}
          task={task}
          test={testFile(seed, draft, task.testPath ?? undefined)}
          position={i}
          count={draft.tasks.length}
          pathRule={testFileRule(draft.checks.preset, seed.meta.project_env ?? null).describe}
          onChange={(next) => onDraftChange({ ...draft, tasks: draft.tasks.map((t) => (t.id === next.id ? next : t)) })}
          onTestChange={onTestChange}
          onTestPathChange={(path) => onDraftChange(renameTestFile(draft, task.id, path))}
          onMove={(by) => onDraftChange(moveTask(draft, task.id, by))}
          onRemove={() => onDraftChange(removeTask(draft, task.id))}
        />
      ))}
      <button type="button" className="button button-secondary" data-testid="add-task" onClick={() => onDraftChange(addTask(seed, draft))}>
        Add task
      </button>
      <p className="muted small">Tasks run from top to bottom. A new task needs its acceptance test file and, per criterion, the test cases that check it.</p>
    </>
  );
}

/** Test files no task names: shown as code, or editable while editing. */
function UnpairedTestFiles({
  seed,
  draft,
  paths,
  onTestChange,
}: {
  seed: SeedView;
  draft: SeedDraft | null;
  paths: readonly string[];
  onTestChange: (path: string, content: string) => void;
}) {
  return (
    <section className="seed-unpaired" aria-label="Other test files">
      <h2>Test files without a task</h2>
      {paths.map((path) => (
        <div key={path} className="seed-test-file" data-testid="seed-test-file" data-path={path}>
          <div className="file-name mono">{path}</div>
          {draft !== null ? (
            <TestFileEditor path={path} content={testFile(seed, draft, path)?.content ?? ''} onChange={onTestChange} />
          ) : (
            <CodeView code={seed.test_files[path] ?? ''} path={path} />
          )}
        </div>
      ))}
    </section>
  );
}

/** Why Run is off while the environment cannot run the tests, with the way to check again. */
function RunBlocked({ rechecking, onRecheck }: { rechecking: boolean; onRecheck: () => void }) {
  return (
    <div className="callout callout-error run-blocked" data-testid="run-blocked">
      <strong>Run is blocked:</strong> the acceptance tests cannot run in this environment, so every task would fail its checks whatever the worker did. The
      contract check below shows what the runner said. Fix it — install the project's dependencies in the repository, or correct the test — then check again.{' '}
      <button type="button" className="button button-secondary button-small" data-testid="recheck" onClick={onRecheck} disabled={rechecking}>
        {rechecking ? 'Checking…' : 'Check again'}
      </button>
    </div>
  );
}

/** The server's problems with the last save, one per line; nothing when it had none. */
function SaveProblems({ problems }: { problems: readonly string[] }) {
  // Save sits in a sticky toolbar, often far below the problems: bring them into view.
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (problems.length > 0) ref.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [problems]);
  if (problems.length === 0) return null;
  return (
    <div ref={ref} className="callout callout-error seed-error" role="alert" data-testid="seed-error">
      <h2>The seed was not saved</h2>
      <ul>
        {problems.map((p, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: one check's problems, fixed once loaded; two can read the same
          <li key={i}>{p}</li>
        ))}
      </ul>
    </div>
  );
}

/** How the last save went: the commit that recorded it, and the contract check run again on it. */
function SavedNote({ sha }: { sha: string | null }) {
  // Save sits in a sticky toolbar, often far below where the note appears: bring it into view.
  const ref = useRef<HTMLParagraphElement>(null);
  // In braces: the browser may return a promise from scrollIntoView, which must not become the cleanup.
  useEffect(() => {
    ref.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, []);
  return (
    <p ref={ref} className="callout seed-saved" role="status" data-testid="seed-saved">
      {sha === null ? (
        'Saved — nothing had changed, so nothing was committed.'
      ) : (
        <>
          Saved — committed as <code title={sha}>{shortSha(sha)}</code> (“seed: edited”). The contract check below ran again on the saved plan.
        </>
      )}
    </p>
  );
}

/** A refusal from the server: its first paragraph in words, any runner output after it as code. */
function RunError({ message }: { message: string }) {
  const [text, ...rest] = message.split('\n\n');
  return (
    <div className="callout callout-error" role="alert" data-testid="run-error">
      The run did not start: {text}
      {rest.length > 0 && <pre className="error-detail">{rest.join('\n\n')}</pre>}
    </div>
  );
}
