import { describe, expect, it } from 'vitest';
import { collectTestCases, findTestCase } from './test-cases.ts';

describe('collectTestCases', () => {
  it('reads pytest functions, async ones and methods of Test classes, skipping helpers and comments', () => {
    const file = [
      'import pytest',
      'from todo import set_due',
      '',
      'def helper():',
      '    return 1',
      '',
      'def test_sets_the_date():',
      '    assert set_due([], 0, "2026-01-01")[0].due',
      '',
      '@pytest.mark.parametrize("bad", ["", "tomorrow"])',
      'def test_rejects_a_bad_date(bad):',
      '    with pytest.raises(ValueError):',
      '        set_due([], 0, bad)',
      '',
      'async def test_async_too():',
      '    pass',
      '',
      '# def test_commented_out():',
      'class TestListing:',
      '    def setup_method(self):',
      '        pass',
      '    def test_shows_the_date(self):',
      '        def test_nested_is_not_a_case():',
      '            pass',
      '',
      'class Helper:',
      '    def test_not_collected(self):',
      '        pass',
      'class SetPriorityTest(unittest.TestCase):',
      '    def test_unittest_style(self):',
      '        pass',
      'def test_last():',
      '    pass',
    ].join('\n');
    expect(collectTestCases('tests/test_t001_due.py', file)).toEqual([
      'test_sets_the_date',
      'test_rejects_a_bad_date',
      'test_async_too',
      'TestListing::test_shows_the_date',
      'SetPriorityTest::test_unittest_style',
      'test_last',
    ]);
  });

  it('reads it/test titles in every quote style, with modifiers and node:test subtests, and skips computed ones', () => {
    const file = [
      "import { describe, it, test } from 'vitest';",
      "describe('setDue', () => {",
      "  it('returns a new todo with the due date', () => {});",
      '  it("throws for a date it cannot read", () => {});',
      '  test(`keeps the original unchanged`, () => {});',
      "  it.only('runs alone', () => {});",
      "  test.skip('is skipped but still a case', () => {});",
      "  it('says \\'no\\' politely', () => {});",
      '  for (const v of [1, 2]) it(`case ${v}`, () => {});',
      "  const split = 'edit(' + 'x';",
      '});',
      "test('top level', async (t) => { await t.test('a subtest', () => {}); });",
    ].join('\n');
    expect(collectTestCases('tests/t001_due.test.js', file)).toEqual([
      'returns a new todo with the due date',
      'throws for a date it cannot read',
      'keeps the original unchanged',
      'runs alone',
      'is skipped but still a case',
      "says 'no' politely",
      'top level',
      'a subtest',
    ]);
  });
});

describe('findTestCase', () => {
  it('matches exactly, or a pytest method by its bare name when only one class has it', () => {
    const cases = ['test_a', 'TestX::test_b', 'TestX::test_c', 'TestY::test_c'];
    expect(findTestCase(cases, 'test_a')).toBe('test_a');
    expect(findTestCase(cases, ' test_b ')).toBe('TestX::test_b');
    expect(findTestCase(cases, 'test_c')).toBeNull();
    expect(findTestCase(cases, 'TestY::test_c')).toBe('TestY::test_c');
    expect(findTestCase(cases, 'test_missing')).toBeNull();
  });
});
