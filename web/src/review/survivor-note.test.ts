import { describe, expect, it } from 'vitest';
import { survivorNote } from './task-review-view.tsx';

describe('survivorNote', () => {
  it('asks for a test per survivor, each with where and what no test notices', () => {
    const note = survivorNote([
      { file: 'src/todo.js', line: 42, description: "changes the string 'low' to 'mutant'" },
      { file: 'src/a.js', line: 3, description: 'turns >= into >' },
    ]);
    expect(note.split('\n')).toEqual([
      "The mutation probe found changes to this task's code that no test notices. Add test cases to the project's own tests (the acceptance tests are locked) that fail for each:",
      "- src/todo.js:42: no test notices if it changes the string 'low' to 'mutant'",
      '- src/a.js:3: no test notices if it turns >= into >',
    ]);
  });
});
