import { describe, expect, it } from 'vitest';
import { sinceSummary } from './seed-summary.tsx';

const TLDR = '- **T-001:** Todos carry a due date\n- **T-002:** The listing shows the due date';

describe('sinceSummary', () => {
  it('names the tasks the summary leaves out and the ones it names that were removed', () => {
    const tasks = [
      { id: 'T-001', title: 'Todos carry a due date' },
      { id: 'T-003', title: 'Notes on todos' },
    ];
    expect(sinceSummary({ tldr: TLDR, removed_task_ids: ['T-002'] }, tasks)).toEqual({ added: [tasks[1]], removed: ['T-002'] });
  });

  it('says nothing when nothing changed, or when the summary names no task by id', () => {
    expect(
      sinceSummary({ tldr: TLDR }, [
        { id: 'T-001', title: 'a' },
        { id: 'T-002', title: 'b' },
      ]),
    ).toEqual({ added: [], removed: [] });
    expect(sinceSummary({ tldr: 'Add a due date and show it.' }, [{ id: 'T-003', title: 'c' }])).toEqual({ added: [], removed: [] });
    // T-0010 is not T-001.
    expect(
      sinceSummary({ tldr: '- **T-0010:** x' }, [
        { id: 'T-0010', title: 'x' },
        { id: 'T-001', title: 'y' },
      ]).added.map((t) => t.id),
    ).toEqual(['T-001']);
  });
});
