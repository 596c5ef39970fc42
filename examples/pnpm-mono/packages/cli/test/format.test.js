import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatList, parseList } from '../src/format.js';

test('formats done and open todos', () => {
  assert.equal(formatList([{ title: 'a', done: true }, { title: 'b', done: false }]), '[x] a\n[ ] b');
});

test('parses one todo per non-empty line', () => {
  assert.deepEqual(parseList('a\n\n b \n'), [
    { title: 'a', done: false },
    { title: 'b', done: false },
  ]);
});
