import { describe, expect, it } from 'vitest';
import { iniWords, jsLiteral, parseJsonc, tomlStrings, yamlStrings } from './config-read.ts';

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
