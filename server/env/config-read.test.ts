import { describe, expect, it } from 'vitest';
import { hasSection, iniWords, jsLiteral, parseJsonc, rustImportName, tomlStrings, yamlStrings } from './config-read.ts';

describe('jsLiteral', () => {
  it.each([
    ['a string value', "module.exports = { spec: 'test/**/*.spec.js', timeout: 2000 };", [], 'spec', ['test/**/*.spec.js']],
    ['an array of strings', 'export default { testMatch: ["**/*.test.js", `**/*.spec.js`] }', [], 'testMatch', ['**/*.test.js', '**/*.spec.js']],
    ['a nested key only at its own path', "defineConfig({ test: { coverage: { include: ['x'] }, include: ['y'] } })", ['test'], 'include', ['y']],
    ['nothing for a variable', 'export default { test: { include: files } }', ['test'], 'include', null],
    ['nothing for a spread', "export default { test: { include: [...base, 'x'] } }", ['test'], 'include', null],
    ['nothing for an interpolated template', 'export default { test: { include: [`${dir}/*.ts`] } }', ['test'], 'include', null],
    ['nothing inside an array of projects', "export default { projects: [{ testMatch: ['x'] }] }", [], 'testMatch', null],
    ['a key after a typed declaration', "const config: Config = { roots: ['<rootDir>/src'] }", [], 'roots', ['<rootDir>/src']],
  ])('reads %s', (_name, source, parents, key, expected) => {
    expect(jsLiteral(source, [...parents, key])).toEqual(expected);
  });
});

describe('other formats', () => {
  it('reads a TOML array spanning lines in its section only', () => {
    const toml = '[tool.other]\ntestpaths = ["no"]\n[tool.pytest.ini_options]\ntestpaths = [\n  "tests", # unit\n  "it",\n]\n[tool.x]\n';
    expect(tomlStrings(toml, 'tool.pytest.ini_options', 'testpaths')).toEqual(['tests', 'it']);
  });

  it('finds a TOML section by its header with a comment after it, and ends it at any header, [[array tables]] included', () => {
    expect(tomlStrings('[package] # the crate\n  name = "x"\n', 'package', 'name')).toEqual(['x']);
    expect(tomlStrings('[ lib ]\nname = "y"\n', 'lib', 'name')).toEqual(['y']);
    expect(tomlStrings('[lib]\npath = "src/lib.rs"\n[[bin]]\nname = "tool"\n', 'lib', 'name')).toBeNull();
    expect(tomlStrings('[[bin]]\nname = "tool"\n', 'bin', 'name')).toBeNull();
    expect(hasSection('[workspace]\n', 'package')).toBe(false);
    expect(hasSection('[package.metadata]\n', 'package')).toBe(false);
  });

  it("reads a crate's import name: [lib] name, else the package's, - as _", () => {
    expect(rustImportName('[package]\nname = "my-crate"\n[dependencies]\nname-less = "1"\n')).toBe('my_crate');
    expect(rustImportName("[package]\nname = 'pkg'\n[lib]\npath = 'src/lib.rs'\n[[bin]]\nname = 'tool'\n")).toBe('pkg');
    expect(rustImportName('[lib]\nname = "short"\n[package]\nname = "long-name"\n')).toBe('short');
    expect(rustImportName('[workspace]\nmembers = ["a"]\n')).toBeNull();
  });

  it('reads INI words with continuation lines', () => {
    expect(iniWords('[pytest]\ntestpaths = tests\n    integration\naddopts = -q\n', 'pytest', 'testpaths')).toEqual(['tests', 'integration']);
  });

  it('reads a YAML block list and a flow list', () => {
    expect(yamlStrings('spec:\n  - "test/a/*.js"\n  - test/b/*.js\nrecursive: true\n', 'spec')).toEqual(['test/a/*.js', 'test/b/*.js']);
    expect(yamlStrings("spec: ['a', 'b']\n", 'spec')).toEqual(['a', 'b']);
  });

  it('parses JSON with comments and trailing commas, keeping // inside strings', () => {
    expect(parseJsonc('{ "url": "http://x", /* c */ "a": [1,], // end\n }')).toEqual({ url: 'http://x', a: [1] });
  });
});
