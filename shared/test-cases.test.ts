import { describe, expect, it } from 'vitest';
import { canReadTestCases, collectTestCases, findTestCase, pythonModule, rustCode } from './test-cases.ts';

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
      'setDue › returns a new todo with the due date',
      'setDue › throws for a date it cannot read',
      'setDue › keeps the original unchanged',
      'setDue › runs alone',
      'setDue › is skipped but still a case',
      "setDue › says 'no' politely",
      // A test holding subtests is their group, as node's runner reports it.
      'top level › a subtest',
    ]);
  });

  it("reads uvu's suites by the variable each is called on, and uvu's plain test by its title", () => {
    const file = [
      "import { suite, test } from 'uvu';",
      "import * as assert from 'uvu/assert';",
      "const Parse = suite('parse');",
      "Parse('reads a date', () => { assert.is(1, 1); });",
      "Parse.skip('rejects junk', () => {});",
      'Parse.run();',
      'let $fmt = suite(`format`);',
      "$fmt.only('as ISO', () => {});",
      "test('alone', () => {});",
      "notParse('ignored', () => {});",
    ].join('\n');
    expect(collectTestCases('tests/t001_x.test.js', file)).toEqual(['alone', 'parse › reads a date', 'parse › rejects junk', 'format › as ISO']);
    // Without uvu imported, a call named like a suite is nobody's case.
    expect(collectTestCases('tests/t001_x.test.js', file.replace("from 'uvu'", "from 'elsewhere'"))).toEqual(['alone']);
  });

  it("reads node-tap's subtests, nested, a subtest holding subtests as their group, with options before the function", () => {
    const file = [
      "import t from 'tap';",
      "t.test('parse', async (t) => {",
      "  t.test('reads a date', async (t) => { t.equal(parse('2026-01-02').day, 2); });",
      "  t.test('rejects junk', { skip: 'later' }, async (t) => { t.throws(() => parse('x')); });",
      "  t.test('formats', async (t) => {",
      "    t.test('as ISO', async (t) => { t.ok(true); });",
      '  });',
      '});',
      "t.test('alone', (t) => { t.equal(1, 1); t.end(); });",
    ].join('\n');
    expect(collectTestCases('test/t001_x.test.js', file)).toEqual(['parse › reads a date', 'parse › rejects junk', 'parse › formats › as ISO', 'alone']);
  });

  it('names a case inside describe blocks by their titles and its own, nested, closing each block where its call ends', () => {
    const file = [
      "describe('todo', () => {",
      "  context('when (open)', function () {",
      "    it('adds', () => { expect(f('(')).toMatch(/\\)[)(]x/); });",
      '    // a comment with ) and (',
      '    /* and ( here */',
      "    const t = `${g(')')} and ) too`;",
      '    describe.skip("it\'s done", () => {',
      "      test('ticks', () => expect(a / b).toBe(1 / 2));",
      '    });',
      "    it('after the inner block', () => {});",
      '  });',
      "  test.each([1, 2])('computed %s', () => {});",
      "  it('in todo only', () => {});",
      '});',
      "describe(name, () => { it('under a computed group', () => {}); });",
      "suite('last', () => { test('one', () => {}); });",
      "it('top', () => {});",
    ].join('\n');
    expect(collectTestCases('tests/t001_x.test.ts', file)).toEqual([
      'todo › when (open) › adds',
      "todo › when (open) › it's done › ticks",
      'todo › when (open) › after the inner block',
      'todo › in todo only',
      'under a computed group',
      'last › one',
      'top',
    ]);
  });

  it("reads AVA's modifiers, one or two deep, and leaves t's assertions alone", () => {
    const file = [
      "import test from 'ava';",
      "test('plain', (t) => { t.is(1, 1); });",
      "test.serial('in order', (t) => { t.true(true); });",
      "test.serial.skip('in order, skipped', (t) => { t.pass(); });",
      "test.failing('a known bug', (t) => { t.fail(); });",
      "test.todo('later');",
      "test.serial.only.skip('three deep is not AVA', (t) => {});",
    ].join('\n');
    expect(collectTestCases('tests/t001_x.test.js', file)).toEqual(['plain', 'in order', 'in order, skipped', 'a known bug', 'later']);
  });

  it("reads deno's tests by their title or their options' name, ignored ones too, and not a method merely named test", () => {
    const file = [
      "Deno.test('plain', () => {});",
      'Deno.test("with options", { permissions: {} }, () => {});',
      "Deno.test({ name: 'by name', fn() {} });",
      'Deno.test.ignore({name:`ignored by name`, fn() {}});',
      "Deno.test.only('only this', () => {});",
      "regex.test('not a case');",
      "Deno.testing('not a case either');",
    ].join('\n');
    expect(collectTestCases('tests/t001_x_test.ts', file)).toEqual(['plain', 'with options', 'by name', 'ignored by name', 'only this']);
  });
});

describe('collectTestCases in Go', () => {
  it('reads top-level tests and their literal t.Run subtests by the names go gives them, nested ones too', () => {
    const source = [
      'package todo',
      '',
      '// func TestCommented(t *testing.T) {}',
      'func TestAdd(t *testing.T) {',
      '\tt.Run("appends a todo", func(t *testing.T) {',
      '\t\ts := "a { brace in a string"',
      "\t\tr := '{'",
      '\t\tt.Run(`raw title`, func(t *testing.T) {})',
      '\t})',
      '\t/* t.Run("in a comment", nil) { */',
      '\tt.Run("refuses \\"quoted\\"", func(st *testing.T) {',
      '\t\tst.Run("deeper", func(t *testing.T) {})',
      '\t})',
      '\tfor _, tc := range cases {',
      '\t\tt.Run(tc.name, func(t *testing.T) {})',
      '\t}',
      '}',
      '',
      'func helper(t *testing.T) { t.Run("not a test", nil) }',
      'func Testlower(t *testing.T) {}',
      'func FuzzParse(f *testing.F) {}',
      'func TestB(t *testing.T) { t.Run("one line", func(t *testing.T) {}) }',
    ].join('\n');
    expect(collectTestCases('todo/t001_x_test.go', source)).toEqual([
      'TestAdd',
      'TestAdd/appends_a_todo',
      'TestAdd/appends_a_todo/raw_title',
      'TestAdd/refuses_"quoted"',
      'TestAdd/refuses_"quoted"/deeper',
      'FuzzParse',
      'TestB',
      'TestB/one_line',
    ]);
    expect(canReadTestCases('todo/t001_x_test.go')).toBe(true);
    expect(canReadTestCases('todo/x.go')).toBe(false);
  });
});

describe('collectTestCases in Rust', () => {
  it('names each test function by its path through inline modules, as libtest does, nested ones too', () => {
    const source = [
      'use todo::TodoList;',
      '',
      '#[test]',
      'fn adds_a_todo() {}',
      '',
      'mod inner {',
      '    use super::*;',
      '    #[test]',
      '    fn deep() {}',
      '    pub mod more {',
      '        #[test]',
      '        pub fn deeper() {}',
      '    }',
      '    #[test]',
      '    fn after_the_nested_module() {}',
      '}',
      '',
      '#[cfg(test)]',
      'mod tests {',
      '    #[test]',
      '    fn in_the_usual_module() {}',
      '}',
      'mod elsewhere;',
      '#[test]',
      'fn last() {}',
    ].join('\n');
    expect(collectTestCases('tests/t001_add.rs', source)).toEqual([
      'adds_a_todo',
      'inner::deep',
      'inner::more::deeper',
      'inner::after_the_nested_module',
      'tests::in_the_usual_module',
      'last',
    ]);
    expect(canReadTestCases('tests/t001_add.rs')).toBe(true);
  });

  it("reads the async runtimes' test attributes and lets other attributes and qualifiers come between the attribute and the fn", () => {
    const source = [
      '#[test]',
      '#[ignore]',
      '#[should_panic(expected = "index out of range")]',
      'fn panics() {}',
      '#[tokio::test]',
      'async fn with_tokio() {}',
      '#[tokio::test(flavor = "multi_thread", worker_threads = 2)]',
      'pub async fn with_tokio_threads() {}',
      '#[async_std::test]',
      'async fn with_async_std() {}',
      '#[test] pub(crate) unsafe fn on_one_line() {}',
      '#[test_case(1 ; "one")]',
      'fn parameterised(n: u32) {}',
      '#[cfg(test)]',
      'fn helper() {}',
      '#[derive(Debug)]',
      'struct NotATest;',
      'fn not_marked() {}',
    ].join('\n');
    expect(collectTestCases('tests/t002_attrs.rs', source)).toEqual(['panics', 'with_tokio', 'with_tokio_threads', 'with_async_std', 'on_one_line']);
  });

  it('is not misled by braces in comments, strings, raw strings and chars, nor by lifetimes', () => {
    const source = [
      '// mod commented { #[test] fn no() {} }',
      '/* } outer /* nested } */ still a comment } */',
      "fn helper<'a>(s: &'a str) -> &'a str {",
      '    let _ = ("}", r#"a "}" b"#, \'}\', b\'{\', b"}", \'\\\'\');',
      "    'outer: loop { break 'outer; }",
      '    s',
      '}',
      'mod inner {',
      '    const OPEN: &str = "{\\"{";',
      '    /// A doc comment with a brace {',
      '    #[test]',
      '    fn still_inner() {}',
      '}',
      '#[test]',
      'fn top() {}',
    ].join('\n');
    expect(collectTestCases('tests/t003_braces.rs', source)).toEqual(['inner::still_inner', 'top']);
  });

  it('counts no test inside a function, an impl or a macro, where libtest would not name it', () => {
    const source = [
      'fn outer() {',
      '    #[test]',
      '    fn inside_a_function() {}',
      '}',
      'impl Thing {',
      '    #[test]',
      '    fn inside_an_impl() {}',
      '}',
      'macro_rules! make {',
      '    ($name:ident) => {',
      '        #[test]',
      '        fn $name() {}',
      '    };',
      '}',
      '#[test]',
      'fn real() {}',
    ].join('\n');
    expect(collectTestCases('tests/t004_scopes.rs', source)).toEqual(['real']);
  });

  it('blanks out comments and literals, keeping every other character in its place', () => {
    const source = 'let s = r##"a"#b"## ; // x\nlet c = \'"\'; /* a /* b */ c */ let l: &\'static str = b"q\\"";';
    const code = rustCode(source);
    expect(code).toHaveLength(source.length);
    expect(code.replace(/ +/g, ' ')).toBe("let s = ; \nlet c = ; let l: &'static str = ;");
  });
});

describe('pythonModule', () => {
  it('names a Python file as its dotted module, dropping only the final .py', () => {
    expect(pythonModule('test_a.py')).toBe('test_a');
    expect(pythonModule('tests/unit/test_a.py')).toBe('tests.unit.test_a');
    expect(pythonModule('src/pkg.pyx_tools/test_b.py')).toBe('src.pkg.pyx_tools.test_b');
  });
});

describe('findTestCase', () => {
  it('takes a JavaScript case by its full name written with ›, > or spaces, or by the end of it when only one case ends so', () => {
    const cases = ['top', 'todo › adds', 'todo › open › ticks', 'a › dup', 'b › dup', 'dup2 › x y'];
    expect(findTestCase(cases, 'todo › adds')).toBe('todo › adds');
    expect(findTestCase(cases, 'todo > open > ticks')).toBe('todo › open › ticks');
    expect(findTestCase(cases, 'todo open ticks')).toBe('todo › open › ticks');
    expect(findTestCase(cases, 'adds')).toBe('todo › adds');
    expect(findTestCase(cases, 'open > ticks')).toBe('todo › open › ticks');
    expect(findTestCase(cases, 'ticks')).toBe('todo › open › ticks');
    // Two cases end so: neither is picked (the sink lists every full name).
    expect(findTestCase(cases, 'dup')).toBeNull();
    expect(findTestCase(cases, 'b › dup')).toBe('b › dup');
    expect(findTestCase(cases, 'dds')).toBeNull();
    // Spaces stand for › only in a full name: a top-level case is its title alone.
    expect(findTestCase(cases, 'x y')).toBe('dup2 › x y');
    expect(findTestCase(['top'], 'to p')).toBeNull();
  });

  it('takes a Go subtest by its full name, as written with spaces, or by its title alone when only one test has it', () => {
    const cases = ['TestSet', 'TestSet/returns_a_copy', 'TestSet/refuses', 'TestOther/refuses'];
    expect(findTestCase(cases, 'TestSet/returns a copy')).toBe('TestSet/returns_a_copy');
    expect(findTestCase(cases, 'returns a copy')).toBe('TestSet/returns_a_copy');
    expect(findTestCase(cases, 'refuses')).toBeNull();
    expect(findTestCase(cases, 'TestOther/refuses')).toBe('TestOther/refuses');
    expect(findTestCase(cases, 'copy')).toBeNull();
  });

  it('takes a Rust test inside modules by its full path or by the end of it, when only one test ends so', () => {
    const cases = ['top', 'inner::deep', 'inner::more::deeper', 'a::dup', 'b::dup'];
    expect(findTestCase(cases, 'inner::deep')).toBe('inner::deep');
    expect(findTestCase(cases, 'deep')).toBe('inner::deep');
    expect(findTestCase(cases, 'deeper')).toBe('inner::more::deeper');
    expect(findTestCase(cases, 'more::deeper')).toBe('inner::more::deeper');
    expect(findTestCase(cases, 'dup')).toBeNull();
    expect(findTestCase(cases, 'b::dup')).toBe('b::dup');
    expect(findTestCase(cases, 'eep')).toBeNull();
  });

  it('matches exactly, or a pytest method by its bare name when only one class has it', () => {
    const cases = ['test_a', 'TestX::test_b', 'TestX::test_c', 'TestY::test_c'];
    expect(findTestCase(cases, 'test_a')).toBe('test_a');
    expect(findTestCase(cases, ' test_b ')).toBe('TestX::test_b');
    expect(findTestCase(cases, 'test_c')).toBeNull();
    expect(findTestCase(cases, 'TestY::test_c')).toBe('TestY::test_c');
    expect(findTestCase(cases, 'test_missing')).toBeNull();
  });
});
