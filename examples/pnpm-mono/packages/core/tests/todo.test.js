import { describe, expect, it } from 'vitest';
import { complete, createTodo } from '../src/todo.js';

describe('createTodo', () => {
  it('trims the title and starts not done', () => {
    expect(createTodo('  water plants ')).toEqual({ title: 'water plants', done: false });
  });

  it('refuses an empty title', () => {
    expect(() => createTodo('   ')).toThrow(/needs a title/);
  });
});

describe('complete', () => {
  it('returns a done copy', () => {
    const todo = createTodo('x');
    expect(complete(todo)).toEqual({ title: 'x', done: true });
    expect(todo.done).toBe(false);
  });
});
