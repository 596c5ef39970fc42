import { useEffect, useRef, useState } from 'react';
import type { PrdEntry } from '../../../shared/files.ts';
import type { SeedCriterion } from '../../../shared/seed.ts';
import type { DraftTask } from './seed-edit.ts';
import { CodeView } from '../components/code-view.tsx';
import { CriteriaEditor } from './criteria-editor.tsx';
import { MayChangeTestSetup, RedBadge, TestNames } from '../review/proof-badge.tsx';

interface TestFile {
  path: string;
  content: string;
}

/** A task beside its acceptance test file; each criterion with the test cases that check it and their red proof. */
export function SeedTaskCard({ task, test, criteria }: { task: PrdEntry; test: TestFile | null; criteria: readonly SeedCriterion[] | undefined }) {
  return (
    <article className="seed-task" data-testid="seed-task" data-task-id={task.id}>
      <div className="seed-task-info">
        <h3>
          <span className="mono task-id">{task.id}</span> <span data-testid="seed-task-title">{task.title}</span>
        </h3>
        <p className="seed-task-description">{task.description}</p>
        <h4>Acceptance criteria</h4>
        <ol className="criteria">
          {task.acceptance_criteria.map((c, i) => {
            const row = criteria?.[i];
            const red = row?.red ?? null;
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: the criteria shown are fixed while the card is read
              <li key={i} className="criterion-row" data-testid="criterion-row" data-red={red ?? 'none'}>
                <span data-testid="seed-criterion">{c}</span>
                <div className="criterion-proof">
                  <TestNames tests={row?.tests ?? task.criteria_tests?.[i] ?? []} />
                  <RedBadge red={red} />
                </div>
                {(red === 'error' || red === 'not_run' || red === 'flaky') && row?.red_detail && (
                  <p className="proof-detail" data-testid="red-detail">
                    {row.red_detail}
                  </p>
                )}
              </li>
            );
          })}
        </ol>
        <MayChangeTestSetup paths={task.may_change_test_setup} />
      </div>
      <TestFileView test={test} />
    </article>
  );
}

function TestFileView({ test }: { test: TestFile | null }) {
  if (test === null) {
    return <div className="seed-test-file muted">No test file found for this task.</div>;
  }
  return (
    <div className="seed-test-file" data-testid="seed-test-file" data-path={test.path}>
      <div className="file-name mono">{test.path}</div>
      <CodeView code={test.content} path={test.path} />
    </div>
  );
}

export interface SeedTaskEditorProps {
  task: DraftTask;
  test: TestFile | null;
  /** Its place in the run order (0 first) and how many tasks there are. */
  position: number;
  count: number;
  /** The naming rule in words, shown beside an added task's test file path. */
  pathRule: string;
  onChange: (task: DraftTask) => void;
  onTestChange: (path: string, content: string) => void;
  /** Renames an added task's test file. */
  onTestPathChange: (path: string) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}

/** The same card with every field editable; criteria are lines that can be added and removed. */
export function SeedTaskEditor({ task, test, position, count, pathRule, onChange, onTestChange, onTestPathChange, onMove, onRemove }: SeedTaskEditorProps) {
  return (
    <article className="seed-task seed-task-editing" data-testid="seed-task" data-task-id={task.id} aria-label={`Task ${task.id}`}>
      <TaskActions task={task} position={position} count={count} onMove={onMove} onRemove={onRemove} />
      <div className="seed-task-info">
        <label className="field">
          <span className="field-label">
            <span className="mono task-id">{task.id}</span> Title
          </span>
          <input className="input" data-testid="edit-title" value={task.title} onChange={(e) => onChange({ ...task, title: e.target.value })} />
        </label>
        <label className="field">
          <span className="field-label">Description</span>
          <textarea
            className="input textarea"
            data-testid="edit-description"
            rows={4}
            value={task.description}
            onChange={(e) => onChange({ ...task, description: e.target.value })}
          />
        </label>
        <CriteriaEditor task={task} onChange={onChange} />
        <label className="field">
          <span className="field-label">May change how the tests run</span>
          <textarea
            className="input textarea mono"
            data-testid="edit-test-setup"
            rows={2}
            spellCheck={false}
            placeholder="conftest.py"
            value={task.testSetup ?? ''}
            onChange={(e) => onChange({ ...task, testSetup: e.target.value })}
          />
          <span className="muted small">
            Files that decide how the tests run (conftest.py, a runner's config, package.json's scripts) are locked for the worker. List one per line to let
            this task change it.
          </span>
        </label>
      </div>
      <TestFileFields added={task.added === true} test={test} pathRule={pathRule} onTestChange={onTestChange} onTestPathChange={onTestPathChange} />
    </article>
  );
}

/** The task's test file while editing: an added task's path and whole text, or an existing file's text under its path. */
function TestFileFields({
  added,
  test,
  pathRule,
  onTestChange,
  onTestPathChange,
}: Pick<SeedTaskEditorProps, 'test' | 'pathRule' | 'onTestChange' | 'onTestPathChange'> & { added: boolean }) {
  if (test === null) {
    return <div className="seed-test-file muted">No test file found for this task.</div>;
  }
  if (added) {
    return (
      <div className="seed-test-file" data-testid="seed-test-file" data-path={test.path}>
        <label className="field">
          <span className="field-label">Test file</span>
          <input
            className="input mono"
            data-testid="edit-test-path"
            spellCheck={false}
            value={test.path}
            onChange={(e) => onTestPathChange(e.target.value.trim())}
          />
          <span className="muted small">Named {pathRule}, with this task's number.</span>
        </label>
        <TestFileEditor
          path={test.path}
          content={test.content}
          onChange={onTestChange}
          placeholder="The whole acceptance test file: the test cases that check each criterion, failing until the work is done."
        />
      </div>
    );
  }
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: TestFileEditor renders the textarea this label names
    <label className="seed-test-file" data-testid="seed-test-file" data-path={test.path}>
      <span className="file-name mono">{test.path}</span>
      <TestFileEditor path={test.path} content={test.content} onChange={onTestChange} />
    </label>
  );
}

/**
 * Move up, Move down and Remove for one task. Removing asks first, in place: the task's text and
 * its test file go with it (until Save, Cancel brings them back).
 */
function TaskActions({ task, position, count, onMove, onRemove }: Pick<SeedTaskEditorProps, 'task' | 'position' | 'count' | 'onMove' | 'onRemove'>) {
  const [confirming, setConfirming] = useState(false);
  // The button pressed goes away with the question: keep the keyboard where the choice is.
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) keep.current?.focus();
  }, [confirming]);
  const name = task.title.trim() === '' ? task.id : `${task.id} (${task.title.trim()})`;
  if (confirming) {
    return (
      <div className="seed-task-actions seed-task-confirm" data-testid="confirm-remove">
        <span>
          Remove {name} and its test file{task.testPath ? <span className="mono"> {task.testPath}</span> : null}? Its id will not be used again.
        </span>
        <button type="button" className="button button-danger button-small" data-testid="confirm-remove-task" onClick={onRemove}>
          Remove {task.id}
        </button>
        <button ref={keep} type="button" className="button button-plain button-small" data-testid="cancel-remove-task" onClick={() => setConfirming(false)}>
          Keep it
        </button>
      </div>
    );
  }
  return (
    <div className="seed-task-actions">
      <span className="muted small">
        Runs {ordinal(position + 1)} of {count}
      </span>
      <button
        type="button"
        className="button button-plain button-small"
        data-testid="move-task-up"
        aria-label={`Move ${task.id} up`}
        disabled={position === 0}
        onClick={() => onMove(-1)}
      >
        ↑ Move up
      </button>
      <button
        type="button"
        className="button button-plain button-small"
        data-testid="move-task-down"
        aria-label={`Move ${task.id} down`}
        disabled={position === count - 1}
        onClick={() => onMove(1)}
      >
        ↓ Move down
      </button>
      <button
        type="button"
        className="button button-danger-outline button-small"
        data-testid="remove-task"
        aria-label={`Remove ${task.id}`}
        disabled={count === 1}
        title={count === 1 ? 'A seed needs at least one task' : undefined}
        onClick={() => setConfirming(true)}
      >
        Remove
      </button>
    </div>
  );
}

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
}

export function TestFileEditor(props: { path: string; content: string; onChange: (path: string, content: string) => void; placeholder?: string }) {
  return (
    <textarea
      className="input textarea code-editor mono"
      data-testid="edit-test-file"
      aria-label={`Contents of ${props.path}`}
      placeholder={props.placeholder}
      spellCheck={false}
      rows={Math.min(40, Math.max(8, props.content.split('\n').length + 1))}
      value={props.content}
      onChange={(e) => props.onChange(props.path, e.target.value)}
    />
  );
}
