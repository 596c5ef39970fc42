import type { DraftTask } from './seed-edit.ts';
import { AutoGrowTextarea } from '../components/auto-grow-textarea.tsx';

/**
 * A task's acceptance criteria while editing: each one a line of text with the test cases that
 * check it, added and removed together so each criterion keeps its own tests.
 */
export function CriteriaEditor({ task, onChange }: { task: DraftTask; onChange: (task: DraftTask) => void }) {
  const setCriterion = (index: number, value: string) => onChange({ ...task, criteria: task.criteria.map((c, i) => (i === index ? value : c)) });
  // One name a line: a JavaScript title may hold commas. Blank lines stay while typing; the edit drops them.
  const setTests = (index: number, value: string) =>
    onChange({ ...task, tests: task.criteria.map((_, i) => (i === index ? value.split('\n') : (task.tests[i] ?? []))) });
  const removeCriterion = (index: number) =>
    onChange({ ...task, criteria: task.criteria.filter((_, i) => i !== index), tests: task.tests.filter((_, i) => i !== index) });
  return (
    <fieldset className="field criteria-editor">
      <legend className="field-label">Acceptance criteria</legend>
      {task.criteria.map((c, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: controlled inputs: each shows the draft's text at its position, so reuse by position never shows stale text
        <div key={i} className="criterion-edit">
          <div className="inline-field">
            <span className="muted criterion-number">{i + 1}.</span>
            <AutoGrowTextarea
              className="input textarea criterion-text"
              data-testid="edit-criterion"
              aria-label={`Criterion ${i + 1}`}
              value={c}
              // A criterion is one statement: Enter does not start a second line, long text wraps.
              onKeyDown={(e) => {
                if (e.key === 'Enter') e.preventDefault();
              }}
              onChange={(e) => setCriterion(i, e.target.value.replace(/\s*\n\s*/g, ' '))}
            />
            <button
              type="button"
              className="button button-plain"
              data-testid="remove-criterion"
              aria-label={`Remove criterion ${i + 1}`}
              title="Remove this criterion"
              onClick={() => removeCriterion(i)}
            >
              ✕
            </button>
          </div>
          <label className="criterion-tests-edit">
            <span className="muted small">Test cases that check it, one a line</span>
            <textarea
              className="input textarea mono"
              data-testid="edit-criterion-tests"
              aria-label={`Test cases for criterion ${i + 1}, one a line`}
              spellCheck={false}
              rows={Math.max(1, (task.tests[i] ?? []).length)}
              value={(task.tests[i] ?? []).join('\n')}
              onChange={(e) => setTests(i, e.target.value)}
            />
          </label>
        </div>
      ))}
      <button
        type="button"
        className="button button-secondary button-small"
        data-testid="add-criterion"
        onClick={() => onChange({ ...task, criteria: [...task.criteria, ''], tests: [...task.tests, []] })}
      >
        Add criterion
      </button>
    </fieldset>
  );
}
