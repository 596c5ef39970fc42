import { memo } from 'react';
import { Link } from '../router.tsx';
import type { BoardRow } from './board.ts';
import { boardProgress } from './board.ts';
import { paths } from '../paths.ts';
import { BOARD_STATUS_LABELS } from './header/run-words.ts';
import { formatUsd } from '../../../shared/format.ts';

/** Every task with its status and figures; each links to its review page. */
export const TaskBoard = memo(function TaskBoard(props: { sessionId: string; rows: readonly BoardRow[]; iterationCap: number; evaluatorCap: number }) {
  const { sessionId, rows } = props;
  return (
    <section className="panel task-board" aria-label="Tasks" data-testid="task-board">
      <div className="chart-head">
        <h2>Tasks</h2>
        <p className="muted small" data-testid="task-progress">
          {rows.length === 0 ? 'No plan loaded yet.' : boardProgress(rows)}
        </p>
      </div>
      {rows.length > 0 && (
        <table className="board-table">
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Iterations
              </th>
              <th scope="col" className="num">
                Evaluator
              </th>
              <th scope="col" className="num">
                Cost
              </th>
              <th scope="col">Last verdict</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} data-testid="board-task" data-task-id={r.id} data-status={r.status}>
                <td className="board-task-cell">
                  <Link to={paths.taskReview(sessionId, r.id)} className="board-task-link" testId="board-task-link">
                    <span className="task-id mono">{r.id}</span> <span className="board-task-title">{r.title}</span>{' '}
                    <span className="board-task-go">Review →</span>
                  </Link>
                </td>
                <td data-label="Status">
                  <span className={`badge task-${r.status}`} data-testid="board-task-status">
                    {BOARD_STATUS_LABELS[r.status]}
                  </span>
                  {r.failureReason !== null && r.status !== 'done' && <span className="board-reason"> {r.failureReason.replace(/_/g, ' ')}</span>}
                </td>
                <td className={`num level-${r.iterationsLevel}`} data-label="Iterations" data-testid="board-iterations">
                  {r.iterations}
                  {props.iterationCap > 0 && <span className="muted"> / {props.iterationCap}</span>}
                </td>
                <td className={`num level-${r.evaluatorLevel}`} data-label="Evaluator calls" data-testid="board-evaluator">
                  {r.evaluatorCalls}
                  {props.evaluatorCap > 0 && <span className="muted"> / {props.evaluatorCap}</span>}
                  {r.rejects > 0 && <span className="muted small"> ({r.rejects} ✗)</span>}
                </td>
                <td className="num" data-label="Cost">
                  {formatUsd(r.costUsd)}
                </td>
                <td data-label="Last verdict" data-testid="board-verdict" data-verdict={r.lastVerdict?.verdict ?? ''}>
                  {r.lastVerdict === null ? (
                    <span className="muted">—</span>
                  ) : (
                    <span title={r.lastVerdict.concern}>
                      <span className={`badge verdict-${r.lastVerdict.verdict}`}>{r.lastVerdict.verdict === 'accept' ? 'accepted' : 'rejected'}</span>
                      {r.lastVerdict.rejection_category !== null && (
                        <span className="board-reason"> {r.lastVerdict.rejection_category.replace(/_/g, ' ')}</span>
                      )}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
});
